// Each known upstream bug of c10 1.13.1 (fuzz/c10/known_upstream.md), as its minimised actions:
// the seam runner reports it on c10, the report matches that bug's signature and no other one's,
// and the order that avoids it (where there is one) agrees with the model.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "c10_sut/c10_system.h"
#include "dispatch/dispatch_key_set.h"
#include "known_upstream.h"
#include "oracle/actions/action_codec.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::fuzz::c10 {
namespace {

using oracle::Action;
using oracle::ActionKind;

Action impl(DispatchKey key, ActionKind kind = ActionKind::ImplTyped) { return {kind, 0, key, 0, 0, std::nullopt}; }
Action guard(ActionKind kind, uint64_t keys) { return {kind, 0, std::nullopt, 0, keys, std::nullopt}; }
const Action kPop{ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt};
const Action kCatchAll{ActionKind::ImplBoxed, 0, std::nullopt, 0, 0, std::nullopt};

std::optional<std::string> runOnC10(const std::vector<Action>& actions) {
  const std::string before = c10_sut::c10State();
  std::optional<std::string> verdict;
  {
    auto sut = c10_sut::makeC10System();
    verdict = oracle::runTraceOnSut(*sut, actions);
  }
  EXPECT_EQ(before, c10_sut::c10State()) << "the trace left c10 changed";
  return verdict;
}

void showsKnownBug(const std::vector<Action>& actions, const std::string& bug) {
  const auto report = runOnC10(actions);
  ASSERT_TRUE(report.has_value()) << bug << ": c10 agreed with the model";
  EXPECT_EQ(knownBugIn(readKnownBugs(DISPATCH_C10_KNOWN_UPSTREAM), *report), bug) << *report;
}

TEST(C10KnownUpstream, StaleAutogradOther) {
  for (DispatchKey backend : {DispatchKey::QuantizedCPU, DispatchKey::SparseCPU, DispatchKey::QuantizedXPU}) {
    showsKnownBug({impl(DispatchKey::CompositeImplicitAutograd), impl(backend)}, "stale-autogradother");
    showsKnownBug({kCatchAll, impl(backend)}, "stale-autogradother");
    EXPECT_EQ(runOnC10({impl(backend), impl(DispatchKey::CompositeImplicitAutograd)}), std::nullopt);
  }
}

TEST(C10KnownUpstream, StaleAutogradNestedTensor) {
  showsKnownBug({kCatchAll, impl(DispatchKey::NestedTensorPrivateUse2)}, "stale-autogradnestedtensor");
  showsKnownBug({impl(DispatchKey::CompositeImplicitAutograd), impl(DispatchKey::NestedTensorCPU)},
                "stale-autogradnestedtensor");
  EXPECT_EQ(runOnC10({impl(DispatchKey::NestedTensorCPU), impl(DispatchKey::CompositeImplicitAutograd)}),
            std::nullopt);
}

TEST(C10KnownUpstream, StaleAfterCompositeExplicitAutograd) {
  showsKnownBug({kCatchAll, impl(DispatchKey::CompositeExplicitAutograd)}, "stale-after-compositeexplicitautograd");
  EXPECT_EQ(runOnC10({impl(DispatchKey::CompositeExplicitAutograd), kCatchAll}), std::nullopt);
}

TEST(C10KnownUpstream, StaleAfterDroppingCompositeExplicitAutograd) {
  const Action drop_first{ActionKind::Drop, 0, std::nullopt, 0, 0, std::nullopt};
  showsKnownBug({impl(DispatchKey::CompositeExplicitAutograd), kCatchAll, drop_first},
                "stale-after-dropping-compositeexplicitautograd");
  // Dropping the catch-all instead refreshes what it served.
  const Action drop_second{ActionKind::Drop, 0, std::nullopt, 1, 0, std::nullopt};
  EXPECT_EQ(runOnC10({impl(DispatchKey::CompositeExplicitAutograd), kCatchAll, drop_second}), std::nullopt);
  // The one-hour campaign's form: the catch-all is a fallthrough (stale slots "computed: fallthrough").
  const Action catch_all_fallthrough{ActionKind::ImplFallthrough, 0, std::nullopt, 0, 0, std::nullopt};
  showsKnownBug({impl(DispatchKey::CompositeExplicitAutograd), catch_all_fallthrough, drop_first},
                "stale-after-dropping-compositeexplicitautograd");
  // The -seed=12 campaign's form: AutogradNestedTensor has a kernel of its own, so that slot is
  // right and the NestedTensor backends and other Autograd keys show the bug.
  for (ActionKind math : {ActionKind::ImplFallthrough, ActionKind::ImplBoxed}) {
    showsKnownBug({impl(DispatchKey::CompositeExplicitAutograd),
                   impl(DispatchKey::AutogradNestedTensor, ActionKind::ImplFallthrough),
                   impl(DispatchKey::CompositeImplicitAutograd, math), drop_first},
                  "stale-after-dropping-compositeexplicitautograd");
  }
}

// The -seed=13 campaign's forms of the same drop, where its first three signature lines (keyed on
// AutogradNestedTensor and NestedTensorCPU) miss it: NestedTensorCPU has a kernel of its own, or a
// CompositeImplicitAutogradNestedTensor kernel serves every nested slot; the Autograd keys still go
// stale (AutogradPrivateUse3 among them: nothing but this drop leaves it stale).
TEST(C10KnownUpstream, StaleAfterDroppingCompositeExplicitAutogradWithNestedSlotsServed) {
  const Action drop_first{ActionKind::Drop, 0, std::nullopt, 0, 0, std::nullopt};
  const Action cea = impl(DispatchKey::CompositeExplicitAutograd);
  showsKnownBug({cea, impl(DispatchKey::NestedTensorCPU), impl(DispatchKey::CompositeImplicitAutograd), drop_first},
                "stale-after-dropping-compositeexplicitautograd");
  showsKnownBug({cea, impl(DispatchKey::CompositeImplicitAutogradNestedTensor),
                 impl(DispatchKey::CompositeImplicitAutograd, ActionKind::ImplBoxed), drop_first},
                "stale-after-dropping-compositeexplicitautograd");
  // Without the math kernel nothing depended on the dropped one.
  EXPECT_EQ(runOnC10({cea, impl(DispatchKey::CompositeImplicitAutogradNestedTensor), drop_first}), std::nullopt);
}

// The -seed=13 campaign's SparseCPU form: stale-autogradother plus a second stale slot that
// stale-autogradnestedtensor left at an earlier registration. c10's checkInvariants compares only a
// kernel's boxed and unboxed function pointers, and every typed kernel of the harness has the same
// ones, so AutogradNestedTensor (live: the typed CIA kernel; computed: the typed Autograd kernel)
// passed the check until the SparseCPU kernel made AutogradOther fail it.
TEST(C10KnownUpstream, StaleAutogradOtherWithAHiddenStaleAutogradNestedTensor) {
  const Action autograd = impl(DispatchKey::Autograd);
  const Action cia = impl(DispatchKey::CompositeImplicitAutograd);
  const Action nested = impl(DispatchKey::NestedTensorCPU);
  showsKnownBug({autograd, cia, nested, impl(DispatchKey::SparseCPU)}, "stale-autogradother");
  // The hidden slot: the same kernels pass the check, a boxed Autograd kernel does not.
  EXPECT_EQ(runOnC10({autograd, cia, nested}), std::nullopt);
  showsKnownBug({impl(DispatchKey::Autograd, ActionKind::ImplBoxed), cia, nested}, "stale-autogradnestedtensor");
}

// The fuzzer's finds in fuzz/c10/known_upstream/, each named <bug id>[.<variant>], still decode
// (as c10_registration_fuzzer reads them) to actions that show the bug they are named after: a
// codec change that re-encodes the corpora must re-encode these too.
TEST(C10KnownUpstream, EveryCommittedInputShowsTheBugItIsNamedAfter) {
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DISPATCH_C10_KNOWN_UPSTREAM_INPUTS)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_FALSE(bytes.empty());
    showsKnownBug(oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights),
                  name.substr(0, name.find('.')));
    ++inputs;
  }
  EXPECT_EQ(inputs, 8u) << "inputs in " << DISPATCH_C10_KNOWN_UPSTREAM_INPUTS;
}

