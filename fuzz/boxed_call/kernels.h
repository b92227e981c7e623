#pragma once
// boxed_call_fuzzer's kernels: typed kernels of a fixed set of C++ signatures and boxed kernels
// that pop a schema's arguments and push its returns, all recording what they saw (Recorder),
// and the stack-shape helpers the checks share.

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "oracle/actions/action.h"
#include "oracle/actions/names.h"

namespace dispatch::fuzz::boxed_call {

using oracle::hex;

// --- typed kernels: a fixed set of C++ signatures (each takes the key set first) ---------------

// Signature N is oracle::typedSignatures()[N] (the vocabulary names them; the kernels are here).
inline const std::vector<oracle::TypedSignature>& kTypedSignatures = oracle::typedSignatures();

// What the kernels of one input saw: filled by the kernels themselves.
struct Event {
  std::string kernel;
  uint64_t keys = 0;
  std::vector<Value> args;     // the arguments it popped, in order
  std::vector<Value> returns;  // what it pushed, in order
};
struct Recorder {
  std::vector<Event> events;
  int64_t next_id = 1000;
};

template <class L>
BasicCppFunction<L> makeTypedKernel(int signature, const std::string& name, Recorder* rec) {
  using F = BasicCppFunction<L>;
  auto record = [rec, name](DispatchKeySet ks, std::vector<Value> args, std::vector<Value> returns) {
    rec->events.push_back(Event{name, ks.raw_repr(), std::move(args), std::move(returns)});
  };
  switch (signature) {
    case 0:
      return F([record, rec](DispatchKeySet ks, const Tensor& a) {
        const Tensor result(a.key_set(), rec->next_id++);
        record(ks, {Value(a)}, {Value(result)});
        return result;
      });
    case 1:
      return F([record, name](DispatchKeySet ks, const Tensor& a, const std::optional<Tensor>& b, int64_t c) {
        std::string result = name + "@" + hex(ks.raw_repr());
        record(ks, {Value(a), Value(b), Value(c)}, {Value(result)});
        return result;
      });
    case 2:
      return F([record](DispatchKeySet ks) { record(ks, {}, {}); });
    case 3:
      return F([record](DispatchKeySet ks, const std::vector<Tensor>& a, double b, bool c) {
        const auto result = static_cast<int64_t>(a.size()) + (c ? 100 : 0) + static_cast<int64_t>(b);
        record(ks, {Value(a), Value(b), Value(c)}, {Value(result)});
        return result;
      });
    case 4:
      return F([record](DispatchKeySet ks, const std::optional<Tensor>& a, const std::string& b) {
        const std::optional<Tensor> result = b.empty() ? std::nullopt : a;
        record(ks, {Value(a), Value(b)}, {Value(result)});
        return result;
      });
    case 5:
      return F([record](DispatchKeySet ks, const Tensor& a, const Tensor& b, const Tensor& c,
                        const Tensor& d, const Tensor& e, const Tensor& f) {
        record(ks, {Value(a), Value(b), Value(c), Value(d), Value(e), Value(f)}, {});
      });
    default:
      return F([record](DispatchKeySet ks, bool a, int64_t b, const std::vector<Tensor>& c,
                        const std::optional<Tensor>& d) {
        const double result = static_cast<double>(b % 1000) + (a ? 0.5 : 0.25);
        record(ks, {Value(a), Value(b), Value(c), Value(d)}, {Value(result)});
        return result;
      });
  }
}

// The last types.size() entries of the stack fit types.
inline bool stackFits(const Stack& stack, const std::vector<ArgType>& types) {
  if (stack.size() < types.size()) return false;
  const size_t base = stack.size() - types.size();
  for (size_t i = 0; i < types.size(); ++i) {
    if (!fitsArgType(stack[base + i], types[i])) return false;
  }
  return true;
}

// A value of kind t, made up deterministically by a kernel.
inline Value makeReturn(ArgType t, DispatchKeySet ks, Recorder* rec, const std::string& name) {
  const int64_t id = rec->next_id++;
  switch (t) {
    case ArgType::Tensor: return Value(Tensor(ks, id));
    case ArgType::OptionalTensor: return id % 2 ? Value() : Value(Tensor(ks, id));
    case ArgType::TensorList: return Value(std::vector<Tensor>(static_cast<size_t>(id % 3), Tensor(ks, id)));
    case ArgType::Int: return Value(id);
    case ArgType::Float: return Value(static_cast<double>(id) / 4);
    case ArgType::Bool: return Value(id % 2 == 0);
    case ArgType::String: return Value(name);
  }
  return Value();
}

inline std::vector<ArgType> argTypesOf(const FunctionSchema& s) {
  std::vector<ArgType> types;
  for (const Argument& a : s.arguments) types.push_back(a.type);
  return types;
}

// A boxed kernel as real code writes one: pops the schema's arguments (or, on an operator
// without a schema, the arguments it was written for) and pushes the schema's returns.
// A fallback knows no signature of its own: without a schema it takes and gives nothing.
template <class L>
BasicCppFunction<L> makeBoxedKernel(const std::string& name, Recorder* rec,
                                    std::optional<std::vector<ArgType>> own_args,
                                    std::vector<ArgType> own_returns) {
  return BasicCppFunction<L>::makeFromBoxedLambda(
             [name, rec, own_args, own_returns](const BasicOperatorHandle<L>& op, DispatchKeySet ks,
                                                Stack* stack) {
               std::vector<ArgType> args;
               std::vector<ArgType> returns;
               if (op.hasSchema()) {
                 args = argTypesOf(op.schema());
                 returns = op.schema().returns;
               } else if (own_args) {
                 args = *own_args;
                 returns = own_returns;
               }
               if (!stackFits(*stack, args)) {
                 throw BoxedCallError("boxed kernel " + name + ": the stack does not fit its arguments");
               }
               Event e{name, ks.raw_repr(), {}, {}};
               const auto base = static_cast<std::ptrdiff_t>(stack->size() - args.size());
               e.args.assign(stack->begin() + base, stack->end());
               stack->erase(stack->begin() + base, stack->end());
               for (ArgType t : returns) {
                 stack->push_back(makeReturn(t, ks, rec, name));
                 e.returns.push_back(stack->back());
               }
               rec->events.push_back(std::move(e));
             })
      .withDebug(name);
}

}  // namespace dispatch::fuzz::boxed_call
