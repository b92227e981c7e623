// The one runner over our dispatcher (every layout) on every committed registration, fallback
// and boxed-call fuzz input: no disagreement, nothing skipped. A SUT that misreports one
// registration or one boxed call is caught, so the passes are not vacuous.

#include <gtest/gtest.h>

#include "oracle/actions/action_codec.h"
#include "oracle/actions/committed_inputs.h"
#include "delegating_sut.h"
#include "oracle/ours/our_dispatcher_sut.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::oracle {
namespace {

// Every committed input of a trace fuzzer runs on our dispatcher of every layout with no
// disagreement and no skipped action: the fuzzers pass on them, and our dispatcher supports
// every action of the vocabulary.
void runCommittedInputs(const std::string& target, const ActionWeights& weights) {
  const auto inputs = committedInputs(DISPATCH_FUZZ_DIR, target);
  ASSERT_FALSE(inputs.empty()) << "no committed inputs of " << target;
  for (const auto& input : inputs) {
    const auto actions = decodeActions(input.bytes.data(), input.bytes.size(), weights);
    AllLayouts::forEach([&]<class L>() {
      OurDispatcherSut<L> sut;
      size_t skipped = 0;
      EXPECT_EQ(runTraceOnSut(sut, actions, &skipped), std::nullopt) << input.path << " (" << L::kName << ")";
      EXPECT_EQ(skipped, 0u) << input.path << " (" << L::kName << ")";
    });
  }
}

TEST(SeamRunner, RunsTheRegistrationFuzzerInputsOnOurDispatcher) {
  runCommittedInputs("registration_fuzzer", kRegistrationWeights);
}

TEST(SeamRunner, RunsTheFallbackFuzzerInputsOnOurDispatcher) {
  runCommittedInputs("fallback_fuzzer", kFallbackWeights);
}

// The boxed-call fuzzer's committed inputs (declared schemas, boxed calls on stacks of any
// shape) through the seam on our dispatcher of every layout: no disagreement (the fuzzer itself
// passes on them), and every action but defs of unparsable schema text runs.
TEST(SeamRunner, RunsTheBoxedCallFuzzerInputsOnOurDispatcher) {
  const auto inputs = committedInputs(DISPATCH_FUZZ_DIR, "boxed_call_fuzzer");
  ASSERT_FALSE(inputs.empty()) << "no committed inputs of boxed_call_fuzzer";
  size_t calls = 0;
  for (const auto& input : inputs) {
    const auto actions = decodeActions(input.bytes.data(), input.bytes.size(), kBoxedCallWeights);
    for (const Action& a : actions) calls += isBoxedStackCall(a.kind) ? 1 : 0;
    AllLayouts::forEach([&]<class L>() {
      OurDispatcherSut<L> sut;
      SeamRunner seam(sut);
      for (size_t i = 0; i < actions.size(); ++i) {
        const auto disagreement = seam.step(actions[i]);
        ASSERT_EQ(disagreement, std::nullopt) << input.path << " (" << L::kName << ") step " << i << ": "
                                              << describe(actions[i]);
        if (seam.skipped() > 0) {
          EXPECT_NE(seam.lastSkipReason().find("does not parse"), std::string::npos) << seam.lastSkipReason();
        }
      }
      EXPECT_EQ(seam.checkAll(), std::nullopt) << input.path << " (" << L::kName << ")";
    });
  }
  EXPECT_GT(calls, inputs.size()) << "the corpus makes boxed calls";
}

// Our dispatcher, except that it reports the first impl as a success without registering it.
class ForgetfulSut final : public DelegatingSut {
 public:
  std::string name() const override { return "forgetful"; }
  SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind, const std::string& kernel) override {
    if (forgotten_) return real_.implement(op, key, kind, kernel);
    forgotten_ = true;
    return real_.define((op + 1) % kNumOps);  // keeps the handle numbers in step
  }
  // Reports every successful boxed call of a declared trace as run by the newest kernel.
  SutOutcome callStack(const StackCall& call) override {
    SutOutcome real = real_.callStack(call);
    if (real.ok() && misreport_stack_calls_) real.result = kernelResult("k" + std::to_string(99), 0);
    return real;
  }
  bool misreport_stack_calls_ = false;
  bool forgotten_ = false;  // true: it has forgotten its one impl already
};

TEST(SeamRunner, CatchesASystemThatForgetsARegistration) {
  ForgetfulSut sut;
  const std::vector<Action> actions = {
      {ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt},
      {ActionKind::ImplTyped, 0, DispatchKey::CPU, 0, 0, std::nullopt},
  };
  const auto disagreement = runTraceOnSut(sut, actions);
  ASSERT_TRUE(disagreement.has_value());
  EXPECT_NE(disagreement->find("step 1"), std::string::npos) << *disagreement;
}

TEST(SeamRunner, CatchesASystemThatMisreportsABoxedCallOnADeclaredSchema) {
  SchemaDecl decl;  // bx::op0(Tensor a0) -> Tensor, spelled tightly
  decl.args = {ArgType::Tensor};
  decl.returns = {ArgType::Tensor};
  decl.spelling = {0, 1, 0, 0};
  BoxedCall fits;
  fits.args = {ValueSpec{Value::Tag::Tensor, {DispatchKeySet(DispatchKey::CPU).raw_repr()}, 0}};
  const std::vector<Action> actions = {
      Action::declaredSchema(0, decl),
      {ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt},  // ADInplaceOrView falls through
      Action::declared(ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt, std::nullopt),
      Action::declared(ActionKind::ImplTyped, 0, DispatchKey::CPU, 0, 0, 0, std::nullopt),  // Tensor(Tensor)
      Action::declared(ActionKind::CallBoxed, 0, std::nullopt, 0, 0, std::nullopt, fits),
  };
  ForgetfulSut honest;
  honest.forgotten_ = true;  // registers every impl
  EXPECT_EQ(runTraceOnSut(honest, {actions.begin(), actions.end()}), std::nullopt);
  ForgetfulSut lying;
  lying.forgotten_ = true;
  lying.misreport_stack_calls_ = true;
  const auto disagreement = runTraceOnSut(lying, actions);
  ASSERT_TRUE(disagreement.has_value());
  EXPECT_NE(disagreement->find("step 4"), std::string::npos) << *disagreement;
}

TEST(SeamRunner, ModelStartsFromTheStartupStateWhenTheSystemDoes) {
  // Our dispatcher starts empty: registering the start-up set succeeds on both sides.
  OurDispatcherSut<FullLayout> sut;
  const std::vector<Action> actions = {{ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt},
                                       {ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt}};
  EXPECT_EQ(runTraceOnSut(sut, actions), std::nullopt);
}

}  // namespace
}  // namespace dispatch::oracle
