#include "oracle/runner/model_free_runner.h"

#include <stdexcept>

#include "oracle/runner/registration_order.h"
#include "oracle/runner/seam_checks.h"
#include "oracle/runner/trace_on_sut.h"

namespace dispatch::oracle {

namespace {

// The first operator (or the fallback table, index kNumOps) whose text differs.
std::optional<std::string> compareTables(const std::string& context, const std::vector<std::optional<std::string>>& before,
                                         const std::vector<std::optional<std::string>>& after,
                                         const SystemUnderTest& sut) {
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    const std::string what = i < static_cast<size_t>(kNumOps) ? "dispatch table of " + sut.opName(static_cast<int>(i))
                                                                : std::string("fallback table");
    return context + ": " + what + " is not as it was.\n--- before\n" + before[i].value_or("(no operator)\n") +
           "--- now\n" + after[i].value_or("(no operator)\n");
  }
  return std::nullopt;
}

// A NamedKey action is judged as the registration it makes (reports read the same).
ActionKind judgedKind(const Action& a) { return a.named ? a.named->registration : a.kind; }

std::string unclassified(const std::string& context, const SutOutcome& o) {
  return context + ": the system raised an error of no known kind: " + o.message;
}

}  // namespace

ModelFreeRunner::ModelFreeRunner(SystemUnderTest& sut) : sut_(sut), no_model_(sut.flavour()), at_start_(tables()) {}

std::optional<std::string> ModelFreeRunner::step(const Action& a) {
  if (isKeySetAction(a.kind) || a.kind == ActionKind::Schema || a.kind == ActionKind::DefLibrary || a.call ||
      a.signature) {
    throw std::invalid_argument("ModelFreeRunner runs the registration vocabulary only, not " + describe(a));
  }
  checkNamedKey(a);
  if (auto reason = sut_.unsupported(a, no_model_)) {
    ++skipped_;
    last_skip_reason_ = std::move(*reason);
    return std::nullopt;
  }
  if (a.kind == ActionKind::Drop) return dropAction(a);
  if (isGuard(a.kind)) return guardAction(a);
  if (isCall(a.kind)) return callAction(a);
  if (a.kind == ActionKind::NamedKey) return registerAction(a);
  if (!isRegistration(a.kind)) throw std::invalid_argument("ModelFreeRunner cannot run " + describe(a));
  return registerAction(a);
}

ModelFreeRunner::Tables ModelFreeRunner::tables() const {
  Tables out;
  for (int i = 0; i < kNumOps; ++i) out.push_back(sut_.table(i));
  out.push_back(sut_.fallbackTable());
  return out;
}

std::optional<std::string> ModelFreeRunner::invariantsAfter(const Action& made, const std::string& context) const {
  const ActionKind kind = judgedKind(made);
  if (kind != ActionKind::Def && !isImpl(kind)) return invariants(context);
  if (auto broken = sut_.checkInvariantsOf(made.op)) return context + ": invariant check fails: " + *broken;
  return std::nullopt;
}

std::optional<std::string> ModelFreeRunner::invariants(const std::string& context) const {
  if (auto broken = sut_.checkInvariants()) return context + ": invariant check fails: " + *broken;
  return std::nullopt;
}

SutOutcome ModelFreeRunner::registerOnSut(const Action& a, const std::string& kernel) {
  switch (a.kind) {
    case ActionKind::NamedKey: return sut_.registerOnNamedKey(*a.named, a.op, kernel);
    case ActionKind::Def: return sut_.define(a.op);
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough: return sut_.implement(a.op, a.key, kernelKindOf(a.kind), kernel);
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect: return sut_.fallback(*a.key, kernelKindOf(a.kind), false, kernel);
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary: return sut_.fallback(*a.key, kernelKindOf(a.kind), true, kernel);
    case ActionKind::LibraryBlock: return sut_.libraryBlock(*a.block, a.op, a.key, kernel);
    default: return sut_.startupFallbacks();
  }
}

std::optional<std::string> ModelFreeRunner::registerAction(const Action& a) {
  const ActionKind kind = judgedKind(a);
  const std::string context(toString(kind));
  const std::string name = (isImpl(kind) ? "k" : "fb") + std::to_string(next_kernel_++);
  Tables before = tables();
  const SutOutcome real = registerOnSut(a, name);
  if (real.unclassified) return unclassified(context, real);
  if (!real.ok()) {
    // A refused def or impl leaves nothing behind (fallbacks over an alias are registered key
    // by key in c10, a documented difference: docs/c10-differences.md).
    if (kind == ActionKind::Def || isImpl(kind) || kind == ActionKind::LibraryBlock) {
      return compareTables(context + " (refused)", before, tables(), sut_);
    }
    if (tables() != before) state_beyond_registrations_ = true;
    return std::nullopt;
  }
  registrations_.push_back({std::move(before), ++changes_, false, a, name});
  return invariantsAfter(a, context);
}

std::optional<std::string> ModelFreeRunner::dropAction(const Action& a) {
  if (registrations_.empty()) return std::nullopt;
  const size_t handle = a.handle % registrations_.size();  // as the seam runner: any ever made
  Registration& reg = registrations_[handle];
  const bool undoes_the_last_change = !reg.dropped && reg.made_at == changes_;
  const bool was_dropped = reg.dropped;
  ++changes_;
  const bool accepted = sut_.deregister(handle);
  reg.dropped = true;
  if (accepted == was_dropped) {
    return std::string("drop: system ") + (accepted ? "accepts" : "refuses") + " the " +
           (was_dropped ? "second" : "first") + " release";
  }
  if (auto broken = invariantsAfter(reg.action, "drop")) return broken;
  // Registering and then deregistering changes nothing: dropping the registration made last,
  // with nothing registered or dropped since, brings back the tables of just before it.
  if (undoes_the_last_change) return compareTables("drop of the newest registration", reg.before, tables(), sut_);
  return std::nullopt;
}

