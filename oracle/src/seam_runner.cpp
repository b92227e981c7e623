#include "oracle/seam_runner.h"

#include <stdexcept>

#include "oracle/model_actions.h"
#include "oracle/seam_checks.h"
#include "oracle/step_log.h"

namespace dispatch::oracle {

namespace {

constexpr std::string_view kStartupFallbackPrefix = "startup fallback for ";

KernelKind kernelKindOf(ActionKind kind) {
  if (isFallthrough(kind)) return KernelKind::Fallthrough;
  return kind == ActionKind::ImplTyped ? KernelKind::Typed : KernelKind::Boxed;
}

// A call the model says runs a start-up boxed fallback (not a fallthrough).
bool reachesStartupFallback(const model::CallOutcome& outcome) {
  return outcome.success && outcome.success->kernel.rfind(kStartupFallbackPrefix, 0) == 0;
}

}  // namespace

SeamRunner::SeamRunner(SystemUnderTest& sut) : sut_(sut), model_(sut.flavour()) {
  model_tls_.push_back({model::defaultIncludedSet().toRaw(), model::defaultExcludedSet().toRaw()});
  if (auto d = compareTls(model_tls_.back(), sut_.threadLocalKeys())) {
    // State leaking between inputs makes crashes unreproducible (docs/harness.md §4).
    throw std::logic_error("a trace started with non-default thread-local dispatch keys: " + *d);
  }
  if (sut_.startsWithStartupFallbacks()) {
    if (!registerStartupFallbacksOnModel(model_).result.ok()) {
      throw std::logic_error("the model refused the start-up fallbacks");
    }
  }
}

std::optional<std::string> SeamRunner::step(const Action& a) {
  if (isKeySetAction(a.kind) || (isBoxedStackCall(a.kind) && a.call)) {
    throw std::invalid_argument("SeamRunner runs dispatcher actions only, not " + describe(a));
  }
  if (auto reason = sut_.unsupported(a, model_)) {
    ++skipped_;
    last_skip_reason_ = *reason;
    return std::nullopt;
  }
  switch (a.kind) {
    case ActionKind::Drop:
      return dropAction(a);
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys:
    case ActionKind::PopGuard:
      return guardAction(a);
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed:
    case ActionKind::Redispatch:
      return callAction(a);
    default:
      if (!isRegistration(a.kind)) throw std::invalid_argument("SeamRunner cannot run " + describe(a));
      return registerAction(a);
  }
}

std::optional<std::string> SeamRunner::registerAction(const Action& a) {
  // Kernel names as the trace runner gives them: one number per registration action.
  const std::string name = (isImpl(a.kind) ? "k" : "fb") + std::to_string(next_kernel_++);
  const ModelRegistration expected = registerOnModel(model_, a, name);
  SutOutcome real;
  switch (a.kind) {
    case ActionKind::Def:
      real = sut_.define(a.op);
      break;
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      real = sut_.implement(a.op, a.key, kernelKindOf(a.kind), name);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      real = sut_.fallback(*a.key, kernelKindOf(a.kind), false, name);
      break;
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      real = sut_.fallback(*a.key, kernelKindOf(a.kind), true, name);
      break;
    default:  // StartupFallbacks
      real = sut_.startupFallbacks();
      break;
  }
  if (auto d = compareRegistration(expected.result, real)) return d;
  const int touched = a.kind == ActionKind::Def || isImpl(a.kind) ? a.op : -1;
  if (expected.result.ok()) registrations_.push_back({expected.ids, touched});
  return checkTouched(std::string(toString(a.kind)), touched);
}

std::optional<std::string> SeamRunner::dropAction(const Action& a) {
  if (registrations_.empty()) return std::nullopt;
  const size_t handle = a.handle % registrations_.size();
  const Registration& reg = registrations_[handle];
  std::optional<model::Error> expected;
  for (auto id : reg.model_ids) {
    if (auto status = model_.drop(id); !status.ok() && !expected) expected = status.error;
  }
  const bool refused = !sut_.deregister(handle);
  if (refused != expected.has_value()) {
    return std::string("drop: system ") + (refused ? "refuses" : "accepts") +
           " the second release, model " + (expected ? model::toString(*expected) : "accepts");
  }
  return checkTouched("drop", reg.op);
}

std::optional<std::string> SeamRunner::guardAction(const Action& a) {
  const TlsKeys current = model_tls_.back();
  switch (a.kind) {
    case ActionKind::IncludeKeys:
      sut_.pushGuard(true, a.keys);
      model_tls_.push_back({current.included | a.keys, current.excluded});
      break;
    case ActionKind::ExcludeKeys:
      sut_.pushGuard(false, a.keys);
      model_tls_.push_back({current.included, current.excluded | a.keys});
      break;
    default:
      if (model_tls_.size() > 1) {
        sut_.popGuard();
        model_tls_.pop_back();
      }
      break;
  }
  return compareTls(model_tls_.back(), sut_.threadLocalKeys());
}

model::CallOutcome SeamRunner::expectedCall(const Action& a, bool follow_startup) const {
  const model::CallOutcome outcome =
      callOnModel(model_, a, model::KeySet::fromRaw(model_tls_.back().included),
                  model::KeySet::fromRaw(model_tls_.back().excluded));
  return follow_startup ? followStartupPassThrough(model_, opName(a.op), outcome) : outcome;
}

std::optional<std::string> SeamRunner::callAction(const Action& a) {
  if (!sut_.runsStartupFallbacks() && reachesStartupFallback(expectedCall(a, false))) {
    ++skipped_;
    last_skip_reason_ = "the call would run a start-up fallback";
    return std::nullopt;
  }
  const model::CallOutcome expected = expectedCall(a, true);
  const SutOutcome real = sut_.call(a.kind, a.op, a.keys, a.other);
  return compareCall(expected, real, sut_.opName(a.op), sut_.callErrorsNameTheOperator());
}

std::optional<std::string> SeamRunner::checkTouched(const std::string& context, int op) const {
  for (int i = 0; i < kNumOps; ++i) {
    if (op >= 0 && i != op) continue;
    if (auto d = compareTable(context, model_, opName(i), sut_.opName(i), sut_.table(i))) return d;
  }
  if (op < 0) {
    if (auto real = sut_.fallbackTable(); real && *real != expectedFallbackTable(model_)) {
      return context + ": fallback table differs.\n--- system\n" + *real + "--- model\n" +
             expectedFallbackTable(model_);
    }
  }
  if (auto broken = sut_.checkInvariants()) return context + ": invariant check fails: " + *broken;
  return std::nullopt;
}

std::optional<std::string> SeamRunner::checkAll() const { return checkTouched("end of trace", -1); }

std::optional<std::string> runTraceOnSut(SystemUnderTest& sut, const std::vector<Action>& actions,
                                         size_t* skipped) {
  SeamRunner runner(sut);
  auto report = [&](const std::string& where, const std::string& d) {
    if (skipped) *skipped = runner.skipped();
    return sut.name() + ": " + where + d;
  };
  for (size_t i = 0; i < actions.size(); ++i) {
    if (traceSteps()) logStep(sut.name(), i, toString(actions[i].kind), actions[i].key, describe(actions[i]));
    if (auto d = runner.step(actions[i])) {
      return report("step " + std::to_string(i) + " (" + describe(actions[i]) + "): ", *d);
    }
  }
  if (auto d = runner.checkAll()) return report("", *d);
  if (skipped) *skipped = runner.skipped();
  return std::nullopt;
}

}  // namespace dispatch::oracle
