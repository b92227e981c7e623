#include <sstream>

#include "boxed_call/runner.h"
#include "oracle/runner/model_actions.h"
#include "oracle/ours/our_dispatcher_sut.h"
#include "oracle/runner/seam_checks.h"
#include "oracle/actions/names.h"

namespace dispatch::fuzz::boxed_call {

using oracle::keyName;
using oracle::keySetName;

namespace {

// The call's include guard: DispatchKeySet of its key (0: none).
uint64_t includedRaw(const Action& a) {
  return a.call->include ? DispatchKeySet(*a.call->include).raw_repr() : 0;
}

}  // namespace

template <class L>
Stack Runner<L>::buildStack(const Action& a) {
  return oracle::buildStack(oracle::stackValues(*a.call), next_tensor_);
}

template <class L>
m::CallOutcome Runner<L>::passThrough(const std::string& op, m::CallOutcome outcome) const {
  return dispatch::oracle::followStartupPassThrough(model_, op, std::move(outcome));
}

template <class L>
Expected Runner<L>::judge(const m::CallOutcome& outcome, const Stack& stack, bool has_schema) const {
  Expected e;
  if (!outcome.success) {
    e.outcome = fromModel(outcome.error->kind);
    e.model_error = outcome.error;
    return e;
  }
  e.kernel = outcome.success->kernel;
  e.keys = outcome.success->keys.toRaw();
  if (!has_schema) {
    // Without a schema nothing checks the stack before the kernel does (typed: popArgs).
    const auto it = kernels_.find(e.kernel);
    if (it != kernels_.end() && it->second.args && !stackFits(stack, *it->second.args)) {
      e.outcome = Outcome::BoxedCall;
      e.kernel_args_misfit = true;
    }
  }
  return e;
}

template <class L>
Expected Runner<L>::expectCall(const Action& a, const std::string& op, const Stack& stack, const FunctionSchema* schema,
                               const m::KeySet& included, const m::KeySet& excluded) const {
  const bool stack_ok = !schema || stackFits(stack, argTypesOf(*schema));
  // The tensors the schema's arguments hold (a boxed call without schema sees none).
  m::KeySet args;
  if (schema && stack_ok) {
    for (size_t i = stack.size() - schema->arguments.size(); i < stack.size(); ++i) {
      if (const Tensor* t = stack[i].tryToTensor()) args = args | m::KeySet::fromRaw(t->key_set().raw_repr());
      if (const auto* ts = stack[i].tryToTensorList()) {
        for (const Tensor& t : *ts) args = args | m::KeySet::fromRaw(t.key_set().raw_repr());
      }
    }
  }
  Expected e;
  switch (a.kind) {
    case ActionKind::CallBoxed:
      if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema", "", std::nullopt, false};
      return judge(passThrough(op, model_.call(op, args, included, excluded)), stack, schema != nullptr);
    case ActionKind::RedispatchBoxed:
      if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema", "", std::nullopt, false};
      return judge(passThrough(op, model_.redispatch(op, m::KeySet::fromRaw(a.keys))), stack, schema != nullptr);
    default: {
      // callBoxedForDispatchKey: the key's own kernel, else its fallback; then the stack check.
      const DispatchKey k = *a.key;
      if (!m::isValidKey(k)) return {Outcome::InvalidKey, "", 0, "not a declared key", "", std::nullopt, false};
      std::string kernel;
      const auto stack_of_k = model_.kernelStack(op, k);
      if (!stack_of_k.empty()) {
        kernel = stack_of_k.front();
      } else {
        const auto fallback = model_.fallbackFor(k);
        if (m::isAliasKey(k) || !fallback) {
          return {Outcome::NotImplemented, "", 0, "no kernel and no fallback for ", keyName(k), std::nullopt, false};
        }
        kernel = (fallback->fallthrough ? "fallthrough " : "") + fallback->debug;
      }
      if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema", "", std::nullopt, false};
      if (kernel.rfind("fallthrough ", 0) == 0) {
        return {Outcome::NotImplemented, "", 0, "runs the fallthrough ", kernel, std::nullopt, false};
      }
      const m::KeySet keys = model_.finalKeySet(op, args, included, excluded);
      return judge(passThrough(op, m::CallOutcome{m::CallSuccess{kernel, keys}, std::nullopt}), stack,
                   schema != nullptr);
    }
  }
}

template <class L>
void Runner<L>::call(const Action& a) {
  const OpState& op = ops_[static_cast<size_t>(a.op)];
  const std::string op_name = toString(op.name);
  const auto handle = dispatcher_.findOp(op.name);
  if (handle.has_value() != model_.hasOperator(op_name)) {
    fail("operator existence differs", op_name + (handle ? " exists" : " does not exist") +
                                           " in the dispatcher, not in the model");
  }
  if (!handle) return;
  const FunctionSchema* schema = handle->hasSchema() ? &handle->schema() : nullptr;
  if ((schema != nullptr) != model_.hasSchema(op_name)) fail("schema existence differs", op_name);

  const Stack before = buildStack(a);
  const m::KeySet included = m::defaultIncludedSet() | m::KeySet::fromRaw(includedRaw(a));
  const m::KeySet excluded = m::defaultExcludedSet() | m::KeySet::fromRaw(a.call->exclude.value_or(0));
  const Expected expected = expectCall(a, op_name, before, schema, included, excluded);

  Stack stack = before;
  recorder_.events.clear();
  std::optional<Outcome> real;
  std::string message;
  {
    std::optional<IncludeDispatchKeyGuard> include;
    std::optional<ExcludeDispatchKeyGuard> exclude;
    if (a.call->include) include.emplace(DispatchKeySet(DispatchKeySet::RAW, includedRaw(a)));
    if (a.call->exclude) exclude.emplace(DispatchKeySet(DispatchKeySet::RAW, *a.call->exclude));
    if (CellRecorder* cells = CellRecorder::active()) observeCallCell(*cells, a, *handle, schema, stack);
    try {
      const oracle::CallWitness::Watch watch(witness_);
      switch (a.kind) {
        case ActionKind::CallBoxed: handle->callBoxed(stack); break;
        case ActionKind::RedispatchBoxed: handle->redispatchBoxed(DispatchKeySet(DispatchKeySet::RAW, a.keys), &stack); break;
        default: handle->callBoxedForDispatchKey(*a.key, &stack); break;
      }
    } catch (const InternalError& e) {
      fail("InternalError from a boxed call", e.what());
    } catch (const Error& e) {
      real = classify(e);
      message = e.what();
    } catch (const std::exception& e) {
      fail("a boxed call throws a non-dispatch exception", e.what());
    }
  }
  if (real) {
    note({L::kName, step_, real, message, 0, true});
  } else if (recorder_.events.empty()) {
    note({L::kName, step_, real, std::string(), 0, true});
  } else {
    note({L::kName, step_, real, recorder_.events.back().kernel, recorder_.events.back().keys, true});
  }

  const Outcome got = real.value_or(Outcome::Success);
  if (got != expected.outcome) {
    fail("boxed call outcome differs",
         "dispatcher " + std::string(toString(got)) + (real ? ": " + message : std::string()) + "; expected " +
             std::string(toString(expected.outcome)) + " (" + expected.why() + ")");
  }
  if (real) {
    if (!(stack == before)) fail("a failed call changed the stack", message);
    // The error names what it is about, as the seam's check asks of our dispatcher.
    if (expected.model_error && !oracle::errorNamesOperatorAndKey(*expected.model_error, message, op_name)) {
      fail("a call's error does not name its operator and key", message + "; expected " + expected.why());
    }
    return;
  }
  checkSuccess(expected, schema, before, stack);
  if (auto wrong = witness_.misreport(handle->operatorNameString(), oracle::callKindOf(a.kind), expected.kernel,
                                      expected.keys)) {
    fail("the diagnostics report a call wrongly", *wrong);
  }
}

template <class L>
void Runner<L>::observeCallCell(CellRecorder& cells, const Action& a, const BasicOperatorHandle<L>& handle,
                                const FunctionSchema* schema, const Stack& stack) {
  if (a.kind == ActionKind::CallForKey) {
    cells.observeKey<L>("callBoxedForDispatchKey", *a.key, false);
    return;
  }
  if (schema && !stackFits(stack, argTypesOf(*schema))) return;
  const DispatchKeySet ks =
      a.kind == ActionKind::RedispatchBoxed
          ? DispatchKeySet(DispatchKeySet::RAW, a.keys)
          : handle.entry().computeDispatchKeySet(keySetOfStack(stack, schema ? schema->arguments.size() : 0));
  cells.observeCall(handle, ks, toString(a.kind));
}

template <class L>
void Runner<L>::checkSuccess(const Expected& expected, const FunctionSchema* schema, const Stack& before,
                             const Stack& after) const {
  if (recorder_.events.size() != 1) {
    fail("a successful call ran " + std::to_string(recorder_.events.size()) + " kernels", expected.why());
  }
  const Event& e = recorder_.events.back();
  if (e.kernel != expected.kernel || e.keys != expected.keys) {
    fail("a successful call ran another kernel or key set",
         "ran " + e.kernel + " with " + keySetName(e.keys) + "; " + expected.why());
  }
  const size_t popped = e.args.size();
  const size_t pushed = e.returns.size();
  if (schema) {
    if (popped != schema->arguments.size() || pushed != schema->returns.size()) {
      fail("kernel arity differs from the schema", e.kernel + " popped " + std::to_string(popped) +
                                                       " and pushed " + std::to_string(pushed) + " for " +
                                                       toString(*schema));
    }
  }
  if (popped > before.size()) fail("kernel popped more than the stack held", e.kernel);
  const size_t base = before.size() - popped;
  // The kernel saw exactly the stack's arguments.
  for (size_t i = 0; i < popped; ++i) {
    if (!(e.args[i] == before[base + i])) {
      std::ostringstream out;
      out << e.kernel << " received argument " << i << " = " << e.args[i] << ", the stack held " << before[base + i];
      fail("kernel received a different argument", out.str());
    }
  }
  // Exactly the returns on top of the untouched rest.
  if (after.size() != base + pushed) {
    fail("wrong number of values left on the stack",
         "before " + std::to_string(before.size()) + ", after " + std::to_string(after.size()) + ", expected " +
             std::to_string(base) + " untouched + " + std::to_string(pushed) + " returns" +
             (schema ? " for " + toString(*schema) : std::string()));
  }
  for (size_t i = 0; i < base; ++i) {
    if (!(after[i] == before[i])) fail("a call changed values below its arguments", "index " + std::to_string(i));
  }
  for (size_t i = 0; i < pushed; ++i) {
    if (!(after[base + i] == e.returns[i])) {
      std::ostringstream out;
      out << e.kernel << " returned " << e.returns[i] << ", the stack holds " << after[base + i];
      fail("the stack holds another return value", out.str());
    }
    if (schema && !fitsArgType(after[base + i], schema->returns[i])) {
      std::ostringstream out;
      out << "return " << i << " = " << after[base + i] << " for " << toString(*schema);
      fail("a return does not fit the schema's type", out.str());
    }
  }
}

#define DISPATCH_FUZZ_INSTANTIATE_RUNNER(L) template class Runner<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_FUZZ_INSTANTIATE_RUNNER)
#undef DISPATCH_FUZZ_INSTANTIATE_RUNNER

}  // namespace dispatch::fuzz::boxed_call