std::optional<std::string> ModelFreeRunner::guardAction(const Action& a) {
  const TlsKeys now = sut_.threadLocalKeys();
  if (a.kind == ActionKind::PopGuard) {
    if (tls_before_guard_.empty()) return std::nullopt;
    sut_.popGuard();
    const TlsKeys expected = tls_before_guard_.back();
    tls_before_guard_.pop_back();
    if (auto d = compareTls(expected, sut_.threadLocalKeys())) return "(pop guard): " + *d;
    return std::nullopt;
  }
  const bool include = a.kind == ActionKind::IncludeKeys;
  sut_.pushGuard(include, a.keys);
  tls_before_guard_.push_back(now);
  TlsKeys expected = now;
  (include ? expected.included : expected.excluded) |= a.keys;
  if (auto d = compareTls(expected, sut_.threadLocalKeys())) return "(push guard): " + *d;
  return std::nullopt;
}

std::optional<std::string> ModelFreeRunner::callAction(const Action& a) {
  const std::optional<std::string> slot = sut_.slotACallRuns(a.kind, a.op, a.keys, a.other);
  if (slot == kStartupFallbackSlot || slot == kUnshownSlot) {
    ++skipped_;
    last_skip_reason_ = slot == kStartupFallbackSlot ? "the call would run a start-up fallback"
                                                     : "the call would run " + std::string(kUnshownSlot);
    return std::nullopt;
  }
  const std::string context(toString(a.kind));
  const SutOutcome real = sut_.call(a.kind, a.op, a.keys, a.other);
  if (real.unclassified) return unclassified(context, real);
  if (!slot) return std::nullopt;
  // A call runs what the computed table names for its key set.
  std::string ran;
  if (real.result) {
    ran = "kernel " + real.result->substr(0, real.result->find('@'));
  } else if (real.error == model::ErrorKind::AmbiguousAutogradOther) {
    ran = "ambiguous";
  } else if (real.error == model::ErrorKind::NotImplemented) {
    ran = *slot == "fallthrough" ? "fallthrough" : "missing";
  } else {
    ran = "error " + real.message.substr(0, real.message.find('\n'));
  }
  if (ran == *slot) return std::nullopt;
  return context + ": the call ran " + ran + " where the computed table names " + *slot +
         (real.message.empty() ? "" : " (" + real.message.substr(0, real.message.find('\n')) + ")");
}

std::optional<std::string> ModelFreeRunner::checkAll() {
  if (auto broken = invariants("end of trace")) return broken;
  return orderIndependence();
}

std::optional<std::string> ModelFreeRunner::orderIndependence() {
  if (state_beyond_registrations_) {
    // Not judged, and counted as such: the state holds more than the live registrations.
    ++skipped_;
    last_skip_reason_ = "order independence not judged: a refused fallback left some of its keys registered";
    return std::nullopt;
  }
  std::vector<size_t> alive;
  std::vector<Action> actions;
  for (size_t handle = 0; handle < registrations_.size(); ++handle) {
    if (registrations_[handle].dropped) continue;
    alive.push_back(handle);
    actions.push_back(registrations_[handle].action);
  }
  if (alive.empty()) return std::nullopt;
  const Tables at_end = tables();
  // Each step is checked and named as a trace's step is, so a report reads like one (and the
  // known-bug signatures, which name the action and its kind, read it too).
  const std::string dropping = "order independence: dropping every live registration, newest first";
  size_t step = 0;
  for (auto it = alive.rbegin(); it != alive.rend(); ++it, ++step) {
    Registration& reg = registrations_[*it];
    const std::string context = dropping + ": step " + std::to_string(step) + " (drop of " + describe(reg.action) + "): drop";
    reg.dropped = true;
    ++changes_;
    if (!sut_.deregister(*it)) return context + ": system refuses the first release";
    if (auto broken = invariantsAfter(reg.action, context)) return broken;
  }
  if (auto d = compareTables(dropping + ": every table as at the start", at_start_, tables(), sut_)) return d;

  const std::string remaking = "order independence: the same registrations made again in another order";
  step = 0;
  for (const size_t i : anotherOrder(actions)) {
    const Registration& original = registrations_[alive[i]];
    const Action action = original.action;
    const std::string kernel = original.kernel;
    const std::string context =
        remaking + ": step " + std::to_string(step++) + " (" + describe(action) + "): " + std::string(toString(judgedKind(action)));
    Tables before = tables();
    const SutOutcome real = registerOnSut(action, kernel);
    if (!real.ok()) {
      return context + ": the system refuses it (accepted in the trace's order): " +
             real.message.substr(0, real.message.find('\n'));
    }
    registrations_.push_back({std::move(before), ++changes_, false, action, kernel});
    if (auto broken = invariantsAfter(action, context)) return broken;
  }
  if (auto broken = invariants(remaking + ": at the end")) return broken;
  return compareTables(remaking + ": every table as at the end of the trace", at_end, tables(), sut_);
}

std::optional<std::string> runTraceModelFree(SystemUnderTest& sut, const std::vector<Action>& actions,
                                             size_t* skipped, std::map<std::string, size_t>* skip_reasons) {
  return runTraceWith<ModelFreeRunner>(sut, actions, skipped, skip_reasons);
}

}  // namespace dispatch::oracle
