#include "c10_sut/c10_oracle.h"

#include <cstdlib>
#include <stdexcept>

#include <torch/version.h>

#include "oracle/runner/model_free_runner.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::c10_sut {

std::string libtorchRelease() { return TORCH_VERSION; }

C10Oracle defaultOracle() { return TORCH_VERSION_MAJOR == 1 ? C10Oracle::Model : C10Oracle::ModelFree; }

C10Oracle oracleFromEnvironment() {
  const char* chosen = std::getenv("DISPATCH_C10_ORACLE");
  if (!chosen || !*chosen) return defaultOracle();
  const std::string value(chosen);
  if (value == "model") return C10Oracle::Model;
  if (value == "model-free") return C10Oracle::ModelFree;
  throw std::invalid_argument("DISPATCH_C10_ORACLE=" + value + ": expected model or model-free");
}

std::string toString(C10Oracle oracle) { return oracle == C10Oracle::Model ? "model" : "model-free"; }

std::optional<std::string> runTrace(C10Oracle oracle, oracle::SystemUnderTest& sut,
                                    const std::vector<oracle::Action>& actions, size_t* skipped,
                                    std::map<std::string, size_t>* skip_reasons) {
  if (oracle == C10Oracle::Model) return oracle::runTraceOnSut(sut, actions, skipped, skip_reasons);
  return oracle::runTraceModelFree(sut, actions, skipped, skip_reasons);
}

}  // namespace dispatch::c10_sut
