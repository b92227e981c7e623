// The c10 system under test itself: it starts from libtorch's start-up state, leaves c10 as it
// found it, and the seam runner finds the stale AutogradOther entry of issue 16 in c10 1.13.1
// (a CompositeImplicitAutograd kernel, then a QuantizedCPU or SparseCPU kernel) but not in the
// other order.

#include <gtest/gtest.h>

#include "c10_sut/c10_system.h"
#include "dispatch/dispatch_key_set.h"
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

TEST(C10System, FindsTheStaleAutogradOtherEntry) {
  for (DispatchKey backend : {DispatchKey::QuantizedCPU, DispatchKey::SparseCPU}) {
    const auto stale = runOnC10({impl(DispatchKey::CompositeImplicitAutograd), impl(backend)});
    ASSERT_TRUE(stale.has_value()) << toString(backend);
    EXPECT_NE(stale->find("_equalsBoxedAndUnboxed"), std::string::npos) << *stale;
    EXPECT_NE(stale->find("stale slots (1): AutogradOther (live: kernel k0; computed: ambiguous)\n"),
              std::string::npos)
        << *stale;
    EXPECT_EQ(runOnC10({impl(backend), impl(DispatchKey::CompositeImplicitAutograd)}), std::nullopt);
  }
}

TEST(C10System, FindsGuardsLeakingBackendBits) {
  // pytorch#145108: the guard subtracts its keys when it dies, and minus keeps backend bits.
  const Action include_quantized_cuda{ActionKind::IncludeKeys, 0, std::nullopt, 0,
                                      DispatchKeySet(DispatchKey::QuantizedCUDA).raw_repr(), std::nullopt};
  const Action pop{ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt};
  const auto leak = runOnC10({include_quantized_cuda, pop});
  ASSERT_TRUE(leak.has_value());
  EXPECT_NE(leak->find("thread-local keys differ"), std::string::npos) << *leak;
}

}  // namespace
}  // namespace dispatch::c10_sut
