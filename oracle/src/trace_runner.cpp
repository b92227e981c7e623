#include "oracle/trace_runner.h"

#include <stdexcept>

#include "dispatch/startup_fallbacks.h"
#include "oracle/action_cells.h"
#include "oracle/cell_recorder.h"
#include "oracle/layout_flavour.h"
#include "oracle/model_actions.h"
#include "oracle/names.h"
#include "oracle/our_dispatcher_sut.h"
#include "oracle/seam_checks.h"
#include "oracle/step_log.h"
#include "op_schemas.h"
#include "registration_release.h"

namespace dispatch::oracle {

namespace {

using Signature = std::string(const Tensor&, const std::optional<Tensor>&, int64_t);
constexpr int64_t kTag = 7;

// What every kernel of a trace returns: which kernel ran, with which key set (the seam's words).
std::string kernelResult(const std::string& name, DispatchKeySet ks) {
  return oracle::kernelResult(name, ks.raw_repr());
}

// The outcome of one real call, classified as the seam classifies our dispatcher's errors.
template <class F>
SutOutcome capture(F&& f) {
  try {
    return {f(), std::nullopt, false, ""};
  } catch (const InternalError&) {
    throw;  // a library bug, not an outcome
  } catch (const Error& e) {
    return errorOutcome(e);
  }
}

// The slot a call's lookup reads: the key set after TLS and fallthrough masking (a boxed call
// without a schema sees no tensors); a redispatch uses its key set as given.
template <class L>
void observeCallCell(CellRecorder& cells, const BasicOperatorHandle<L>& handle, const Action& a,
                     const Tensor& self, const std::optional<Tensor>& other) {
  DispatchKeySet ks(DispatchKeySet::RAW, a.keys);
  if (a.kind != ActionKind::Redispatch) {
    DispatchKeySet args = self.key_set() | (other ? other->key_set() : DispatchKeySet());
    if (a.kind == ActionKind::CallBoxed && !handle.hasSchema()) args = DispatchKeySet();
    ks = handle.entry().computeDispatchKeySet(args);
  }
  cells.observeCall(handle, ks, toString(a.kind));
}

}  // namespace

template <class L>
TraceRunner<L>::TraceRunner()
    : model_(kModelFlavour<L>) {
  const auto tls = tls_local_dispatch_key_set();
  if (!(tls.included == default_included_set) || !(tls.excluded == default_excluded_set)) {
    // State leaking between inputs makes crashes unreproducible (docs/harness.md §4).
    throw std::logic_error("a trace started with non-default thread-local dispatch keys");
  }
  model_tls_.push_back({model::defaultIncludedSet(), model::defaultExcludedSet()});
}

template <class L>
TraceRunner<L>::~TraceRunner() {
  while (!guards_.empty()) guards_.pop_back();            // LIFO: guards restore snapshots
  while (!registrations_.empty()) registrations_.pop_back();  // newest first
}

template <class L>
std::optional<std::string> TraceRunner<L>::step(const Action& a) {
  if (isKeySetAction(a.kind)) {
    throw std::invalid_argument("TraceRunner runs dispatcher actions only, not " + describe(a));
  }
  CellRecorder* cells = CellRecorder::active();
  if (cells) observeActionKeys<L>(*cells, a);
  std::optional<std::string> disagreement;
  switch (a.kind) {
    case ActionKind::Drop:
      disagreement = dropAction(a);
      break;
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys:
    case ActionKind::PopGuard:
      disagreement = guardAction(a);
      break;
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed:
    case ActionKind::Redispatch:
      disagreement = callAction(a);
      break;
    default:
      disagreement = registerAction(a);
      break;
  }
  if (disagreement) return disagreement;
  if (cells) cells->observeTables(dispatcher_);
  return std::nullopt;
}

template <class L>
std::optional<std::string> TraceRunner<L>::registerAction(const Action& a) {
  using CppFunction = BasicCppFunction<L>;
  const bool fallthrough = isFallthrough(a.kind);
  const std::string name = (isImpl(a.kind) ? "k" : "fb") + std::to_string(next_kernel_++);
  auto boxed = [&] {
    return CppFunction::makeFromBoxedLambda([name](const BasicOperatorHandle<L>&, DispatchKeySet ks,
                                                   Stack* stack) {
             stack->erase(stack->end() - static_cast<std::ptrdiff_t>(std::min<size_t>(3, stack->size())),
                          stack->end());
             stack->push_back(Value(kernelResult(name, ks)));
           })
        .withDebug(name);
  };
  auto kernel = [&]() -> CppFunction {
    if (fallthrough) return CppFunction::makeFallthrough().withDebug(name);
    if (a.kind == ActionKind::ImplTyped) {
      return CppFunction([name](DispatchKeySet ks, const Tensor&, const std::optional<Tensor>&,
                                int64_t) { return kernelResult(name, ks); })
          .withDebug(name);
    }
    return boxed();
  };

  Registration reg;
  const ModelRegistration expected_reg = registerOnModel(model_, a, name);
  const model::RegistrationResult& expected = expected_reg.result;
  SutOutcome real;
  const std::string& op = opName(a.op);
  // Refusals are expected all the time here: the try... forms return them instead of throwing.
  auto keep = [&](TriedRegistration tried) {
    if (const Refusal* refusal = tried.refusal()) {
      real = errorOutcome(*refusal);
    } else {
      reg.handle = std::move(tried).take();
    }
  };
  try {
    switch (a.kind) {
      case ActionKind::Def:
        keep(dispatcher_.tryRegisterDef(parsedOpSchema(a.op), "def " + op));
        break;
      case ActionKind::ImplTyped:
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough: {
        CppFunction f = kernel();
        keep(dispatcher_.tryRegisterImpl(OperatorName{op, ""}, a.key, std::move(f.kernel_),
                                         std::move(f.cpp_signature_), std::move(f.inferred_schema_),
                                         name));
        break;
      }
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect:
        keep(dispatcher_.tryRegisterFallback(*a.key, kernel().kernel_, name));
        break;
      case ActionKind::FallbackLibrary:
      case ActionKind::FallthroughLibrary: {
        BasicLibrary<L> library(BasicLibrary<L>::Kind::IMPL, "_", *a.key, dispatcher_);
        if (auto refusal = library.tryFallback(kernel())) {
          real = errorOutcome(*refusal);
        } else {
          reg.libraries.push_back(std::move(library));
        }
        break;
      }
      case ActionKind::StartupFallbacks:
        reg.libraries = registerStartupFallbacks(dispatcher_);
        break;
      default:
        return "registerAction called for " + std::string(toString(a.kind));
    }
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    real = errorOutcome(e);
  }
  if (auto disagreement = compareRegistration(expected, real)) return disagreement;
  reg.op = a.kind == ActionKind::Def || isImpl(a.kind) ? a.op : -1;
  const int touched = reg.op;
  if (expected.ok()) {
    reg.model_ids = expected_reg.ids;
    registrations_.push_back(std::move(reg));
  }
  return checkTouched(toString(a.kind), touched);
}

template <class L>
std::optional<std::string> TraceRunner<L>::dropAction(const Action& a) {
  if (registrations_.empty()) return std::nullopt;
  Registration& reg = registrations_[a.handle % registrations_.size()];
  std::optional<model::Error> expected;
  for (auto id : reg.model_ids) {
    if (auto status = model_.drop(id); !status.ok() && !expected) expected = status.error;
  }
  const bool real_error = releaseRegistration(reg);
  if (real_error != expected.has_value()) {
    return std::string("drop: dispatcher ") + (real_error ? "refuses" : "accepts") +
           " the second release, model " + (expected ? model::toString(*expected) : "accepts");
  }
  return checkTouched("drop", reg.op);
}

template <class L>
std::optional<std::string> TraceRunner<L>::guardAction(const Action& a) {
  const DispatchKeySet keys(DispatchKeySet::RAW, a.keys);
  const ModelTls current = model_tls_.back();
  switch (a.kind) {
    case ActionKind::IncludeKeys:
      guards_.emplace_back(std::make_unique<IncludeDispatchKeyGuard>(keys));
      model_tls_.push_back({current.included | model::KeySet::fromRaw(a.keys), current.excluded});
      break;
    case ActionKind::ExcludeKeys:
      guards_.emplace_back(std::make_unique<ExcludeDispatchKeyGuard>(keys));
      model_tls_.push_back({current.included, current.excluded | model::KeySet::fromRaw(a.keys)});
      break;
    default:
      if (!guards_.empty()) {
        guards_.pop_back();
        model_tls_.pop_back();
      }
      break;
  }
  const auto tls = tls_local_dispatch_key_set();
  return compareTls({model_tls_.back().included.toRaw(), model_tls_.back().excluded.toRaw(), ""},
                    {tls.included.raw_repr(), tls.excluded.raw_repr(), ""});
}

template <class L>
model::CallOutcome TraceRunner<L>::expectedCall(const Action& a) const {
  return followStartupPassThrough(
      model_, opName(a.op), callOnModel(model_, a, model_tls_.back().included, model_tls_.back().excluded));
}

template <class L>
std::optional<std::string> TraceRunner<L>::callAction(const Action& a) {
  const std::string& op = opName(a.op);
  const Tensor self(DispatchKeySet(DispatchKeySet::RAW, a.keys));
  const std::optional<Tensor> other =
      a.other ? std::optional<Tensor>(Tensor(DispatchKeySet(DispatchKeySet::RAW, *a.other)))
              : std::nullopt;
  const model::CallOutcome expected = expectedCall(a);

  SutOutcome real;
  auto handle = dispatcher_.findOp(OperatorName{op, ""});
  if (CellRecorder* cells = CellRecorder::active(); cells && handle) {
    observeCallCell(*cells, *handle, a, self, other);
  }
  if (!handle) {
    real = {std::nullopt, model::ErrorKind::NotFound, false, "no operator " + op};
  } else if (a.kind == ActionKind::CallBoxed) {
    real = capture([&] {
      Stack stack{Value(self), other ? Value(*other) : Value(), Value(kTag)};
      handle->callBoxed(stack);
      if (stack.size() != 1) throw std::logic_error("callBoxed left " + std::to_string(stack.size()) + " values");
      return stack.back().toString();
    });
  } else {
    const auto typed = handle->template typed<Signature>();
    real = capture([&] {
      return a.kind == ActionKind::Redispatch
                 ? typed.redispatch(DispatchKeySet(DispatchKeySet::RAW, a.keys), self, other, kTag)
                 : typed.call(self, other, kTag);
    });
  }

  return compareCall(expected, real, op, true);
}

#define DISPATCH_ORACLE_INSTANTIATE_RUNNER(L) template class TraceRunner<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_INSTANTIATE_RUNNER)
#undef DISPATCH_ORACLE_INSTANTIATE_RUNNER

namespace {
template <class L>
std::optional<std::string> runOn(const std::vector<Action>& actions) {
  TraceRunner<L> runner;
  for (size_t i = 0; i < actions.size(); ++i) {
    if (traceSteps()) {
      logStep(L::kName, i, toString(actions[i].kind), actions[i].key, describe(actions[i]));
    }
    if (auto disagreement = runner.step(actions[i])) {
      return std::string(L::kName) + ": step " + std::to_string(i) + " (" + describe(actions[i]) +
             "): " + *disagreement;
    }
  }
  if (auto disagreement = runner.checkAll()) return std::string(L::kName) + ": " + *disagreement;
  return std::nullopt;
}
}  // namespace

std::optional<std::string> runTraceOnAllFlavours(const std::vector<Action>& actions) {
  return AllLayouts::firstOf([&]<class L>() { return runOn<L>(actions); });
}

}  // namespace dispatch::oracle
