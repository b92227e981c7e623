// sanitizer_builds/selfcheck/selfcheck_faults.cc
//
// Deliberate faults. Each mode MUST be reported by the matching setup; the
// ctest entries (label `selfcheck`) pass only when the expected report line
// appears. If one of them starts failing, the sanitizer setup is broken, not
// this file. Usage: dispatch_selfcheck_faults <mode>
//
// The out-of-bounds index is read from a volatile so that neither the
// compiler's warnings nor its optimiser can see or remove the fault.
#include <array>
#include <climits>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unordered_map>

namespace {

volatile int g_eight = 8;
volatile int g_one = 1;

// The #74963 / #72402 shape (docs/harness.md §2.4): a fixed 8-entry table
// followed by a neighbouring member of the same heap object.
struct TableWithStdArray {
  std::array<int, 8> table{};
  std::unordered_map<int, int> neighbour;
};
struct TableWithCArray {
  int table[8] = {};
  int neighbour = 0;
};

int asan_heap_overflow() {
  int* p = new int[8];
  p[g_eight] = 1;  // one past the end of a heap block
  int r = p[0];
  delete[] p;
  return r;
}

int ubsan_local_bounds() {
  int* p = new int[8];
  p[g_eight] = 1;  // size known locally: -fsanitize=local-bounds traps (SIGILL)
  int r = p[0];
  delete[] p;
  return r;
}

int ubsan_signed_overflow() {
  int x = INT_MAX;
  x += g_one;  // signed overflow
  return x == 0 ? 1 : 0;
}

int ubsan_bounds() {
  auto* obj = new TableWithCArray();
  obj->table[g_eight] = 1;  // index 8 of int[8]: lands in `neighbour`, ASan misses it
  int r = obj->neighbour;
  delete obj;
  return r;
}

int hardened_intra_object() {
  auto* obj = new TableWithStdArray();
  obj->table[static_cast<std::size_t>(g_eight)] = 1;  // missed by ASan and UBSan; caught by library assertions
  int r = static_cast<int>(obj->neighbour.size());
  delete obj;
  return r;
}

int g_racy_counter = 0;
int tsan_race() {
  auto work = [] {
    for (int i = 0; i < 100000; ++i) {
      g_racy_counter = g_racy_counter + 1;  // unsynchronised read-modify-write
    }
  };
  std::thread a(work);
  std::thread b(work);
  a.join();
  b.join();
  return g_racy_counter > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s asan-heap-overflow|ubsan-signed-overflow|ubsan-bounds|ubsan-local-bounds|"
                         "hardened-intra-object|tsan-race|clean\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  std::printf("selfcheck mode: %s\n", mode);
  std::fflush(stdout);
  int r = 0;
  if (std::strcmp(mode, "asan-heap-overflow") == 0) {
    r = asan_heap_overflow();
  } else if (std::strcmp(mode, "ubsan-signed-overflow") == 0) {
    r = ubsan_signed_overflow();
  } else if (std::strcmp(mode, "ubsan-local-bounds") == 0) {
    r = ubsan_local_bounds();
  } else if (std::strcmp(mode, "ubsan-bounds") == 0) {
    r = ubsan_bounds();
  } else if (std::strcmp(mode, "hardened-intra-object") == 0) {
    r = hardened_intra_object();
  } else if (std::strcmp(mode, "tsan-race") == 0) {
    r = tsan_race();
  } else if (std::strcmp(mode, "clean") == 0) {
    r = 0;
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  std::printf("selfcheck mode %s finished WITHOUT a report (result %d)\n", mode, r);
  return 0;
}
