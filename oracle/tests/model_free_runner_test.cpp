// The model-free runner: on every committed registration and fallback input our dispatcher (full
// layout) keeps every oracle (no false finding), and each oracle reports a system that breaks
// it (a fault injected into our dispatcher), at the step that breaks it.

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "oracle/actions/action_codec.h"
#include "oracle/actions/committed_inputs.h"
#include "delegating_sut.h"
#include "oracle/runner/model_free_runner.h"
#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {
namespace {

void keepsEveryOracleOnCommittedInputs(const std::string& target, const ActionWeights& weights) {
  const auto inputs = committedInputs(DISPATCH_FUZZ_DIR, target);
  ASSERT_FALSE(inputs.empty()) << "no committed inputs of " << target;
  size_t actions_run = 0;
  for (const auto& input : inputs) {
    const auto actions = decodeActions(input.bytes.data(), input.bytes.size(), weights);
    actions_run += actions.size();
    // One layout: the runner is what is under test here (the layouts are the model-based
    // runners' concern), and a table snapshot before every registration is not cheap.
    OurDispatcherSut<FullLayout> sut;
    size_t skipped = 0;
    EXPECT_EQ(runTraceModelFree(sut, actions, &skipped), std::nullopt) << input.path;
    EXPECT_EQ(skipped, 0u) << input.path << ": our dispatcher supports every action";
  }
  EXPECT_GT(actions_run, inputs.size());
}

TEST(ModelFreeRunner, OurDispatcherKeepsEveryOracleOnRegistrationFuzzerInputs) {
  keepsEveryOracleOnCommittedInputs("registration_fuzzer", kRegistrationWeights);
}

TEST(ModelFreeRunner, OurDispatcherKeepsEveryOracleOnFallbackFuzzerInputs) {
  keepsEveryOracleOnCommittedInputs("fallback_fuzzer", kFallbackWeights);
}

enum class Fault {
  None,
  StaleAfterSecondRegistration,  // its invariant check fails from the second registration on
  RefusesAnImplItKeeps,          // reports an impl refused but keeps it
  DropLeavesATrace,              // a drop leaves something in the operator's table
  PopKeepsTheGuard,              // a pop does not undo the guard
  GuardAddsAKey,                 // an include guard adds AutogradCPU besides its keys
  CallRunsAnotherKernel,         // its table names k9 for every call
  CallAsserts,                   // a call raises an error of no known kind
  CallReachesAStartupFallback,   // every call would run a start-up fallback
  TableShowsRegistrationOrder,   // its tables list the live impls in the order they were made
  DroppedOperatorLingers,        // an operator whose registrations are all dropped still shows
  RefusesAnImplBeforeItsDef,     // an impl on an operator with no live def is refused
  BrokenOnceEmptied,             // its invariant check fails once every registration is dropped
};

// Our dispatcher with one fault injected.
class FaultySut final : public DelegatingSut {
 public:
  explicit FaultySut(Fault fault) : fault_(fault) {}
  std::string name() const override { return "faulty"; }
  SutOutcome define(int op) override {
    SutOutcome real = counted(real_.define(op));
    if (real.ok()) {
      handles_.back().def_of = op;
      ever_defined_.insert(op);
    }
    return real;
  }
  SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind, const std::string& kernel) override {
    if (fault_ == Fault::RefusesAnImplBeforeItsDef && !hasLiveDef(op)) {
      return {std::nullopt, model::ErrorKind::Registration, false, "no schema for " + kernel};
    }
    SutOutcome real = counted(real_.implement(op, key, kind, kernel));
    if (real.ok()) handles_.back().impl = std::make_pair(op, kernel);
    if (fault_ == Fault::RefusesAnImplItKeeps && real.ok()) real.error = model::ErrorKind::Registration;
    return real;
  }
  SutOutcome fallback(DispatchKey key, KernelKind kind, bool lib, const std::string& kernel) override {
    return counted(real_.fallback(key, kind, lib, kernel));
  }
  SutOutcome startupFallbacks() override { return counted(real_.startupFallbacks()); }
  bool deregister(size_t handle) override {
    dropped_ = true;
    handles_.at(handle).dropped = true;
    return real_.deregister(handle);
  }
  void pushGuard(bool include, uint64_t raw) override {
    if (fault_ == Fault::GuardAddsAKey && include) raw |= DispatchKeySet(DispatchKey::AutogradCPU).raw_repr();
    real_.pushGuard(include, raw);
  }
  void popGuard() override {
    if (fault_ != Fault::PopKeepsTheGuard) real_.popGuard();
  }
  SutOutcome call(ActionKind kind, int op, uint64_t self, std::optional<uint64_t> other) override {
    SutOutcome real = real_.call(kind, op, self, other);
    if (fault_ == Fault::CallAsserts) real = {std::nullopt, std::nullopt, true, "INTERNAL ASSERT FAILED"};
    return real;
  }
  std::optional<std::string> slotACallRuns(ActionKind, int, uint64_t, std::optional<uint64_t>) const override {
    if (fault_ == Fault::CallRunsAnotherKernel) return "kernel k9";
    if (fault_ == Fault::CallReachesAStartupFallback) return kStartupFallbackSlot;
    return "kernel k1";  // the trace's call runs its first impl's kernel
  }
  std::optional<std::string> table(int op) const override {
    auto table = real_.table(op);
    if (fault_ == Fault::DropLeavesATrace && dropped_ && table) *table += "CPU: leftover [kernel]\n";
    if (fault_ == Fault::DroppedOperatorLingers && !table && ever_defined_.count(op)) table = "(no kernels)\n";
    if (fault_ == Fault::TableShowsRegistrationOrder && table) {
      *table += "made in this order:";
      for (const auto& h : handles_) {
        if (!h.dropped && h.impl && h.impl->first == op) *table += " " + h.impl->second;
      }
      *table += "\n";
    }
    return table;
  }
  std::optional<std::string> checkInvariants() const override {
    if (fault_ == Fault::StaleAfterSecondRegistration && registrations_ >= 2) return "a slot is stale";
    if (fault_ == Fault::BrokenOnceEmptied && !handles_.empty() && liveHandles() == 0) return "nothing is left";
    return real_.checkInvariants();
  }

