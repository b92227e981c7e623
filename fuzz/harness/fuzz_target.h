#pragma once
// What every fuzz target provides besides LLVMFuzzerTestOneInput, and what the harness gives it.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace dispatch::fuzz {

// Prints an input as the target decodes it (readable dispatcher calls), for `<target> --print`.
// Defined once per target.
void printInput(std::ostream& out, const uint8_t* data, size_t size);

// Prints an input as C++ for a regression test, for `<target> --print-cpp` (ci/repro.sh). The
// first line says what follows: "// dispatch-fuzz-cpp: actions" (one Action initializer per line,
// trace targets) or "// dispatch-fuzz-cpp: bytes" (the raw bytes as a hex list: the weak default
// in fuzz_target.cpp, for targets that do not define their own).
void printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size);

// Reports a disagreement or library bug found while running an input, then aborts, so that
// libFuzzer (or the replay main) records a crash. `what` is the headline, `details` the rest.
[[noreturn]] void reportBug(const char* target, const std::string& what, const std::string& details);

}  // namespace dispatch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
