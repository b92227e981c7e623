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

// Mutation: libFuzzer's byte mutators by default; DISPATCH_FUZZ_MUTATOR=structure switches in the
// structure-aware one (harness/trace_mutator.h). fuzz/options/fallback_fuzzer.options says why
// (the full bug benchmark, both side by side).
DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(dispatch::oracle::kFallbackWeights, dispatch::fuzz::MutatorChoice::Bytes)