TEST(C10KnownUpstream, GuardsLeakBackendBits) {
  const uint64_t quantized_cuda = DispatchKeySet(DispatchKey::QuantizedCUDA).raw_repr();
  showsKnownBug({guard(ActionKind::IncludeKeys, quantized_cuda), kPop}, "guard-backend-bits");
  showsKnownBug({guard(ActionKind::ExcludeKeys, quantized_cuda), kPop}, "guard-backend-bits");
  // Without backend bits the guards restore exactly.
  const uint64_t quantized = DispatchKeySet(DispatchKey::Quantized).raw_repr();
  EXPECT_EQ(runOnC10({guard(ActionKind::IncludeKeys, quantized), kPop}), std::nullopt);
}

TEST(C10KnownUpstream, AliasFallbackMovesItsKernelIntoTheFirstKeyOnly) {
  const Action def{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};
  const Action fallback{ActionKind::FallbackLibrary, 0, DispatchKey::CompositeExplicitAutograd, 0, 0, std::nullopt};
  showsKnownBug({def, fallback}, "alias-fallback-moved-kernel");
  // One runtime key: nothing to move from.
  EXPECT_EQ(runOnC10({def, {ActionKind::FallbackLibrary, 0, DispatchKey::CUDA, 0, 0, std::nullopt}}), std::nullopt);
}

TEST(C10KnownUpstream, ARefusedTypedKernelKeepsItsCppSignature) {
  // boxed_call_fuzzer's vocabulary: op0 declared (Tensor? a0, str a1) -> Tensor?, defined, then
  // a typed kernel whose inferred schema differs (refused), then one that fits.
  oracle::SchemaDecl decl;
  decl.args = {ArgType::OptionalTensor, ArgType::String};
  decl.returns = {ArgType::OptionalTensor};
  decl.spelling = {0, 1, 0, 0};  // tight spacing, "bx::" spelled out, the return as "(Tensor? r0)"
  const Action schema = Action::declaredSchema(0, decl);
  const Action def = Action::declared(ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt, std::nullopt);
  auto typed = [](int signature) {  // oracle::typedSignatures(): 1 is str(Tensor, Tensor?, int), 4 fits
    return Action::declared(ActionKind::ImplTyped, 0, DispatchKey::CPU, 0, 0, signature, std::nullopt);
  };
  showsKnownBug({schema, def, typed(1), typed(4)}, "refused-kernel-keeps-signature");
  EXPECT_EQ(runOnC10({schema, def, typed(4)}), std::nullopt);
}

}  // namespace
}  // namespace dispatch::fuzz::c10
