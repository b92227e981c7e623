// The c10 system under test itself: it starts from libtorch's start-up state, agrees with the
// model on registrations, calls and guards, and leaves c10 as it found it. The upstream bugs it
// finds: fuzz/c10/tests/c10_known_upstream_test.cpp.

#include <gtest/gtest.h>

#include "c10_sut/c10_system.h"
#include "oracle/seam_runner.h"

namespace dispatch::c10_sut {
namespace {

using oracle::Action;
using oracle::ActionKind;

Action impl(DispatchKey key) { return {ActionKind::ImplTyped, 0, key, 0, 0, std::nullopt}; }
const Action kDef{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};

std::optional<std::string> runOnC10(const std::vector<Action>& actions) {
  const std::string before = c10State();
  std::optional<std::string> verdict;
  {
    auto sut = makeC10System();
    verdict = oracle::runTraceOnSut(*sut, actions);
  }
  EXPECT_EQ(before, c10State()) << "the trace left c10 changed";
  return verdict;
}

TEST(C10System, EmptyTraceAgreesWithTheModelsStartupState) {
  EXPECT_EQ(runOnC10({kDef}), std::nullopt);
}

TEST(C10System, CallsAndGuardsAgree) {
  const std::vector<Action> actions = {
      kDef,
      impl(DispatchKey::CPU),
      {ActionKind::ImplBoxed, 0, DispatchKey::AutogradCPU, 0, 0, std::nullopt},
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::CallBoxed, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::ExcludeKeys, 0, std::nullopt, 0, ~0ull << 14, std::nullopt},  // no backend bits
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt},
      {ActionKind::Drop, 0, std::nullopt, 1, 0, std::nullopt},
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
  };
  EXPECT_EQ(runOnC10(actions), std::nullopt);
}

}  // namespace
}  // namespace dispatch::c10_sut