 private:
  // What each handle registered, for the faults that depend on it.
  struct Handle {
    std::optional<int> def_of;
    std::optional<std::pair<int, std::string>> impl;  // operator, kernel
    bool dropped = false;
  };
  SutOutcome counted(SutOutcome outcome) {
    registrations_ += outcome.ok() ? 1 : 0;
    if (outcome.ok()) handles_.emplace_back();
    return outcome;
  }
  size_t liveHandles() const {
    size_t live = 0;
    for (const auto& h : handles_) live += h.dropped ? 0 : 1;
    return live;
  }
  bool hasLiveDef(int op) const {
    for (const auto& h : handles_) {
      if (!h.dropped && h.def_of == op) return true;
    }
    return false;
  }
  const Fault fault_;
  std::vector<Handle> handles_;  // index == handle number
  std::set<int> ever_defined_;
  int registrations_ = 0;
  bool dropped_ = false;
};

const Action kDef{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};
const Action kImplCpu{ActionKind::ImplTyped, 0, DispatchKey::CPU, 0, 0, std::nullopt};
const Action kImplCuda{ActionKind::ImplBoxed, 0, DispatchKey::CUDA, 0, 0, std::nullopt};
const uint64_t kCpuTensor = DispatchKeySet(DispatchKey::CPU).raw_repr();
const Action kCall{ActionKind::CallTyped, 0, std::nullopt, 0, kCpuTensor, std::nullopt};
const Action kInclude{ActionKind::IncludeKeys, 0, std::nullopt, 0, DispatchKeySet(DispatchKey::Python).raw_repr(),
                      std::nullopt};
const Action kPop{ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt};
const Action kStartup{ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt};
const Action kDropNewest{ActionKind::Drop, 0, std::nullopt, 3, 0, std::nullopt};  // handle 3: the CUDA impl

// The trace every fault is tried on: the start-up fallbacks (the default thread-local set
// includes ADInplaceOrView, which they fall through), an impl (k1 at CPU), def, a call, a guard
// pushed and popped, another impl (k3 at CUDA), its drop.
const std::vector<Action> kTrace = {kStartup, kImplCpu, kDef, kCall, kInclude, kPop, kImplCuda, kDropNewest};

std::optional<std::string> runWith(Fault fault) {
  FaultySut sut(fault);
  return runTraceModelFree(sut, kTrace);
}

void reportedAt(Fault fault, const std::string& step, const std::string& words) {
  const auto report = runWith(fault);
  ASSERT_TRUE(report.has_value()) << step;
  EXPECT_NE(report->find(step), std::string::npos) << *report;
  EXPECT_NE(report->find(words), std::string::npos) << *report;
}

TEST(ModelFreeRunner, AnHonestSystemKeepsEveryOracle) { EXPECT_EQ(runWith(Fault::None), std::nullopt); }

TEST(ModelFreeRunner, ReportsAFailedInvariantCheckAfterARegistration) {
  reportedAt(Fault::StaleAfterSecondRegistration, "step 1 (", "invariant check fails: a slot is stale");
}

