#include "c10_declared.h"

#include "c10_sut/c10_system.h"
#include "c10_support.h"

namespace dispatch::c10_sut {

namespace {

using oracle::DeclaredOp;

// A schema type as our ArgType (the declared schemas use no others).
ArgType argTypeOf(const c10::TypePtr& type) {
  const std::string t = type->str();
  if (t == "Tensor") return ArgType::Tensor;
  if (t == "Tensor?") return ArgType::OptionalTensor;
  if (t == "Tensor[]") return ArgType::TensorList;
  if (t == "int") return ArgType::Int;
  if (t == "float") return ArgType::Float;
  if (t == "bool") return ArgType::Bool;
  TORCH_CHECK(t == "str", "declared schemas use no type ", t);
  return ArgType::String;
}

bool fits(const c10::IValue& v, ArgType t) {
  switch (t) {
    case ArgType::Tensor: return v.isTensor();
    case ArgType::OptionalTensor: return v.isTensor() || v.isNone();
    case ArgType::TensorList: return v.isTensorList();
    case ArgType::Int: return v.isInt();
    case ArgType::Float: return v.isDouble();
    case ArgType::Bool: return v.isBool();
    case ArgType::String: return v.isString();
  }
  return false;
}

bool stackFits(const torch::jit::Stack& stack, const std::vector<ArgType>& types) {
  if (stack.size() < types.size()) return false;
  for (size_t i = 0, base = stack.size() - types.size(); i < types.size(); ++i) {
    if (!fits(stack[base + i], types[i])) return false;
  }
  return true;
}

// The same value: tensors by identity (their TensorImpl), the rest by payload.
bool sameValue(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() || b.isTensor()) {
    return a.isTensor() && b.isTensor() && a.toTensor().unsafeGetTensorImpl() == b.toTensor().unsafeGetTensorImpl();
  }
  if (a.isTensorList() || b.isTensorList()) {
    if (!a.isTensorList() || !b.isTensorList()) return false;
    const auto x = a.toTensorVector();
    const auto y = b.toTensorVector();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].unsafeGetTensorImpl() != y[i].unsafeGetTensorImpl()) return false;
    }
    return true;
  }
  if (a.isNone() || b.isNone()) return a.isNone() && b.isNone();
  if (a.isInt() || b.isInt()) return a.isInt() && b.isInt() && a.toInt() == b.toInt();
  if (a.isDouble() || b.isDouble()) return a.isDouble() && b.isDouble() && a.toDouble() == b.toDouble();
  if (a.isBool() || b.isBool()) return a.isBool() && b.isBool() && a.toBool() == b.toBool();
  return a.isString() && b.isString() && a.toStringRef() == b.toStringRef();
}

c10::IValue madeUpReturn(ArgType t, c10::DispatchKeySet ks, const std::string& kernel) {
  switch (t) {
    case ArgType::Tensor: return tensorWithKeys(ks);
    case ArgType::OptionalTensor: return c10::IValue();
    case ArgType::TensorList: return c10::List<at::Tensor>();
    case ArgType::Int: return static_cast<int64_t>(kernel.size());
    case ArgType::Float: return 0.5;
    case ArgType::Bool: return true;
    case ArgType::String: return kernel;
  }
  return c10::IValue();
}

c10::IValue placeholder(ArgType t) {
  switch (t) {
    case ArgType::Tensor: return tensorWithKeys(0);
    case ArgType::TensorList: return c10::List<at::Tensor>();
    case ArgType::Int: return int64_t{0};
    case ArgType::Float: return 0.0;
    case ArgType::Bool: return false;
    case ArgType::String: return std::string();
    case ArgType::OptionalTensor: break;
  }
  return c10::IValue();
}

class DeclaredBoxedKernel final : public c10::OperatorKernel {
 public:
  DeclaredBoxedKernel(std::string name, std::optional<DeclaredOp> own, KernelRuns* runs)
      : name_(std::move(name)), own_(std::move(own)), runs_(runs) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
    std::vector<ArgType> args;
    std::vector<ArgType> returns;
    if (op.hasSchema()) {
      for (const auto& arg : op.schema().arguments()) args.push_back(argTypeOf(arg.type()));
      for (const auto& ret : op.schema().returns()) returns.push_back(argTypeOf(ret.type()));
    } else if (own_) {
      args = own_->own_args;
      returns = own_->own_returns;
    }
    TORCH_CHECK(stackFits(*stack, args), "boxed kernel ", name_, ": the stack does not fit");
    KernelRun run{name_, ks, {}, {}};
    const auto base = static_cast<std::ptrdiff_t>(stack->size() - args.size());
    run.args.assign(stack->begin() + base, stack->end());
    stack->erase(stack->begin() + base, stack->end());
    for (ArgType t : returns) {
      stack->push_back(madeUpReturn(t, ks, name_));
      run.returns.push_back(stack->back());
    }
    runs_->push_back(std::move(run));
  }

 private:
  std::string name_;
  std::optional<DeclaredOp> own_;
  KernelRuns* runs_;
};

}  // namespace

c10::OperatorName c10DeclaredName(const OperatorName& name) {
  const std::string prefix = std::string(oracle::kDeclaredNamespace) + "::";
  std::string n = name.name;
  if (n.starts_with(prefix)) n = std::string(kNamespace) + "::" + n.substr(prefix.size());
  return c10::OperatorName(n, name.overload_name);
}

