#include "oracle/runner/seam_runner.h"

#include <stdexcept>

#include "oracle/runner/model_actions.h"
#include "oracle/runner/seam_checks.h"
#include "oracle/runner/trace_on_sut.h"

namespace dispatch::oracle {

SeamRunner::SeamRunner(SystemUnderTest& sut) : sut_(sut), model_(sut.flavour()) {
  model_tls_.push_back({model::defaultIncludedSet().toRaw(), model::defaultExcludedSet().toRaw(), ""});
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
  if (isKeySetAction(a.kind)) {
    throw std::invalid_argument("SeamRunner runs dispatcher actions only, not " + describe(a));
  }
  if (a.kind == ActionKind::Schema) {
    declare(a);
    return std::nullopt;
  }
  checkNamedKey(a);
  if (auto reason = sut_.unsupported(a, model_)) return skip(*reason);
  // A system that has the key still meets a model that lacks it.
  if (a.kind == ActionKind::NamedKey) return skip(namedKeyOutsideVocabulary("the model", a));
  sut_.beforeAction(a);
  std::optional<std::string> disagreement = run(a);
  if (!disagreement) sut_.afterAction(a);
  return disagreement;
}

std::optional<std::string> SeamRunner::run(const Action& a) {
  switch (a.kind) {
    case ActionKind::Drop:
      return dropAction(a);
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys:
    case ActionKind::PopGuard:
      return guardAction(a);
    case ActionKind::CallBoxed:
    case ActionKind::RedispatchBoxed:
    case ActionKind::CallForKey:
      if (a.call) return stackCallAction(a);
      if (a.kind != ActionKind::CallBoxed) throw std::invalid_argument(describe(a) + " without a stack");
      return callAction(a);
    case ActionKind::CallTyped:
    case ActionKind::Redispatch:
      return callAction(a);
    case ActionKind::DefLibrary:
      return declaredDefAction(a);
    case ActionKind::Def:
      return isDeclared(a.op) ? declaredDefAction(a) : registerAction(a);
    case ActionKind::ImplTyped:
      return a.signature ? typedImplAction(a) : registerAction(a);
    default:
      if (!isRegistration(a.kind)) throw std::invalid_argument("SeamRunner cannot run " + describe(a));
      return registerAction(a);
  }
}

std::optional<std::string> SeamRunner::skip(std::string reason) {
  ++skipped_;
  last_skip_reason_ = std::move(reason);
  return std::nullopt;
}

std::string SeamRunner::modelOp(int op) const {
  const auto it = declared_.find(op);
  return it == declared_.end() ? opName(op) : toString(it->second.name);
}

std::optional<std::string> SeamRunner::registerAction(const Action& a) {
  // Kernel names as the trace runner gives them: one number per registration action.
  const bool makes_kernel = isImpl(a.kind) || (a.block && isLibraryImpl(a.block->body));
  const std::string name = (makes_kernel ? "k" : "fb") + std::to_string(next_kernel_++);
  // A declared operator goes by its declared name; a boxed kernel written for it pops the
  // operator's own arguments when it has no schema, a fallback pops nothing.
  const bool declared_impl = isImpl(a.kind) && isDeclared(a.op);
  ModelRegistration expected;
  if (declared_impl) {
    expected.result = model_.impl(modelOp(a.op), a.key, name, isFallthrough(a.kind));
    if (expected.result.ok()) expected.ids.push_back(*expected.result.id);
    if (a.kind == ActionKind::ImplBoxed) kernel_args_[name] = declared_.at(a.op).own_args;
  } else {
    expected = registerOnModel(model_, a, name);
  }
  // In a declared trace a fallback pops nothing from an operator without a schema.
  if (!declared_.empty() && !isImpl(a.kind) && a.kind != ActionKind::Def) kernel_args_[name] = {};
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
    case ActionKind::LibraryBlock:
      real = sut_.libraryBlock(*a.block, a.op, a.key, name);
      break;
    default:  // StartupFallbacks
      real = sut_.startupFallbacks();
      break;
  }
  if (auto d = compareRegistration(expected.result, real)) return d;
  const bool on_operator = a.kind == ActionKind::Def || isImpl(a.kind) ||
                           (a.block && a.block->body != LibraryBody::Nothing);
  const int touched = on_operator ? a.op : -1;
  if (expected.result.ok()) registrations_.push_back({expected.ids, touched, std::nullopt, false});
  return checkTouched(std::string(toString(a.kind)), touched);
}