TEST(ModelFreeRunner, ReportsARefusedImplThatChangedATable) {
  reportedAt(Fault::RefusesAnImplItKeeps, "step 1 (", "(refused): dispatch table of");
}

TEST(ModelFreeRunner, ReportsADropOfTheNewestRegistrationThatDoesNotRestoreTheTables) {
  reportedAt(Fault::DropLeavesATrace, "step 7 (", "drop of the newest registration: dispatch table of");
}

TEST(ModelFreeRunner, ReportsAPopThatDoesNotRestoreTheThreadLocalSets) {
  reportedAt(Fault::PopKeepsTheGuard, "step 5 (", "(pop guard): thread-local keys differ");
}

TEST(ModelFreeRunner, ReportsAGuardThatAddsMoreThanItsKeys) {
  reportedAt(Fault::GuardAddsAKey, "step 4 (", "(push guard): thread-local keys differ");
}

TEST(ModelFreeRunner, ReportsACallThatRunsAnotherKernelThanTheComputedTableNames) {
  reportedAt(Fault::CallRunsAnotherKernel, "step 3 (", "the call ran kernel k1 where the computed table names kernel k9");
}

TEST(ModelFreeRunner, ReportsAnUnclassifiedError) {
  reportedAt(Fault::CallAsserts, "step 3 (", "an error of no known kind: INTERNAL ASSERT FAILED");
}

// Order independence: def, an impl at CPU, an impl at CUDA, all alive at the end; made again in
// another order (CUDA, CPU, def), the tables must come out the same.
const std::vector<Action> kOrderTrace = {kDef, kImplCpu, kImplCuda};

std::optional<std::string> runOrderTraceWith(Fault fault) {
  FaultySut sut(fault);
  return runTraceModelFree(sut, kOrderTrace);
}

TEST(ModelFreeRunner, AnHonestSystemKeepsOrderIndependence) { EXPECT_EQ(runOrderTraceWith(Fault::None), std::nullopt); }

TEST(ModelFreeRunner, ReportsTablesThatDependOnTheRegistrationOrder) {
  const auto report = runOrderTraceWith(Fault::TableShowsRegistrationOrder);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("order independence: the same registrations made again in another order: every table as "
                         "at the end of the trace: dispatch table of fz::op0 is not as it was"),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("made in this order: k1 k2"), std::string::npos) << *report;
  EXPECT_NE(report->find("made in this order: k2 k1"), std::string::npos) << *report;
}

TEST(ModelFreeRunner, ReportsTablesThatDroppingEverythingDoesNotRestore) {
  const auto report = runOrderTraceWith(Fault::DroppedOperatorLingers);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("order independence: dropping every live registration, newest first: every table as at "
                         "the start: dispatch table of fz::op0 is not as it was"),
            std::string::npos)
      << *report;
}

TEST(ModelFreeRunner, ReportsARegistrationRefusedInAnotherOrder) {
  const auto report = runOrderTraceWith(Fault::RefusesAnImplBeforeItsDef);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("order independence: the same registrations made again in another order: step 0 (impl "
                         "boxed "),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("): impl boxed: the system refuses it (accepted in the trace's order)"), std::string::npos)
      << *report;
}

TEST(ModelFreeRunner, ChecksTheInvariantsOnceEverythingIsDropped) {
  const auto report = runOrderTraceWith(Fault::BrokenOnceEmptied);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("order independence: dropping every live registration, newest first: step 2 (drop of def "),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("): drop: invariant check fails: nothing is left"), std::string::npos) << *report;
}

TEST(ModelFreeRunner, ChecksTheInvariantsOnceMadeAgainInAnotherOrder) {
  // One registration passes the trace; its remaking is the second registration, which this
  // system's invariant check fails from.
  FaultySut sut(Fault::StaleAfterSecondRegistration);
  const auto report = runTraceModelFree(sut, {kImplCpu});
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("order independence: the same registrations made again in another order: step 0 (impl "
                         "typed "),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("): impl typed: invariant check fails: a slot is stale"), std::string::npos) << *report;
}

TEST(ModelFreeRunner, SkipsACallThatWouldRunAStartupFallback) {
  FaultySut sut(Fault::CallReachesAStartupFallback);
  size_t skipped = 0;
  std::map<std::string, size_t> reasons;
  EXPECT_EQ(runTraceModelFree(sut, kTrace, &skipped, &reasons), std::nullopt);
  EXPECT_EQ(skipped, 1u);
  EXPECT_EQ(reasons["the call would run a start-up fallback"], 1u);
}

}  // namespace
}  // namespace dispatch::oracle
