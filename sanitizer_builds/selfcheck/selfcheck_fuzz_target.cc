// sanitizer_builds/selfcheck/selfcheck_fuzz_target.cc
//
// A libFuzzer target with a planted crash: inputs starting with "FUZZ" write
// one element past a heap block (ASan builds) or trap (builds without ASan).
// The selfcheck runs it on a seed directory containing such an input and
// passes only when the crash is reported.
#include <cstddef>
#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DISPATCH_SELFCHECK_HAS_ASAN 1
#endif
#endif

namespace {
volatile int g_four = 4;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && data[0] == 'F' && data[1] == 'U' && data[2] == 'Z' && data[3] == 'Z') {
#ifdef DISPATCH_SELFCHECK_HAS_ASAN
    int* p = new int[4];
    p[g_four] = 1;  // heap-buffer-overflow
    delete[] p;
#else
    __builtin_trap();
#endif
  }
  return 0;
}
