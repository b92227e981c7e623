// Regression test for registration_fuzzer: replays fuzz/regressions/registration_fuzzer/7a38d8cbd20d9932ba948efaa364bb62651d5ad4
// (written by ci/repro.sh; regenerate with `ci/repro.sh fuzz/regressions/registration_fuzzer/7a38d8cbd20d9932ba948efaa364bb62651d5ad4`).
// Found as: build/nightly/20261203T004112Z/failures/assertion-n-this-size-crash-in-basicdispatcher-mobilelayout-registerfa-any-mobile-756df09f/minimized
// Reproduced with: build/full-fuzz-canary-mobile_fallback_overflow (preset full-fuzz, canary mobile_fallback_overflow), exit code 1
// Failure when it was written:
//   /usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/array:208: std::array::reference std::array<const dispatch::BasicAnnotatedKernel<dispatch::MobileLayout> *, 8>::operator[](std::array
//   DISPATCH-STEP flavour=mobile step=0 action=startup fallbacks key=- | startup fallbacks
//
// Runs the decoded action trace on a fresh full and a fresh mobile dispatcher against the
// reference model, as the fuzz target does. Each action is {kind, op, key (nullopt: catch-all),
// handle, keys, other} (oracle/include/oracle/action.h); edit the list freely to narrow a bug down.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "oracle/action.h"
#include "oracle/trace_runner.h"

namespace {

using dispatch::DispatchKey;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;

TEST(RegistrationFuzzerRegression, Input7a38d8cbd20d) {
  const std::vector<Action> actions = {
      {ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt},  // 0: startup fallbacks
  };
  std::optional<std::string> disagreement;
  ASSERT_NO_THROW(disagreement = dispatch::oracle::runTraceOnAllFlavours(actions));
  EXPECT_FALSE(disagreement.has_value()) << disagreement.value_or("");
}

}  // namespace
