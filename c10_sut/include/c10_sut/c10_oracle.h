#pragma once
// Which oracle judges c10. The reference model describes PyTorch 1.13.1, so against 1.13 the
// harness compares c10 with it action by action (oracle/runner/seam_runner.h); against any other
// release it judges c10 by c10 (oracle/runner/model_free_runner.h): c10's own invariant check and its
// live table against its computed one, register-then-deregister, guards. The model-free oracles
// run against 1.13 too (DISPATCH_C10_ORACLE=model-free), which is how they are shown to see the
// known bugs there.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::c10_sut {

enum class C10Oracle { Model, ModelFree };

// The release of the libtorch this binary was built against ("2.14.1").
std::string libtorchRelease();
// Model against 1.x, model-free otherwise; DISPATCH_C10_ORACLE=model|model-free overrides it
// (anything else throws std::invalid_argument naming the value).
C10Oracle defaultOracle();
C10Oracle oracleFromEnvironment();
std::string toString(C10Oracle oracle);

// runTraceOnSut or runTraceModelFree, as `oracle` says.
std::optional<std::string> runTrace(C10Oracle oracle, oracle::SystemUnderTest& sut,
                                    const std::vector<oracle::Action>& actions, size_t* skipped = nullptr,
                                    std::map<std::string, size_t>* skip_reasons = nullptr);

}  // namespace dispatch::c10_sut