std::string c10DeclaredSchema(const DeclaredOp& op) {
  const std::string text = toString(op.schema.value());
  return c10::toString(c10DeclaredName(op.name)) + text.substr(toString(op.name).size());
}

torch::CppFunction declaredBoxedKernel(const std::string& name, std::optional<DeclaredOp> own, KernelRuns* runs) {
  return torch::CppFunction::makeFromBoxedFunctor(std::make_unique<DeclaredBoxedKernel>(name, std::move(own), runs))
      .debug(name);
}

c10::KernelFunction declaredBoxedFallback(const std::string& name, KernelRuns* runs) {
  return c10::KernelFunction::makeFromBoxedFunctor(std::make_unique<DeclaredBoxedKernel>(name, std::nullopt, runs));
}

torch::CppFunction typedKernel(int signature, const std::string& name, KernelRuns* runs) {
  using Tensor = at::Tensor;
  using OptionalTensor = c10::optional<at::Tensor>;
  using Keys = c10::DispatchKeySet;
  auto record = [runs, name](Keys ks, std::vector<c10::IValue> args, std::vector<c10::IValue> returns) {
    runs->push_back({name, ks, std::move(args), std::move(returns)});
  };
  switch (signature) {  // oracle::typedSignatures(), in order
    case 0:
      return torch::CppFunction([record](Keys ks, const Tensor& a) {
        Tensor result = tensorWithKeys(ks);
        record(ks, {a}, {result});
        return result;
      });
    case 1:
      return torch::CppFunction([record, name](Keys ks, const Tensor& a, const OptionalTensor& b, int64_t c) {
        std::string result = c10KernelResult(name, ks);
        record(ks, {a, b, c}, {result});
        return result;
      });
    case 2:
      return torch::CppFunction([record](Keys ks) { record(ks, {}, {}); });
    case 3:
      return torch::CppFunction([record](Keys ks, at::TensorList a, double b, bool c) {
        record(ks, {a.vec(), b, c}, {int64_t{3}});
        return int64_t{3};
      });
    case 4:
      return torch::CppFunction([record](Keys ks, const OptionalTensor& a, c10::string_view b) {
        record(ks, {a, std::string(b)}, {a});
        return a;
      });
    case 5:
      return torch::CppFunction([record](Keys ks, const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d,
                                         const Tensor& e, const Tensor& f) { record(ks, {a, b, c, d, e, f}, {}); });
    default:
      return torch::CppFunction([record](Keys ks, bool a, int64_t b, at::TensorList c, const OptionalTensor& d) {
        record(ks, {a, b, c.vec(), d}, {0.25});
        return 0.25;
      });
  }
}

torch::jit::Stack buildStack(const std::vector<oracle::ValueSpec>& values) {
  torch::jit::Stack stack;
  for (const oracle::ValueSpec& v : values) {
    switch (v.tag) {
      case Value::Tag::None: stack.emplace_back(); break;
      case Value::Tag::Bool: stack.emplace_back((v.number & 1) != 0); break;
      case Value::Tag::Int: stack.emplace_back(v.number); break;
      case Value::Tag::Double: stack.emplace_back(static_cast<double>(v.number) / 8); break;
      case Value::Tag::String: stack.emplace_back(std::string(static_cast<size_t>(v.number & 7), 's')); break;
      case Value::Tag::Tensor: stack.emplace_back(tensorWithKeys(v.tensors.at(0))); break;
      case Value::Tag::TensorList: {
        c10::List<at::Tensor> tensors;
        for (uint64_t raw : v.tensors) tensors.push_back(tensorWithKeys(raw));
        stack.emplace_back(std::move(tensors));
        break;
      }
    }
  }
  return stack;
}

torch::jit::Stack fittingStack(const std::vector<ArgType>& types) {
  torch::jit::Stack stack;
  for (ArgType t : types) stack.push_back(placeholder(t));
  return stack;
}

std::optional<std::string> checkStackAfter(const torch::jit::Stack& before, const torch::jit::Stack& after,
                                           const KernelRuns& runs,
                                           const std::optional<std::vector<ArgType>>& schema_returns) {
  if (runs.size() != 1) return "a successful call ran " + std::to_string(runs.size()) + " kernels";
  const KernelRun& run = runs.back();
  if (run.args.size() > before.size()) return run.kernel + " popped more than the stack held";
  const size_t base = before.size() - run.args.size();
  for (size_t i = 0; i < run.args.size(); ++i) {
    if (!sameValue(run.args[i], before[base + i])) {
      return run.kernel + " got argument " + std::to_string(i) + " = " + run.args[i].tagKind() + ", not the stack's " +
             before[base + i].tagKind();
    }
  }
  if (after.size() != base + run.returns.size()) {
    return "the stack holds " + std::to_string(after.size()) + " values, expected " + std::to_string(base) +
           " untouched and " + std::to_string(run.returns.size()) + " returns";
  }
  for (size_t i = 0; i < base; ++i) {
    if (!sameValue(after[i], before[i])) return "the call changed value " + std::to_string(i) + " below its arguments";
  }
  for (size_t i = 0; i < run.returns.size(); ++i) {
    if (!sameValue(after[base + i], run.returns[i])) return "return " + std::to_string(i) + " is not what the kernel pushed";
    if (schema_returns && (i >= schema_returns->size() || !fits(after[base + i], (*schema_returns)[i]))) {
      return "return " + std::to_string(i) + " does not fit the schema";
    }
  }
  return std::nullopt;
}

}  // namespace dispatch::c10_sut
