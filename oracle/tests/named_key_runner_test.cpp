// NamedKey actions (a registration on a key by c10's name, oracle/actions/release_keys.h) through
// both runners: a system that lacks the key skips the action naming the key, the model (1.13.1's
// keys) skips it even when the system has the key, and the model-free oracles judge a system that
// has it as any other registration (each rule shown catching a system that breaks it).

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "delegating_sut.h"
#include "oracle/runner/model_free_runner.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::oracle {
namespace {

const Action kDef{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};
const Action kImplMtia = Action::namedKey(ActionKind::ImplTyped, 0, "MTIA");
const Action kDropNewest{ActionKind::Drop, 0, std::nullopt, 1, 0, std::nullopt};  // handle 1: the named impl
const uint64_t kXlaTensor = DispatchKeySet(DispatchKey::XLA).raw_repr();
const Action kCallXla{ActionKind::CallTyped, 0, std::nullopt, 0, kXlaTensor, std::nullopt};

TEST(NamedKey, OurDispatcherSkipsItNamingTheKey) {
  for (const bool model_free : {false, true}) {
    OurDispatcherSut<FullLayout> sut;
    size_t skipped = 0;
    std::map<std::string, size_t> reasons;
    const std::vector<Action> trace = {kDef, kImplMtia, Action::namedKey(ActionKind::FallbackDirect, 0, "AutogradMAIA"),
                                       kCallXla};
    const auto report = model_free ? runTraceModelFree(sut, trace, &skipped, &reasons)
                                   : runTraceOnSut(sut, trace, &skipped, &reasons);
    EXPECT_EQ(report, std::nullopt);
    EXPECT_EQ(skipped, 2u);
    EXPECT_EQ(reasons, (std::map<std::string, size_t>{
                           {"our dispatcher has no dispatch key AutogradMAIA (its keys are PyTorch 1.13.1's)", 1},
                           {"our dispatcher has no dispatch key MTIA (its keys are PyTorch 1.13.1's)", 1}}));
  }
}

TEST(NamedKey, AHandWrittenOneOnAKeyOfTheEnumIsSkippedToo) {
  OurDispatcherSut<FullLayout> sut;
  ModelFreeRunner runner(sut);
  EXPECT_EQ(runner.step(Action::namedKey(ActionKind::ImplTyped, 0, "CPU")), std::nullopt);
  EXPECT_EQ(runner.skipped(), 1u);
  EXPECT_EQ(runner.lastSkipReason(), "our dispatcher names CPU by its enum: a named-key action is for keys it lacks");
}

enum class Fault {
  None,
  RefusesANamedImplItKeeps,  // reports the named impl refused but keeps it
  StaleAfterANamedImpl,      // its invariant check fails once a named impl is in
  DropLeavesATrace,          // a drop leaves something in the operator's table
};

// Our dispatcher standing in for a release that has some keys by c10's name: MTIA is our XLA,
// AutogradMTIA our AutogradXLA (the runner never sees the stand-ins, only the names).
class KeysByNameSut final : public DelegatingSut {
 public:
  explicit KeysByNameSut(Fault fault = Fault::None) : fault_(fault) {}
  std::string name() const override { return "keys-by-name"; }
  std::optional<std::string> unsupported(const Action& a, const model::ModelDispatcher&) const override {
    if (a.kind == ActionKind::NamedKey && !kStandIns.count(a.named->key)) return "no key " + a.named->key;
    return std::nullopt;
  }
  SutOutcome registerOnNamedKey(const NamedKeyRegistration& r, int op, const std::string& kernel) override {
    ++named_registrations;
    const DispatchKey key = kStandIns.at(r.key);
    const KernelKind kind = kernelKindOf(r.registration);
    if (!isImpl(r.registration)) {
      return real_.fallback(key, kind, r.registration == ActionKind::FallbackLibrary ||
                                           r.registration == ActionKind::FallthroughLibrary, kernel);
    }
    SutOutcome real = real_.implement(op, key, kind, kernel);
    if (fault_ == Fault::RefusesANamedImplItKeeps && real.ok()) real.error = model::ErrorKind::Registration;
    named_impl_in_ = real_.table(op).value_or("").find(kernel) != std::string::npos;
    return real;
  }
  bool deregister(size_t handle) override {
    dropped_ = true;
    named_impl_in_ = false;
    return real_.deregister(handle);
  }
  std::optional<std::string> table(int op) const override {
    auto table = real_.table(op);
    if (fault_ == Fault::DropLeavesATrace && dropped_ && table) *table += "XLA: leftover [kernel]\n";
    return table;
  }
  std::optional<std::string> checkInvariants() const override {
    if (fault_ == Fault::StaleAfterANamedImpl && named_impl_in_) return "a slot is stale";
    return real_.checkInvariants();
  }

