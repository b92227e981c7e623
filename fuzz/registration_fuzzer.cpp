// API-sequence fuzzer over the whole registration and call surface: def, impl on any key
// (aliases, catch-all, garbage), fallbacks and fallthroughs (direct and through a library),
// dropping handles in any order (and twice), TLS guards, typed and boxed calls, redispatch.
// Each input runs on a fresh dispatcher of every declared flavour, checked against the model
// after every action.

#include "harness/trace_mutator_hooks.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::runTraceTarget("registration_fuzzer", dispatch::oracle::kRegistrationWeights,
                                        data, size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kRegistrationWeights, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInputAsCpp(out, oracle::kRegistrationWeights, data, size);
}

// Mutation: libFuzzer's byte mutators by default; DISPATCH_FUZZ_MUTATOR=structure switches in the
// structure-aware one (harness/trace_mutator.h). fuzz/options/registration_fuzzer.options says why
// (the full bug benchmark, both side by side).
DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(dispatch::oracle::kRegistrationWeights, dispatch::fuzz::MutatorChoice::Bytes)
