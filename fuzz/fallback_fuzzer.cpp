// Fallback registration and deregistration orders across every key, alias and flavour: the
// exact shape of the historic mobile bug (PyTorch #74963, docs/semantics.md §6.3). Same trace language as
// registration_fuzzer, weighted towards fallbacks.

#include "harness/trace_mutator_hooks.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::runTraceTarget("fallback_fuzzer", dispatch::oracle::kFallbackWeights, data,
                                        size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kFallbackWeights, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInputAsCpp(out, oracle::kFallbackWeights, data, size);
}

// Mutation: structure-aware by default (harness/trace_mutator.h); fuzz/options/fallback_fuzzer.options
// says why (measured on the bug benchmark against libFuzzer's byte mutators alone).
namespace {
constexpr auto kMutator = dispatch::fuzz::MutatorChoice::Structure;
}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return dispatch::fuzz::customMutate(dispatch::oracle::kFallbackWeights, kMutator, data, size, max_size, seed);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* first, size_t first_size, const uint8_t* second,
                                            size_t second_size, uint8_t* out, size_t max_out_size,
                                            unsigned int seed) {
  return dispatch::fuzz::customCrossOver(dispatch::oracle::kFallbackWeights, kMutator, first, first_size, second,
                                         second_size, out, max_out_size, seed);
}