std::optional<size_t> SeamRunner::dropTarget(const Action& a) const {
  if (declared_.empty()) {
    if (registrations_.empty()) return std::nullopt;
    return a.handle % registrations_.size();
  }
  std::vector<size_t> live;
  for (size_t i = 0; i < registrations_.size(); ++i) {
    if (!registrations_[i].dropped) live.push_back(i);
  }
  if (live.empty()) return std::nullopt;
  return live[a.handle % live.size()];
}

std::optional<std::string> SeamRunner::dropAction(const Action& a) {
  const std::optional<size_t> handle = dropTarget(a);
  if (!handle) return std::nullopt;
  Registration& reg = registrations_[*handle];
  std::optional<model::Error> expected;
  for (auto id : reg.model_ids) {
    if (auto status = model_.drop(id); !status.ok() && !expected) expected = status.error;
  }
  reg.dropped = true;
  // An operator's C++ signature lives as long as the operator does.
  if (reg.op >= 0 && !model_.hasOperator(modelOp(reg.op))) cpp_signature_.erase(reg.op);
  const bool refused = !sut_.deregister(*handle);
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
      model_tls_.push_back({current.included | a.keys, current.excluded, current.unmapped});
      break;
    case ActionKind::ExcludeKeys:
      sut_.pushGuard(false, a.keys);
      model_tls_.push_back({current.included, current.excluded | a.keys, current.unmapped});
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
    return skip("the call would run a start-up fallback");
  }
  const model::CallOutcome expected = expectedCall(a, true);
  const SutOutcome real = sut_.call(a.kind, a.op, a.keys, a.other);
  return compareCall(expected, real, sut_.opName(a.op), sut_.callErrorsNameOperatorAndKey());
}

std::optional<std::string> SeamRunner::checkTouched(const std::string& context, int op, bool full) const {
  // A SUT that compares rows structurally is checked that way instead of by its printed tables
  // (against the model's memo after a step; at the end against a recomputation, why each slot
  // holds its kernel included), and by its own invariants at the end only: its rows already
  // equal the model's after every step, and recomputing every table per step would cost our
  // fuzzers about a sixth of their executions.
  const RowComparison* rows = sut_.rowComparison();
  for (int i = 0; i < kNumOps; ++i) {
    if (op >= 0 && i != op) continue;
    if (rows) {
      if (auto d = rows->compareRow(context, i, model_, full)) return d;
    }
    if (!rows) {
      if (auto d = compareTable(context, model_, modelOp(i), sut_.opName(i), sut_.table(i))) return d;
    }
  }
  if (op < 0) {
    if (rows) {
      if (auto d = rows->compareFallbacks(context, model_)) return d;
    } else if (auto real = sut_.fallbackTable(); real && *real != model_.dumpFallbacks()) {
      return context + ": fallback table differs.\n--- system\n" + *real + "--- model\n" +
             model_.dumpFallbacks();
    }
  }
  if (rows && !full) return std::nullopt;
  if (auto broken = sut_.checkInvariants()) return context + ": invariant check fails: " + *broken;
  return std::nullopt;
}

std::optional<std::string> SeamRunner::checkAll() const { return checkTouched("end of trace", -1, true); }

std::optional<std::string> runTraceOnSut(SystemUnderTest& sut, const std::vector<Action>& actions,
                                         size_t* skipped, std::map<std::string, size_t>* skip_reasons) {
  return runTraceWith<SeamRunner>(sut, actions, skipped, skip_reasons);
}

}  // namespace dispatch::oracle