  size_t named_registrations = 0;

 private:
  inline static const std::map<std::string, DispatchKey> kStandIns = {{"MTIA", DispatchKey::XLA},
                                                                     {"AutogradMTIA", DispatchKey::AutogradXLA}};
  const Fault fault_;
  bool dropped_ = false;
  bool named_impl_in_ = false;
};

TEST(NamedKey, TheModelSkipsItWhenTheSystemHasTheKey) {
  KeysByNameSut sut;
  SeamRunner runner(sut);
  EXPECT_EQ(runner.step(kDef), std::nullopt);
  EXPECT_EQ(runner.step(kImplMtia), std::nullopt);
  EXPECT_EQ(runner.skipped(), 1u);
  EXPECT_EQ(runner.lastSkipReason(), "the model has no dispatch key MTIA (its keys are PyTorch 1.13.1's)");
  EXPECT_EQ(sut.named_registrations, 0u) << "skipped on both sides";
  EXPECT_EQ(runner.checkAll(), std::nullopt);
}

TEST(NamedKey, TheModelFreeOraclesJudgeItAsTheRegistrationItMakes) {
  KeysByNameSut sut;
  ModelFreeRunner runner(sut);
  EXPECT_EQ(runner.step(kDef), std::nullopt);
  EXPECT_EQ(runner.step(kImplMtia), std::nullopt);
  EXPECT_EQ(runner.step(Action::namedKey(ActionKind::ImplBoxed, 0, "MAIA")), std::nullopt);  // it lacks MAIA
  EXPECT_EQ(runner.lastSkipReason(), "no key MAIA");
  EXPECT_EQ(runner.step(Action::namedKey(ActionKind::FallthroughLibrary, 0, "AutogradMTIA")), std::nullopt);
  EXPECT_EQ(sut.named_registrations, 2u);
  EXPECT_EQ(runner.skipped(), 1u);
  // Kernels are numbered by registration action, as the other registrations' are.
  EXPECT_NE(("\n" + sut.table(0).value_or("")).find("\nXLA: k1 "), std::string::npos) << sut.table(0).value_or("");
  EXPECT_EQ(runner.checkAll(), std::nullopt);
}

TEST(NamedKey, EachModelFreeRuleCatchesASystemThatBreaksIt) {
  struct Case {
    Fault fault;
    std::vector<Action> trace;
    const char* report;
  };
  const Case cases[] = {
      {Fault::RefusesANamedImplItKeeps, {kDef, kImplMtia}, "step 1 (impl typed fz::op0 @ named key MTIA): impl typed (refused): dispatch table"},
      {Fault::StaleAfterANamedImpl, {kDef, kImplMtia}, "step 1 (impl typed fz::op0 @ named key MTIA): impl typed: invariant check fails: a slot is stale"},
      {Fault::DropLeavesATrace, {kDef, kImplMtia, kDropNewest}, "step 2 (drop handle #1 (modulo the handles made so far)): drop of the newest registration: dispatch table"},
  };
  for (const Case& c : cases) {
    KeysByNameSut healthy;
    EXPECT_EQ(runTraceModelFree(healthy, c.trace), std::nullopt) << c.report;
    KeysByNameSut faulty(c.fault);
    const auto report = runTraceModelFree(faulty, c.trace);
    ASSERT_TRUE(report.has_value()) << c.report;
    EXPECT_NE(report->find(std::string("keys-by-name: ") + c.report), std::string::npos) << *report;
  }
}

// A system that neither skips a NamedKey action nor registers on the key fails loudly (a harness
// error naming the key), and a NamedKey action with nothing to register is refused.
TEST(NamedKey, NeverGuessed) {
  class SaysNothing final : public DelegatingSut {
   public:
    std::string name() const override { return "says-nothing"; }
    std::optional<std::string> unsupported(const Action&, const model::ModelDispatcher&) const override {
      return std::nullopt;
    }
  } sut;
  ModelFreeRunner runner(sut);
  EXPECT_EQ(runner.step(kDef), std::nullopt);
  try {
    runner.step(kImplMtia);
    ADD_FAILURE() << "registered on a key it has no name for";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("says-nothing cannot register on the key named MTIA"), std::string::npos) << e.what();
  }
  Action nothing;
  nothing.kind = ActionKind::NamedKey;
  KeysByNameSut has_keys;
  ModelFreeRunner other(has_keys);
  EXPECT_THROW(other.step(nothing), std::invalid_argument);
}

}  // namespace
}  // namespace dispatch::oracle
