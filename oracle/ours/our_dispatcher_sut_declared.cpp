// OurDispatcherSut's declared-schema members (boxed_call_fuzzer's vocabulary through the seam):
// defs of declared schemas, typed kernels of the signatures of oracle::typedSignatures(), boxed
// kernels that pop the schema's arguments and push its returns, and boxed calls on stacks of
// any shape whose result is checked against what the kernel popped and pushed.

#include <sstream>

#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {

namespace {

std::vector<ArgType> argTypes(const FunctionSchema& schema) {
  std::vector<ArgType> types;
  for (const Argument& arg : schema.arguments) types.push_back(arg.type);
  return types;
}

bool stackFits(const Stack& stack, const std::vector<ArgType>& types) {
  if (stack.size() < types.size()) return false;
  for (size_t i = 0, base = stack.size() - types.size(); i < types.size(); ++i) {
    if (!fitsArgType(stack[base + i], types[i])) return false;
  }
  return true;
}

// A value of kind t, made up deterministically by a kernel.
Value madeUpReturn(ArgType t, DispatchKeySet ks, const std::string& kernel) {
  switch (t) {
    case ArgType::Tensor: return Value(Tensor(ks, -1));
    case ArgType::OptionalTensor: return Value();
    case ArgType::TensorList: return Value(std::vector<Tensor>{Tensor(ks, -2)});
    case ArgType::Int: return Value(static_cast<int64_t>(kernel.size()));
    case ArgType::Float: return Value(0.5);
    case ArgType::Bool: return Value(true);
    case ArgType::String: return Value(kernel);
  }
  return Value();
}

[[maybe_unused]] std::string print(const Value& v) {  // used by the member templates below
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

template <class L>
SutOutcome OurDispatcherSut<L>::defineDeclared(int op, bool through_library) {
  const DeclaredOp& d = declared_.at(op);
  return registerWith([&](Registration& reg) -> std::optional<Refusal> {
    if (!through_library) {
      return keepHandle(reg.handle, dispatcher_.tryRegisterDef(d.schema.value(), "def " + toString(d.name)));
    }
    // A fragment without a key opens for any namespace but the wildcard: only its def may refuse.
    BasicLibrary<L> library(BasicLibrary<L>::Kind::FRAGMENT, std::string(kDeclaredNamespace), std::nullopt,
                            dispatcher_);
    std::optional<Refusal> refusal = library.tryDef(d.text);
    if (!refusal) reg.libraries.push_back(std::move(library));
    return refusal;
  });
}

// Boxed kernels pop the schema's arguments and push its returns; without a schema, an impl's
// pops and pushes its operator's own (a fallback: nothing). They refuse a stack that does not fit.
template <class L>
BasicCppFunction<L> OurDispatcherSut<L>::declaredBoxedKernel(std::optional<int> op, const std::string& kernel) {
  std::optional<DeclaredOp> own;
  if (op) own = declared_.at(*op);
  return BasicCppFunction<L>::makeFromBoxedLambda([this, own, kernel](const BasicOperatorHandle<L>& handle,
                                                                      DispatchKeySet ks, Stack* stack) {
           std::vector<ArgType> args;
           std::vector<ArgType> returns;
           if (handle.hasSchema()) {
             args = argTypes(handle.schema());
             returns = handle.schema().returns;
           } else if (own) {
             args = own->own_args;
             returns = own->own_returns;
           }
           if (!stackFits(*stack, args)) throw BoxedCallError("boxed kernel " + kernel + ": the stack does not fit");
           KernelRun run{kernel, ks.raw_repr(), {}, {}};
           const auto base = static_cast<std::ptrdiff_t>(stack->size() - args.size());
           run.args.assign(stack->begin() + base, stack->end());
           stack->erase(stack->begin() + base, stack->end());
           for (ArgType t : returns) {
             stack->push_back(madeUpReturn(t, ks, kernel));
             run.returns.push_back(stack->back());
           }
           runs_.push_back(std::move(run));
         })
      .withDebug(kernel);
}

template <class L>
SutOutcome OurDispatcherSut<L>::implementTyped(int op, std::optional<DispatchKey> key, int signature,
                                               const std::string& kernel) {
  using F = BasicCppFunction<L>;
  auto record = [this, kernel](DispatchKeySet ks, std::vector<Value> args, std::vector<Value> returns) {
    runs_.push_back({kernel, ks.raw_repr(), std::move(args), std::move(returns)});
  };
  using TensorList = std::vector<Tensor>;
  using OptionalTensor = std::optional<Tensor>;
  auto make = [&]() -> F {
    switch (signature) {  // typedSignatures(), in order
      case 0:
        return F([record](DispatchKeySet ks, const Tensor& a) {
          record(ks, {a}, {Tensor(ks, -1)});
          return Tensor(ks, -1);
        });
      case 1:
        return F([record, kernel](DispatchKeySet ks, const Tensor& a, const OptionalTensor& b, int64_t c) {
          record(ks, {a, b, c}, {kernelResult(kernel, ks.raw_repr())});
          return kernelResult(kernel, ks.raw_repr());
        });
      case 2:
        return F([record](DispatchKeySet ks) { record(ks, {}, {}); });
      case 3:
        return F([record](DispatchKeySet ks, const TensorList& a, double b, bool c) {
          record(ks, {a, b, c}, {int64_t{3}});
          return int64_t{3};
        });
      case 4:
        return F([record](DispatchKeySet ks, const OptionalTensor& a, const std::string& b) {
          record(ks, {a, b}, {a});
          return a;
        });
      case 5:
        return F([record](DispatchKeySet ks, const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d,
                          const Tensor& e, const Tensor& f) { record(ks, {a, b, c, d, e, f}, {}); });
      default:
        return F([record](DispatchKeySet ks, bool a, int64_t b, const TensorList& c, const OptionalTensor& d) {
          record(ks, {a, b, c, d}, {0.25});
          return 0.25;
        });
    }
  };
  return registerWith([&](Registration& reg) {
    F f = make().withDebug(kernel);
    reg.handle = dispatcher_.registerImpl(operatorName(op), key, std::move(f.kernel_), std::move(f.cpp_signature_),
                                          std::move(f.inferred_schema_), kernel);
  });
}

Stack buildStack(const std::vector<ValueSpec>& values, int64_t& next_tensor_id) {
  Stack stack;
  for (const ValueSpec& v : values) {
    switch (v.tag) {
      case Value::Tag::None: stack.emplace_back(); break;
      case Value::Tag::Bool: stack.emplace_back((v.number & 1) != 0); break;
      case Value::Tag::Int: stack.emplace_back(v.number); break;
      case Value::Tag::Double: stack.emplace_back(static_cast<double>(v.number) / 8); break;
      case Value::Tag::String: stack.emplace_back(std::string(static_cast<size_t>(v.number & 7), 's')); break;
      case Value::Tag::Tensor:
        stack.emplace_back(Tensor(DispatchKeySet(DispatchKeySet::RAW, v.tensors.at(0)), next_tensor_id++));
        break;
      case Value::Tag::TensorList: {
        std::vector<Tensor> tensors;
        for (uint64_t raw : v.tensors) tensors.emplace_back(DispatchKeySet(DispatchKeySet::RAW, raw), next_tensor_id++);
        stack.emplace_back(std::move(tensors));
        break;
      }
    }
  }
  return stack;
}

template <class L>
std::optional<std::string> OurDispatcherSut<L>::checkStackAfter(const Stack& before, const Stack& after,
                                                                const std::optional<FunctionSchema>& schema) const {
  if (runs_.size() != 1) return "a successful call ran " + std::to_string(runs_.size()) + " kernels";
  const KernelRun& run = runs_.back();
  if (run.args.size() > before.size()) return run.kernel + " popped more than the stack held";
  const size_t base = before.size() - run.args.size();
  for (size_t i = 0; i < run.args.size(); ++i) {
    if (!(run.args[i] == before[base + i])) {
      return run.kernel + " got argument " + std::to_string(i) + " = " + print(run.args[i]) + ", the stack held " +
             print(before[base + i]);
    }
  }
  if (after.size() != base + run.returns.size()) {
    return "the stack holds " + std::to_string(after.size()) + " values, expected " + std::to_string(base) +
           " untouched and " + std::to_string(run.returns.size()) + " returns";
  }
  for (size_t i = 0; i < base; ++i) {
    if (!(after[i] == before[i])) return "the call changed value " + std::to_string(i) + " below its arguments";
  }
  for (size_t i = 0; i < run.returns.size(); ++i) {
    if (!(after[base + i] == run.returns[i])) return "return " + std::to_string(i) + " is not what the kernel pushed";
    if (schema && (i >= schema->returns.size() || !fitsArgType(after[base + i], schema->returns[i]))) {
      return "return " + std::to_string(i) + " does not fit " + toString(*schema);
    }
  }
  return std::nullopt;
}

template <class L>
SutOutcome OurDispatcherSut<L>::callStack(const StackCall& call) {
  const auto handle = dispatcher_.findOp(operatorName(call.op));
  if (!handle) return {std::nullopt, model::ErrorKind::NotFound, false, "no operator " + opName(call.op)};
  const std::optional<FunctionSchema> schema =
      handle->hasSchema() ? std::optional<FunctionSchema>(handle->schema()) : std::nullopt;
  const Stack before = buildStack(call.stack, next_tensor_);
  Stack stack = before;
  runs_.clear();
  try {
    const CallWitness::Watch watch(witness_);
    IncludeDispatchKeyGuard include(DispatchKeySet(DispatchKeySet::RAW, call.include));
    ExcludeDispatchKeyGuard exclude(DispatchKeySet(DispatchKeySet::RAW, call.exclude));
    switch (call.kind) {
      case ActionKind::CallBoxed: handle->callBoxed(stack); break;
      case ActionKind::RedispatchBoxed:
        handle->redispatchBoxed(DispatchKeySet(DispatchKeySet::RAW, call.redispatch_keys), &stack);
        break;
      default: handle->callBoxedForDispatchKey(*call.key, &stack); break;
    }
  } catch (const InternalError&) {
    throw;  // a library bug, not an outcome
  } catch (const Error& e) {
    SutOutcome failed = errorOutcome(e);
    if (!(stack == before)) failed = {std::nullopt, std::nullopt, true, "a failed call changed the stack: " + failed.message};
    return failed;
  }
  if (auto broken = checkStackAfter(before, stack, schema)) return {std::nullopt, std::nullopt, true, *broken};
  SutOutcome outcome{kernelResult(runs_.back().kernel, runs_.back().keys), std::nullopt, false, ""};
  if (auto wrong = witness_.misreport(handle->operatorNameString(), callKindOf(call.kind), runs_.back().kernel,
                                      runs_.back().keys)) {
    outcome.misreported = *wrong;
  }
  return outcome;
}

#define DISPATCH_ORACLE_INSTANTIATE_DECLARED(L)                                                          \
  template SutOutcome OurDispatcherSut<L>::defineDeclared(int, bool);                                    \
  template SutOutcome OurDispatcherSut<L>::implementTyped(int, std::optional<DispatchKey>, int,          \
                                                          const std::string&);                           \
  template SutOutcome OurDispatcherSut<L>::callStack(const StackCall&);                                  \
  template BasicCppFunction<L> OurDispatcherSut<L>::declaredBoxedKernel(std::optional<int>, const std::string&); \
  template std::optional<std::string> OurDispatcherSut<L>::checkStackAfter(                              \
      const Stack&, const Stack&, const std::optional<FunctionSchema>&) const;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_INSTANTIATE_DECLARED)
#undef DISPATCH_ORACLE_INSTANTIATE_DECLARED

}  // namespace dispatch::oracle
