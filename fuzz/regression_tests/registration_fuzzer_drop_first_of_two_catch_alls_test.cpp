// Regression test for registration_fuzzer: replays fuzz/regressions/registration_fuzzer/9900bc303b68528258f93e5696764e73b320b5b3
// (written by ci/repro.sh; regenerate with `ci/repro.sh fuzz/regressions/registration_fuzzer/9900bc303b68528258f93e5696764e73b320b5b3`).
// Pins a PLANTED bug, not a finding: the canary ci/canaries/kernel_stack_erase_front.patch
// (dropping a kernel removes the newest one on its key): two catch-all kernels, drop the first.
// This test must fail while the patch is in.
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

TEST(RegistrationFuzzerRegression, DropFirstOfTwoCatchAlls) {
  const std::vector<Action> actions = {
      {ActionKind::ImplBoxed, 3, std::nullopt, 0, 0, std::nullopt},  // 0: impl boxed fz::op3 @ catch-all
      {ActionKind::ImplBoxed, 3, std::nullopt, 0, 0, std::nullopt},  // 1: impl boxed fz::op3 @ catch-all
      {ActionKind::Drop, 0, std::nullopt, 0, 0, std::nullopt},  // 2: drop handle #0 (modulo the handles made so far)
  };
  std::optional<std::string> disagreement;
  ASSERT_NO_THROW(disagreement = dispatch::oracle::runTraceOnAllFlavours(actions));
  EXPECT_FALSE(disagreement.has_value()) << disagreement.value_or("");
}

}  // namespace
