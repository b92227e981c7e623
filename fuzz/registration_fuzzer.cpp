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

// Mutation: structure-aware by default (harness/trace_mutator.h); fuzz/options/registration_fuzzer.options
// says why (measured on the bug benchmark against libFuzzer's byte mutators alone).
namespace {
constexpr auto kMutator = dispatch::fuzz::MutatorChoice::Structure;
}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return dispatch::fuzz::customMutate(dispatch::oracle::kRegistrationWeights, kMutator, data, size, max_size, seed);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* first, size_t first_size, const uint8_t* second,
                                            size_t second_size, uint8_t* out, size_t max_out_size,
                                            unsigned int seed) {
  return dispatch::fuzz::customCrossOver(dispatch::oracle::kRegistrationWeights, kMutator, first, first_size, second,
                                         second_size, out, max_out_size, seed);
}
