// Regression test for registration_fuzzer: replays fuzz/regressions/registration_fuzzer/7a38d8cbd20d9932ba948efaa364bb62651d5ad4
// (written by ci/repro.sh; regenerate with `ci/repro.sh fuzz/regressions/registration_fuzzer/7a38d8cbd20d9932ba948efaa364bb62651d5ad4`).
// Pins a PLANTED bug, not a finding: the canary ci/canaries/mobile_fallback_overflow.patch (the
// #74963 shape: start-up fallbacks registered on the mobile flavour write fallback slot -1).
// The nightly found it with that canary applied; this test must fail while the patch is in.
//
// Runs the decoded action trace on a fresh dispatcher of every flavour of the build against the
// reference model, as the fuzz target does. Each action is {kind, op, key (nullopt: catch-all),
// handle, keys, other} (oracle/actions/action.h); edit the list freely to narrow a bug down.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/ours/our_dispatcher_runner.h"

namespace {

using dispatch::DispatchKey;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;

TEST(RegistrationFuzzerRegression, StartupFallbacksOnEveryFlavour) {
  const std::vector<Action> actions = {
      {ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt},  // 0: startup fallbacks
  };
  std::optional<std::string> disagreement;
  ASSERT_NO_THROW(disagreement = dispatch::oracle::runTraceOnAllFlavours(actions));
  EXPECT_FALSE(disagreement.has_value()) << disagreement.value_or("");
}

}  // namespace
