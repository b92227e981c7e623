// API-sequence fuzzer over library blocks: registration_fuzzer's vocabulary plus LibraryBlock
// actions (DISPATCH_LIBRARY, _IMPL and _FRAGMENT blocks with a def or an impl in them, spelled
// short or qualified, in the operators' namespace, another one or the wildcard), so that blocks
// meet direct registrations on one operator's slots and each other's namespace claims. Each
// input runs on a fresh dispatcher of every declared flavour, checked against the model after
// every action.

#include "harness/trace_mutator_hooks.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::runTraceTarget("library_fuzzer", dispatch::oracle::kLibraryWeights, data, size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kLibraryWeights, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInputAsCpp(out, oracle::kLibraryWeights, data, size);
}

// Mutation: libFuzzer's byte mutators, as registration_fuzzer (fuzz/options/library_fuzzer.options).
DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(dispatch::oracle::kLibraryWeights, dispatch::fuzz::MutatorChoice::Bytes)
