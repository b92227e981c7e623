// The entry points of one c10 fuzz target, compiled once per target (fuzz/c10/CMakeLists.txt)
// with its name and its action weights: DISPATCH_C10_TARGET_NAME and DISPATCH_C10_TARGET_WEIGHTS.
//   c10_registration_fuzzer  registration_fuzzer's actions, with its bytes (kRegistrationWeights);
//   c10_release_keys_fuzzer  those plus registrations on keys by c10's name (kReleaseKeyWeights:
//                            NamedKey, the keys releases after 1.13.1 added, oracle/actions/
//                            release_keys.h). A release that lacks a key skips the action with the
//                            key named; the model (1.13.1) has none of them, so the model-free
//                            judge (the default past 1.13) is the one that runs them.
// c10_trace_target.h says how each input is judged.

#include "c10_trace_target.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::c10::runC10Target(DISPATCH_C10_TARGET_NAME, dispatch::oracle::DISPATCH_C10_TARGET_WEIGHTS,
                                           data, size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::DISPATCH_C10_TARGET_WEIGHTS, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  c10::printC10InputAsCpp(out, oracle::DISPATCH_C10_TARGET_WEIGHTS, data, size);
}
