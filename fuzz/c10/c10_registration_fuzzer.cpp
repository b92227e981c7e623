// registration_fuzzer's actions, with its bytes, against PyTorch's own dispatcher (c10 in
// libtorch): see c10_trace_target.h for how each input is judged.

#include "c10_trace_target.h"
#include "harness/trace_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dispatch::fuzz::c10::runC10Target("c10_registration_fuzzer", dispatch::oracle::kRegistrationWeights, data,
                                           size);
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kRegistrationWeights, data, size);
}

void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  c10::printC10InputAsCpp(out, oracle::kRegistrationWeights, data, size);
}
