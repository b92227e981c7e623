// registration_fuzzer's actions plus registrations on keys by c10's name (NamedKey: the keys
// releases after 1.13.1 added, oracle/actions/release_keys.h) against c10 in libtorch: see
// c10_trace_target.h for how each input is judged. A release that lacks a key skips the action
// with the key named; the model (1.13.1) has none of them, so the model-based judge skips them
// all and the model-free one is the judge that runs them (the default past 1.13).

#include "c10_trace_target.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::c10::runC10Target("c10_release_keys_fuzzer", dispatch::oracle::kReleaseKeyWeights, data,
                                           size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kReleaseKeyWeights, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  c10::printC10InputAsCpp(out, oracle::kReleaseKeyWeights, data, size);
}
