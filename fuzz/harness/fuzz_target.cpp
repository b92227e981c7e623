#include "harness/fuzz_target.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace dispatch::fuzz {

void reportBug(const char* target, const std::string& what, const std::string& details) {
  std::fprintf(stderr, "\n==== DISPATCH FUZZ BUG in %s: %s\n%s\n==== END DISPATCH FUZZ BUG\n", target,
               what.c_str(), details.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {
std::vector<uint8_t> readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

// Default for targets without their own: the bytes, 16 per line.
__attribute__((weak)) void printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  out << "// dispatch-fuzz-cpp: bytes\n";
  char buf[8];
  for (size_t i = 0; i < size; ++i) {
    std::snprintf(buf, sizeof buf, "0x%02x,", data[i]);
    out << buf << ((i % 16 == 15 || i + 1 == size) ? "\n" : " ");
  }
}

}  // namespace dispatch::fuzz

// `<target> --print FILE...` prints each input as readable dispatcher calls and exits;
// `<target> --print-cpp FILE...` prints them as C++ (printInputAsCpp). Works for the libFuzzer
// build (libFuzzer calls this before it fuzzes) and the replay build alike.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  bool print = false;
  bool print_cpp = false;
  for (int i = 1; i < *argc; ++i) {
    print |= std::strcmp((*argv)[i], "--print") == 0;
    print_cpp |= std::strcmp((*argv)[i], "--print-cpp") == 0;
  }
  if (!print && !print_cpp) return 0;
  for (int i = 1; i < *argc; ++i) {
    const char* arg = (*argv)[i];
    if (arg[0] == '-') continue;
    const auto bytes = dispatch::fuzz::readFile(arg);
    if (print_cpp) {
      dispatch::fuzz::printInputAsCpp(std::cout, bytes.data(), bytes.size());
      continue;
    }
    std::cout << "# " << arg << " (" << bytes.size() << " bytes)\n";
    dispatch::fuzz::printInput(std::cout, bytes.data(), bytes.size());
  }
  std::exit(0);
}
