// The boxed calling convention under random schemas and random stacks (spec 4.2, 4.9, 5.4-5.6).
// Bytes decode into up to three operator schemas (built from 0-6 arguments of Tensor, Tensor?,
// Tensor[], int, float, bool, str and 0-1 returns; or the schema of a typed kernel; or schema
// text, reformatted or mutated, which parseSchema must either accept or refuse with SchemaError)
// and a short program: defs (direct or through a library's schema text), impls with boxed, typed
// and fallthrough kernels, backend fallbacks, the start-up fallbacks, drops, and boxed calls
// (callBoxed, redispatchBoxed, callBoxedForDispatchKey) on stacks of any arity and kinds, under
// random thread-local include/exclude sets. Each program runs on a fresh full and a fresh mobile
// dispatcher, mirrored into the model (dispatch::model::ModelDispatcher). Checked:
//   * every failure is a clean dispatch::Error of the expected class (BoxedCallError for stack
//     problems, NotImplementedError / AmbiguousAutogradOtherError for missing kernels,
//     InvalidKeyError for bad keys, SchemaError for bad schemas); never InternalError, never
//     anything else; a failed call leaves the stack as it was;
//   * a successful call runs exactly the kernel the model names, with the key set the model
//     computes, hands it the stack's arguments unchanged, and leaves exactly the schema's returns
//     (of the schema's types) on top of the untouched rest of the stack;
//   * registrations succeed or fail as in the model; checkInvariants holds at the end.
// No global state survives an input: fresh dispatchers, TLS guards scoped to each call.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/startup_fallbacks.h"
#include "harness/fuzz_target.h"
#include "oracle/cell_recorder.h"
#include "oracle/layout_flavour.h"
#include "oracle/model.h"
#include "oracle/model_actions.h"
#include "oracle/names.h"
#include "oracle/step_log.h"

namespace {

using namespace dispatch;  // NOLINT(google-build-using-namespace): a fuzz target's own file
namespace m = dispatch::model;
using dispatch::oracle::CellRecorder;
using dispatch::oracle::hex;
using dispatch::oracle::keyName;
using dispatch::oracle::keySetName;
using dispatch::oracle::traceSteps;

constexpr const char* kTarget = "boxed_call_fuzzer";
constexpr int kNumOps = 3;
constexpr size_t kMaxActions = 40;  // bounded work per input (harness-notes B1)
constexpr size_t kMaxArgs = 6;
constexpr std::string_view kNamespace = "bx";

std::string quote(std::string_view text) {
  std::ostringstream out;
  out << '"';
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (u < 0x20 || u >= 0x7f) {
      out << "\\x" << std::hex << std::setw(2) << std::setfill('0') << int{u} << std::dec;
    } else {
      out << c;
    }
  }
  return out.str() + '"';
}

constexpr ArgType kAllTypes[] = {ArgType::Tensor, ArgType::OptionalTensor, ArgType::TensorList,
                                 ArgType::Int,    ArgType::Float,          ArgType::Bool,
                                 ArgType::String};

// --- typed kernels: a fixed set of C++ signatures (each takes the key set first) ---------------

struct TypedSignature {
  const char* cpp;
  std::vector<ArgType> args;
  std::vector<ArgType> returns;
};

const TypedSignature kTypedSignatures[] = {
    {"Tensor(Tensor)", {ArgType::Tensor}, {ArgType::Tensor}},
    {"str(Tensor, Tensor?, int)", {ArgType::Tensor, ArgType::OptionalTensor, ArgType::Int}, {ArgType::String}},
    {"void()", {}, {}},
    {"int(Tensor[], float, bool)", {ArgType::TensorList, ArgType::Float, ArgType::Bool}, {ArgType::Int}},
    {"Tensor?(Tensor?, str)", {ArgType::OptionalTensor, ArgType::String}, {ArgType::OptionalTensor}},
    {"void(Tensor x6)",
     {ArgType::Tensor, ArgType::Tensor, ArgType::Tensor, ArgType::Tensor, ArgType::Tensor, ArgType::Tensor},
     {}},
    {"float(bool, int, Tensor[], Tensor?)",
     {ArgType::Bool, ArgType::Int, ArgType::TensorList, ArgType::OptionalTensor},
     {ArgType::Float}},
};
constexpr int kNumTypedSignatures = static_cast<int>(std::size(kTypedSignatures));

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

bool fits(const Value& v, ArgType t) {
  switch (t) {
    case ArgType::Tensor: return v.isTensor();
    case ArgType::OptionalTensor: return v.isNone() || v.isTensor();
    case ArgType::TensorList: return v.isTensorList();
    case ArgType::Int: return v.isInt();
    case ArgType::Float: return v.isDouble();
    case ArgType::Bool: return v.isBool();
    case ArgType::String: return v.isString();
  }
  return false;
}

// The last types.size() entries of the stack fit types.
bool stackFits(const Stack& stack, const std::vector<ArgType>& types) {
  if (stack.size() < types.size()) return false;
  const size_t base = stack.size() - types.size();
  for (size_t i = 0; i < types.size(); ++i) {
    if (!fits(stack[base + i], types[i])) return false;
  }
  return true;
}

// A value of kind t, made up deterministically by a kernel.
Value makeReturn(ArgType t, DispatchKeySet ks, Recorder* rec, const std::string& name) {
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

std::vector<ArgType> argTypesOf(const FunctionSchema& s) {
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

// --- the input: schemas and actions ------------------------------------------------------------

enum class SchemaMode : uint8_t { Generated, Typed, Text };

struct OpSpec {
  SchemaMode mode = SchemaMode::Generated;
  OperatorName name;
  std::vector<ArgType> args;     // as built (before any text mutation)
  std::vector<ArgType> returns;
  int typed = 0;                 // SchemaMode::Typed: the signature
  std::string text;              // schema text (formatted, maybe without namespace, maybe mutated)
  bool mutated = false;
};

enum class ActionKind : uint8_t {
  Def,                 // registerDef(built schema, or the parse of the text)
  DefLibrary,          // Library(FRAGMENT, "bx").def(text)
  ImplBoxed,           // registerImpl(op, key, boxed kernel)
  ImplTyped,           // registerImpl(op, key, typed kernel of some signature)
  ImplFallthrough,     // registerImpl(op, key, fallthrough)
  Fallback,            // registerFallback(key, boxed fallback)
  FallthroughFallback, // registerFallback(key, fallthrough)
  StartupFallbacks,    // registerStartupFallbacks
  Drop,                // undo one earlier registration
  CallBoxed,           // op.callBoxed(stack)
  Redispatch,          // op.redispatchBoxed(keys, stack)
  CallForKey,          // op.callBoxedForDispatchKey(key, stack)
  kCount,
};

struct ValueSpec {
  Value::Tag tag = Value::Tag::None;
  std::vector<uint64_t> tensors;  // Tensor: one key set; TensorList: any number
  int64_t number = 0;             // Int, Double (number / 8), Bool (number & 1), String (length)
};

struct Action {
  ActionKind kind = ActionKind::Def;
  int op = 0;
  std::optional<DispatchKey> key;
  int typed = 0;
  uint32_t handle = 0;
  std::vector<ValueSpec> stack;
  std::string stack_how;  // how the stack was shaped ("fits", "drop 2", ...)
  uint64_t keys = 0;      // Redispatch
  std::optional<uint64_t> include;
  std::optional<uint64_t> exclude;
};

struct Program {
  std::vector<OpSpec> ops;
  std::vector<Action> actions;
};

ArgType consumeType(FuzzedDataProvider& in) {
  return kAllTypes[in.ConsumeIntegralInRange<size_t>(0, std::size(kAllTypes) - 1)];
}

std::string spaces(FuzzedDataProvider& in, bool loose) {
  if (!loose) return "";
  static constexpr const char* kSpaces[] = {"", " ", "  ", "\t", " \n "};
  return kSpaces[in.ConsumeIntegralInRange<size_t>(0, std::size(kSpaces) - 1)];
}

// Valid schema text for a spec, in one of several spellings that all parse to the same schema.
std::string formatSchema(FuzzedDataProvider& in, const OpSpec& spec, bool& has_namespace) {
  const bool loose = in.ConsumeBool();
  has_namespace = in.ConsumeIntegralInRange<int>(0, 3) != 0;
  std::string text = spaces(in, loose);
  std::string op_name = spec.name.name;
  if (!has_namespace) op_name = op_name.substr(kNamespace.size() + 2);
  text += op_name;
  if (!spec.name.overload_name.empty()) text += "." + spec.name.overload_name;
  text += spaces(in, loose) + "(";
  for (size_t i = 0; i < spec.args.size(); ++i) {
    if (i) text += spaces(in, loose) + ",";
    text += spaces(in, loose) + std::string(toString(spec.args[i])) + " " + spaces(in, loose) + "a" +
            std::to_string(i);
  }
  text += spaces(in, loose) + ")" + spaces(in, loose) + "->" + spaces(in, loose);
  const bool name_return = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  if (spec.returns.size() == 1 && in.ConsumeBool()) {
    text += std::string(toString(spec.returns[0])) + (name_return ? " out" : "");
  } else {
    text += "(";
    for (size_t i = 0; i < spec.returns.size(); ++i) {
      text += (i ? "," + spaces(in, loose) : "") + std::string(toString(spec.returns[i])) +
              (name_return ? " r" + std::to_string(i) : "");
    }
    text += ")";
  }
  return text + spaces(in, loose);
}

void mutateText(FuzzedDataProvider& in, std::string& text) {
  static constexpr std::string_view kAlphabet = " ()[]?,:.->_aTintfloatboolstrTensor0\t";
  static constexpr const char* kTokens[] = {"Tensor", "Tensor?", "Tensor[]", "int", "float", "bool",
                                            "str", "->", "::", "(", ")", ",", "?", "[]", "()",
                                            "int[]", "x.y", "Tensor?[]", "\x80", ""};
  const int n = in.ConsumeIntegralInRange<int>(1, 3);
  for (int i = 0; i < n; ++i) {
    const size_t pos = text.empty() ? 0 : in.ConsumeIntegralInRange<size_t>(0, text.size());
    switch (in.ConsumeIntegralInRange<int>(0, 5)) {
      case 0:
        if (pos < text.size()) text.erase(pos, 1);
        break;
      case 1:
        text.insert(pos, 1, kAlphabet[in.ConsumeIntegralInRange<size_t>(0, kAlphabet.size() - 1)]);
        break;
      case 2:
        if (pos < text.size()) text[pos] = static_cast<char>(in.ConsumeIntegral<uint8_t>());
        break;
      case 3:
        text.insert(pos, kTokens[in.ConsumeIntegralInRange<size_t>(0, std::size(kTokens) - 1)]);
        break;
      case 4:
        text.resize(pos);
        break;
      default: {
        const size_t len = in.ConsumeIntegralInRange<size_t>(0, 12);
        const std::string span = text.substr(pos, len);
        text.insert(pos, span);
        break;
      }
    }
  }
}

OpSpec consumeOpSpec(FuzzedDataProvider& in, int index) {
  OpSpec spec;
  spec.name.name = std::string(kNamespace) + "::op" + std::to_string(index);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) spec.name.overload_name = "ov";
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
    case 1:
      spec.mode = SchemaMode::Typed;
      break;
    case 2:
      spec.mode = SchemaMode::Text;
      break;
    default:
      spec.mode = SchemaMode::Generated;
      break;
  }
  if (spec.mode == SchemaMode::Typed) {
    spec.typed = in.ConsumeIntegralInRange<int>(0, kNumTypedSignatures - 1);
    spec.args = kTypedSignatures[spec.typed].args;
    spec.returns = kTypedSignatures[spec.typed].returns;
  } else {
    const size_t n = in.ConsumeIntegralInRange<size_t>(0, kMaxArgs);
    for (size_t i = 0; i < n; ++i) spec.args.push_back(consumeType(in));
    if (in.ConsumeBool()) spec.returns.push_back(consumeType(in));
  }
  bool has_namespace = true;
  spec.text = formatSchema(in, spec, has_namespace);
  if (spec.mode == SchemaMode::Text) {
    mutateText(in, spec.text);
    spec.mutated = true;
  }
  return spec;
}

// Tensors: mostly realistic key sets (spec 5.5), then unions of keys, raw patterns, undefined.
uint64_t consumeTensorKeys(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return in.ConsumeIntegral<uint64_t>();
    case 1:
      return 0;  // an undefined tensor
    case 2: {
      DispatchKeySet ks;
      const int n = in.ConsumeIntegralInRange<int>(1, 3);
      for (int i = 0; i < n; ++i) {
        ks = ks.add(static_cast<DispatchKey>(
            in.ConsumeIntegralInRange<uint16_t>(0, toUnderlying(DispatchKey::EndOfAliasKeys))));
      }
      return ks.raw_repr();
    }
    default: {
      const auto kind = static_cast<TensorKind>(in.ConsumeIntegralInRange<int>(0, 3));
      const auto b = in.ConsumeIntegralInRange<int>(0, 3) == 0
                         ? static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends))
                         : (in.ConsumeBool() ? BackendComponent::CPUBit : BackendComponent::CUDABit);
      const bool inference = in.ConsumeIntegralInRange<int>(0, 4) == 0;
      return tensorKeySet(kind, b, false, inference).raw_repr();
    }
  }
}

ValueSpec consumeValueOfTag(FuzzedDataProvider& in, Value::Tag tag) {
  ValueSpec v;
  v.tag = tag;
  switch (tag) {
    case Value::Tag::Tensor:
      v.tensors.push_back(consumeTensorKeys(in));
      break;
    case Value::Tag::TensorList: {
      const int n = in.ConsumeIntegralInRange<int>(0, 3);  // empty lists too
      for (int i = 0; i < n; ++i) v.tensors.push_back(consumeTensorKeys(in));
      break;
    }
    case Value::Tag::None:
      break;
    default:
      v.number = in.ConsumeIntegralInRange<int64_t>(-1000, 1000);
      break;
  }
  return v;
}

Value::Tag fittingTag(FuzzedDataProvider& in, ArgType t) {
  switch (t) {
    case ArgType::Tensor: return Value::Tag::Tensor;
    case ArgType::OptionalTensor: return in.ConsumeIntegralInRange<int>(0, 2) == 0 ? Value::Tag::None : Value::Tag::Tensor;
    case ArgType::TensorList: return Value::Tag::TensorList;
    case ArgType::Int: return Value::Tag::Int;
    case ArgType::Float: return Value::Tag::Double;
    case ArgType::Bool: return Value::Tag::Bool;
    case ArgType::String: return Value::Tag::String;
  }
  return Value::Tag::None;
}

Value::Tag anyTag(FuzzedDataProvider& in) {
  return static_cast<Value::Tag>(in.ConsumeIntegralInRange<int>(0, 6));
}

// A stack for arguments of `types`: fitting, with a wrong kind or None somewhere, too short,
// too long, or with values below the arguments.
void consumeStack(FuzzedDataProvider& in, const std::vector<ArgType>& types, Action& a) {
  std::vector<ValueSpec> args;
  std::ostringstream how;
  for (ArgType t : types) args.push_back(consumeValueOfTag(in, fittingTag(in, t)));
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: {  // a wrong kind
      if (args.empty()) break;
      const size_t i = in.ConsumeIntegralInRange<size_t>(0, args.size() - 1);
      args[i] = consumeValueOfTag(in, anyTag(in));
      how << "arg " << i << " any kind";
      break;
    }
    case 1: {  // None where it may not be allowed
      if (args.empty()) break;
      const size_t i = in.ConsumeIntegralInRange<size_t>(0, args.size() - 1);
      args[i] = ValueSpec{};
      how << "arg " << i << " None";
      break;
    }
    case 2: {  // too few
      if (args.empty()) break;
      const size_t n = in.ConsumeIntegralInRange<size_t>(1, args.size());
      args.resize(args.size() - n);
      how << "drop " << n;
      break;
    }
    case 3: {  // too many (the arguments window shifts)
      const int n = in.ConsumeIntegralInRange<int>(1, 2);
      for (int i = 0; i < n; ++i) args.push_back(consumeValueOfTag(in, anyTag(in)));
      how << "extra " << n << " on top";
      break;
    }
    case 4:
    case 5: {  // values below the arguments: they must survive the call untouched
      const int n = in.ConsumeIntegralInRange<int>(1, 2);
      for (int i = 0; i < n; ++i) a.stack.push_back(consumeValueOfTag(in, anyTag(in)));
      how << n << " below";
      break;
    }
    default:
      how << "fits";
      break;
  }
  a.stack.insert(a.stack.end(), args.begin(), args.end());
  a.stack_how = how.str();
}

std::optional<DispatchKey> consumeImplKey(FuzzedDataProvider& in) {
  static constexpr DispatchKey kCommon[] = {
      DispatchKey::CPU,           DispatchKey::CUDA,           DispatchKey::AutogradCPU,
      DispatchKey::AutogradCUDA,  DispatchKey::AutogradOther,  DispatchKey::QuantizedCPU,
      DispatchKey::SparseCPU,     DispatchKey::ADInplaceOrView, DispatchKey::BackendSelect,
      DispatchKey::Meta,          DispatchKey::NestedTensorCPU, DispatchKey::AutogradNestedTensor,
      DispatchKey::AutocastCPU,   DispatchKey::Python,         DispatchKey::Named,
      DispatchKey::FPGA,
  };
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
    case 1:
      return std::nullopt;  // catch-all
    case 2:
    case 3: {
      const auto& aliases = m::aliasKeys();
      return aliases[in.ConsumeIntegralInRange<size_t>(0, aliases.size() - 1)];
    }
    case 4:
      return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
    case 5:
    case 6:
      return static_cast<DispatchKey>(
          in.ConsumeIntegralInRange<uint16_t>(0, toUnderlying(DispatchKey::EndOfAliasKeys)));
    default:
      return kCommon[in.ConsumeIntegralInRange<size_t>(0, std::size(kCommon) - 1)];
  }
}

ActionKind consumeActionKind(FuzzedDataProvider& in) {
  //                            Def DefL Boxed Typed FT  Fb FtFb Start Drop Call Redisp ForKey
  static constexpr int kWeights[] = {6, 3, 8, 6, 2, 4, 2, 1, 3, 14, 5, 6};
  static_assert(std::size(kWeights) == static_cast<size_t>(ActionKind::kCount));
  int total = 0;
  for (int w : kWeights) total += w;
  int roll = in.ConsumeIntegral<uint8_t>() % total;
  for (size_t i = 0; i < std::size(kWeights); ++i) {
    roll -= kWeights[i];
    if (roll < 0) return static_cast<ActionKind>(i);
  }
  return ActionKind::Def;
}

// The argument types a stack for op is built for: the parsed text's if it parses, else the spec's.
std::vector<ArgType> intendedArgs(const OpSpec& spec) {
  if (spec.mode == SchemaMode::Text) {
    try {
      return argTypesOf(parseSchema(spec.text, kNamespace));
    } catch (...) {  // judged when the program runs; here only the shape of stacks depends on it
    }
  }
  return spec.args;
}

Program decode(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Program p;
  for (int i = 0; i < kNumOps; ++i) p.ops.push_back(consumeOpSpec(in, i));
  std::vector<std::vector<ArgType>> intended;
  for (const OpSpec& spec : p.ops) intended.push_back(intendedArgs(spec));
  while (in.remaining_bytes() > 0 && p.actions.size() < kMaxActions) {
    Action a;
    a.kind = consumeActionKind(in);
    a.op = in.ConsumeIntegralInRange<int>(0, kNumOps - 1);
    switch (a.kind) {
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough:
        a.key = consumeImplKey(in);
        break;
      case ActionKind::ImplTyped:
        a.key = consumeImplKey(in);
        a.typed = p.ops[static_cast<size_t>(a.op)].mode == SchemaMode::Typed && in.ConsumeIntegralInRange<int>(0, 3) != 0
                      ? p.ops[static_cast<size_t>(a.op)].typed
                      : in.ConsumeIntegralInRange<int>(0, kNumTypedSignatures - 1);
        break;
      case ActionKind::Fallback:
      case ActionKind::FallthroughFallback:
        a.key = consumeImplKey(in).value_or(DispatchKey::CPU);
        break;
      case ActionKind::Drop:
        a.handle = in.ConsumeIntegral<uint8_t>();
        break;
      case ActionKind::CallBoxed:
      case ActionKind::Redispatch:
      case ActionKind::CallForKey: {
        if (a.kind == ActionKind::Redispatch) a.keys = consumeTensorKeys(in);
        if (a.kind == ActionKind::CallForKey) a.key = consumeImplKey(in).value_or(DispatchKey::CompositeImplicitAutograd);
        consumeStack(in, intended[static_cast<size_t>(a.op)], a);
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
          a.include = DispatchKeySet(static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(
                                         0, toUnderlying(DispatchKey::EndOfAliasKeys))))
                          .raw_repr();
        }
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
          a.exclude = in.ConsumeBool() ? autograd_dispatch_keyset.raw_repr() : consumeTensorKeys(in);
        }
        break;
      }
      default:
        break;
    }
    p.actions.push_back(std::move(a));
  }
  return p;
}

// --- printing ------------------------------------------------------------------------------------

std::string_view toString(ActionKind k) {
  switch (k) {
    case ActionKind::Def: return "def";
    case ActionKind::DefLibrary: return "library def";
    case ActionKind::ImplBoxed: return "impl boxed";
    case ActionKind::ImplTyped: return "impl typed";
    case ActionKind::ImplFallthrough: return "impl fallthrough";
    case ActionKind::Fallback: return "registerFallback";
    case ActionKind::FallthroughFallback: return "registerFallback fallthrough";
    case ActionKind::StartupFallbacks: return "startup fallbacks";
    case ActionKind::Drop: return "drop";
    case ActionKind::CallBoxed: return "callBoxed";
    case ActionKind::Redispatch: return "redispatchBoxed";
    case ActionKind::CallForKey: return "callBoxedForDispatchKey";
    case ActionKind::kCount: break;
  }
  return "?";
}

std::string describe(const ValueSpec& v) {
  std::ostringstream out;
  switch (v.tag) {
    case Value::Tag::None: out << "None"; break;
    case Value::Tag::Bool: out << ((v.number & 1) ? "true" : "false"); break;
    case Value::Tag::Int: out << v.number; break;
    case Value::Tag::Double: out << static_cast<double>(v.number) / 8; break;
    case Value::Tag::String: out << "str[" << (v.number & 7) << "]"; break;
    case Value::Tag::Tensor: out << "Tensor" << keySetName(v.tensors[0]); break;
    case Value::Tag::TensorList:
      out << "[";
      for (size_t i = 0; i < v.tensors.size(); ++i) out << (i ? ", " : "") << "Tensor" << keySetName(v.tensors[i]);
      out << "]";
      break;
  }
  return out.str();
}

std::string describe(const OpSpec& s) {
  std::ostringstream out;
  out << (s.mode == SchemaMode::Typed ? "typed schema " : s.mode == SchemaMode::Text ? "mutated text " : "schema ")
      << quote(s.text);
  if (s.mode == SchemaMode::Typed) out << " (signature " << kTypedSignatures[s.typed].cpp << ")";
  return out.str();
}

std::string opLabel(const Program& p, int op) { return "op" + std::to_string(op) + "=" + toString(p.ops[static_cast<size_t>(op)].name); }

std::string describe(const Program& p, const Action& a) {
  std::ostringstream out;
  out << toString(a.kind);
  auto key = [](std::optional<DispatchKey> k) { return k ? keyName(*k) : std::string("catch-all"); };
  switch (a.kind) {
    case ActionKind::Def:
    case ActionKind::DefLibrary:
      out << " " << opLabel(p, a.op);
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      out << " " << opLabel(p, a.op) << " @ " << key(a.key);
      break;
    case ActionKind::ImplTyped:
      out << " " << opLabel(p, a.op) << " @ " << key(a.key) << " <- " << kTypedSignatures[a.typed].cpp;
      break;
    case ActionKind::Fallback:
    case ActionKind::FallthroughFallback:
      out << " @ " << key(a.key);
      break;
    case ActionKind::Drop:
      out << " registration #" << a.handle << " (modulo the live ones)";
      break;
    case ActionKind::CallBoxed:
    case ActionKind::Redispatch:
    case ActionKind::CallForKey: {
      out << " " << opLabel(p, a.op);
      if (a.kind == ActionKind::Redispatch) out << " with " << keySetName(a.keys);
      if (a.kind == ActionKind::CallForKey) out << " for " << key(a.key);
      out << " stack (" << a.stack_how << ") [";
      for (size_t i = 0; i < a.stack.size(); ++i) out << (i ? ", " : "") << describe(a.stack[i]);
      out << "]";
      if (a.include) out << " include " << keySetName(*a.include);
      if (a.exclude) out << " exclude " << keySetName(*a.exclude);
      break;
    }
    default:
      break;
  }
  return out.str();
}

void printProgram(std::ostream& out, const Program& p) {
  for (size_t i = 0; i < p.ops.size(); ++i) out << "op" << i << ": " << describe(p.ops[i]) << "\n";
  for (size_t i = 0; i < p.actions.size(); ++i) {
    out << std::setw(3) << i << ": " << describe(p, p.actions[i]) << "\n";
  }
}

// --- running -------------------------------------------------------------------------------------

// The class of a failure, as the checks compare them.
enum class Outcome { Success, BoxedCall, NotImplemented, Ambiguous, InvalidKey, Schema, Signature, Registration, NotFound, OtherError };

std::string_view toString(Outcome o) {
  switch (o) {
    case Outcome::Success: return "success";
    case Outcome::BoxedCall: return "BoxedCallError";
    case Outcome::NotImplemented: return "NotImplementedError";
    case Outcome::Ambiguous: return "AmbiguousAutogradOtherError";
    case Outcome::InvalidKey: return "InvalidKeyError";
    case Outcome::Schema: return "SchemaError";
    case Outcome::Signature: return "SignatureMismatchError";
    case Outcome::Registration: return "RegistrationError";
    case Outcome::NotFound: return "OperatorNotFoundError";
    case Outcome::OtherError: return "another dispatch::Error";
  }
  return "?";
}

Outcome classify(const Error& e) {
  if (dynamic_cast<const AmbiguousAutogradOtherError*>(&e)) return Outcome::Ambiguous;
  if (dynamic_cast<const NotImplementedError*>(&e)) return Outcome::NotImplemented;
  if (dynamic_cast<const BoxedCallError*>(&e)) return Outcome::BoxedCall;
  if (dynamic_cast<const InvalidKeyError*>(&e)) return Outcome::InvalidKey;
  if (dynamic_cast<const SchemaError*>(&e)) return Outcome::Schema;
  if (dynamic_cast<const SignatureMismatchError*>(&e)) return Outcome::Signature;
  if (dynamic_cast<const RegistrationError*>(&e)) return Outcome::Registration;
  if (dynamic_cast<const OperatorNotFoundError*>(&e)) return Outcome::NotFound;
  return Outcome::OtherError;
}

Outcome fromModel(m::ErrorKind k) {
  switch (k) {
    case m::ErrorKind::InvalidKey: return Outcome::InvalidKey;
    case m::ErrorKind::Registration: return Outcome::Registration;
    case m::ErrorKind::NotFound: return Outcome::NotFound;
    case m::ErrorKind::NotImplemented: return Outcome::NotImplemented;
    case m::ErrorKind::AmbiguousAutogradOther: return Outcome::Ambiguous;
  }
  return Outcome::OtherError;
}

struct Expected {
  Outcome outcome = Outcome::Success;
  std::string kernel;  // Success: the kernel that runs last
  uint64_t keys = 0;   // Success: the key set it receives
  std::string why;
};

template <class L>
class Runner {
 public:
  Runner(const Program& program, std::ostringstream& log)
      : program_(program), log_(log), model_(dispatch::oracle::kModelFlavour<L>) {
    const auto tls = tls_local_dispatch_key_set();
    if (!(tls.included == default_included_set) || !(tls.excluded == default_excluded_set)) {
      fail("thread-local state leaked into an input", "TLS is not the default at the start");
    }
    for (const OpSpec& spec : program_.ops) resolveSchema(spec);
  }

  void run() {
    for (step_ = 0; step_ < program_.actions.size(); ++step_) {
      const Action& a = program_.actions[step_];
      if (traceSteps()) dispatch::oracle::logStep(L::kName, step_, toString(a.kind), a.key, describe(program_, a));
      switch (a.kind) {
        case ActionKind::CallBoxed:
        case ActionKind::Redispatch:
        case ActionKind::CallForKey:
          call(a);
          break;
        case ActionKind::Drop:
          drop(a);
          break;
        default:
          registration(a);
          break;
      }
      if (CellRecorder* cells = CellRecorder::active()) cells->observeTables(dispatcher_);
    }
    const auto tls = tls_local_dispatch_key_set();
    if (!(tls.included == default_included_set) || !(tls.excluded == default_excluded_set)) {
      fail("thread-local state not restored", "TLS differs from the default after the program");
    }
    // Once per program: the tables are registration_fuzzer's subject; here they only must not
    // have been corrupted by boxed calls (and checking after every step halves the speed).
    checkInvariants();
  }

 private:
  struct OpState {
    OperatorName name;                       // the name impls and calls use
    std::optional<FunctionSchema> schema;    // what a def registers (nullopt: the text is invalid)
    std::optional<Outcome> text_error;       // Library def: the error the text must give
    std::string text;
  };
  struct Registration {
    std::optional<RegistrationHandle> handle;
    std::vector<BasicLibrary<L>> libraries;
    std::vector<m::RegistrationId> model_ids;
    bool dropped = false;
  };
  struct KernelInfo {  // what a kernel pops and pushes when the operator has no schema
    std::optional<std::vector<ArgType>> args;  // nullopt: a fallback (nothing without a schema)
  };

  [[noreturn]] void fail(const std::string& what, const std::string& details) const {
    std::ostringstream out;
    out << L::kName << " flavour";
    if (step_ < program_.actions.size()) {
      out << ", step " << step_ << " (" << describe(program_, program_.actions[step_]) << ")";
    }
    out << ": " << details << "\nprogram:\n";
    printProgram(out, program_);
    out << "log:\n" << log_.str();
    dispatch::fuzz::reportBug(kTarget, what, out.str());
  }

  // Parses the op's schema (text mode) and decides what a def registers. parseSchema must
  // refuse bad text with SchemaError and nothing else, and round-trip what it accepts.
  void resolveSchema(const OpSpec& spec) {
    OpState st;
    st.text = spec.text;
    FunctionSchema built{spec.name, {}, spec.returns};
    for (size_t i = 0; i < spec.args.size(); ++i) built.arguments.push_back({"a" + std::to_string(i), spec.args[i]});
    std::optional<FunctionSchema> parsed;
    try {
      parsed = parseSchema(spec.text, kNamespace);
    } catch (const SchemaError&) {
      st.text_error = Outcome::Schema;
    } catch (const std::exception& e) {
      fail("parseSchema throws something other than SchemaError", quote(spec.text) + ": " + e.what());
    }
    if (parsed) {
      const std::string printed = toString(*parsed);
      std::optional<FunctionSchema> reparsed;
      try {
        reparsed = parseSchema(printed);
      } catch (const std::exception& e) {
        fail("parseSchema(toString(s)) fails", quote(printed) + ": " + e.what());
      }
      if (!(*reparsed == *parsed)) {
        fail("schema print/parse round trip differs", quote(spec.text) + " -> " + quote(printed) +
                                                          " -> " + quote(toString(*reparsed)));
      }
      if (parsed->name.name.rfind(std::string(kNamespace) + "::", 0) != 0) {
        st.text_error = Outcome::Registration;  // the library refuses another namespace
      }
    }
    if (spec.mode == SchemaMode::Text) {
      st.schema = parsed;
      st.name = parsed ? parsed->name : spec.name;
    } else {
      // Unmutated text spells the built schema (argument names included).
      if (!parsed || !(*parsed == built)) {
        fail("schema text does not parse to its schema",
             quote(spec.text) + " parses to " + (parsed ? quote(toString(*parsed)) : std::string("an error")) +
                 ", expected " + quote(toString(built)));
      }
      st.schema = built;
      st.name = built.name;
    }
    ops_.push_back(st);
  }

  // One line per step for the crash report (and stderr under DISPATCH_FUZZ_TRACE=1).
  void note(const std::string& line) {
    log_ << L::kName << " " << step_ << ": " << line << "\n";
    if (traceSteps()) std::fprintf(stderr, "  -> %s\n", line.c_str());
  }

  std::string kernelName(const char* prefix) { return prefix + std::to_string(next_kernel_++); }

  // Runs one registration on the dispatcher and, if it should touch the model, on the model.
  // Table-cell coverage (harness/cell_recorder.h): the keys a registration names without a slot.
  static void observeKeys(CellRecorder& cells, const Action& a) {
    switch (a.kind) {
      case ActionKind::ImplBoxed:
      case ActionKind::ImplTyped:
      case ActionKind::ImplFallthrough:
        if (a.key) cells.observeKey<L>("impl", *a.key, true);
        break;
      case ActionKind::Fallback:
      case ActionKind::FallthroughFallback:
        cells.observeKey<L>("registerFallback", *a.key, false);
        break;
      case ActionKind::StartupFallbacks:
        for (DispatchKey k : startup_fallthrough_keys) cells.observeKey<L>("start-up fallbacks", k, true);
        for (DispatchKey k : startup_boxed_fallback_keys) cells.observeKey<L>("start-up fallbacks", k, true);
        break;
      default:
        break;
    }
  }

  void registration(const Action& a) {
    if (CellRecorder* cells = CellRecorder::active()) observeKeys(*cells, a);
    OpState& op = ops_[static_cast<size_t>(a.op)];
    const std::string op_name = toString(op.name);
    Registration reg;
    std::optional<Outcome> real;  // nullopt: success
    std::string message;
    std::optional<m::RegistrationResult> expected;
    std::string name;
    // Real first (it may refuse for schema or signature reasons the model does not model, D16).
    try {
      switch (a.kind) {
        case ActionKind::Def:
          if (!op.schema) {
            real = Outcome::Schema;  // nothing to register; the library def below tries the text
            message = "no valid schema";
            break;
          }
          reg.handle = dispatcher_.registerDef(*op.schema, "def " + op_name);
          break;
        case ActionKind::DefLibrary: {
          BasicLibrary<L> library(BasicLibrary<L>::Kind::FRAGMENT, std::string(kNamespace), std::nullopt, dispatcher_);
          library.def(op.text);
          reg.libraries.push_back(std::move(library));
          break;
        }
        case ActionKind::ImplBoxed:
        case ActionKind::ImplTyped:
        case ActionKind::ImplFallthrough: {
          name = kernelName("k");
          BasicCppFunction<L> f =
              a.kind == ActionKind::ImplTyped
                  ? makeTypedKernel<L>(a.typed, name, &recorder_)
                  : a.kind == ActionKind::ImplBoxed
                        ? makeBoxedKernel<L>(name, &recorder_, intendedArgsOf(a.op), intendedReturnsOf(a.op))
                        : BasicCppFunction<L>::makeFallthrough();
          if (a.kind == ActionKind::ImplTyped) {
            kernels_[name] = KernelInfo{kTypedSignatures[a.typed].args};
          } else if (a.kind == ActionKind::ImplBoxed) {
            kernels_[name] = KernelInfo{intendedArgsOf(a.op)};
          }
          reg.handle = dispatcher_.registerImpl(op.name, a.key, std::move(f.kernel_), std::move(f.cpp_signature_),
                                                std::move(f.inferred_schema_), name);
          break;
        }
        case ActionKind::Fallback:
        case ActionKind::FallthroughFallback: {
          name = kernelName("fb");
          BasicCppFunction<L> f = a.kind == ActionKind::Fallback
                                      ? makeBoxedKernel<L>(name, &recorder_, std::nullopt, {})
                                      : BasicCppFunction<L>::makeFallthrough();
          kernels_[name] = KernelInfo{std::nullopt};
          reg.handle = dispatcher_.registerFallback(*a.key, std::move(f.kernel_), name);
          break;
        }
        case ActionKind::StartupFallbacks:
          reg.libraries = registerStartupFallbacks(dispatcher_);
          break;
        default:
          break;
      }
    } catch (const InternalError& e) {
      fail("InternalError from a registration", e.what());
    } catch (const Error& e) {
      real = classify(e);
      message = e.what();
    } catch (const std::exception& e) {
      fail("a registration throws a non-dispatch exception", e.what());
    }

    // What the real outcome allows, and the model's side.
    const bool fallthrough = a.kind == ActionKind::ImplFallthrough || a.kind == ActionKind::FallthroughFallback;
    switch (a.kind) {
      case ActionKind::Def:
        if (!op.schema) return;
        if (real == Outcome::Schema) return;  // existing kernels disagree with it (D16)
        expected = model_.def(op_name, static_cast<int>(op.schema->arguments.size()));
        break;
      case ActionKind::DefLibrary:
        if (op.text_error) {
          if (real != op.text_error) {
            fail("library def outcome", "text " + quote(op.text) + " must give " +
                                            std::string(toString(*op.text_error)) + ", got " +
                                            (real ? std::string(toString(*real)) + ": " + message : "success"));
          }
          return;
        }
        if (real == Outcome::Schema) return;
        expected = model_.def(op_name, static_cast<int>(op.schema->arguments.size()));
        break;
      case ActionKind::ImplBoxed:
      case ActionKind::ImplTyped:
      case ActionKind::ImplFallthrough:
        if (real == Outcome::Schema || real == Outcome::Signature) {
          if (a.kind != ActionKind::ImplTyped) {
            fail("an untyped kernel is refused for its schema or signature", message);
          }
          return;
        }
        expected = model_.impl(op_name, a.key, name, fallthrough);
        break;
      case ActionKind::Fallback:
      case ActionKind::FallthroughFallback:
        expected = model_.fallbackDirect(*a.key, name, fallthrough);
        break;
      case ActionKind::StartupFallbacks: {
        dispatch::oracle::ModelRegistration startup = dispatch::oracle::registerStartupFallbacksOnModel(model_);
        reg.model_ids = std::move(startup.ids);
        expected = startup.result;
        break;
      }
      default:
        return;
    }

    const bool model_ok = expected->ok();
    const bool agree = real ? (!model_ok && fromModel(expected->error->kind) == *real) : model_ok;
    if (!agree) {
      fail("registration outcome differs from the model",
           "dispatcher " + (real ? std::string(toString(*real)) + ": " + message : std::string("succeeds")) +
               "; model " + m::toString(*expected));
    }
    note(real ? std::string(toString(*real)) + ": " + message : std::string("ok"));
    if (!real) {
      if (reg.model_ids.empty()) reg.model_ids.push_back(*expected->id);
      registrations_.push_back(std::move(reg));
    }
  }

  std::optional<std::vector<ArgType>> intendedArgsOf(int op) const {
    const OpState& st = ops_[static_cast<size_t>(op)];
    if (st.schema) return argTypesOf(*st.schema);
    return program_.ops[static_cast<size_t>(op)].args;
  }
  std::vector<ArgType> intendedReturnsOf(int op) const {
    const OpState& st = ops_[static_cast<size_t>(op)];
    if (st.schema) return st.schema->returns;
    return program_.ops[static_cast<size_t>(op)].returns;
  }

  void checkInvariants() const {
    try {
      dispatcher_.checkInvariants();
    } catch (const std::exception& e) {
      fail("checkInvariants fails", e.what());
    }
  }

  void drop(const Action& a) {
    std::vector<size_t> live;
    for (size_t i = 0; i < registrations_.size(); ++i) {
      if (!registrations_[i].dropped) live.push_back(i);
    }
    if (live.empty()) return;
    Registration& reg = registrations_[live[a.handle % live.size()]];
    for (auto id : reg.model_ids) {
      if (auto status = model_.drop(id); !status.ok()) fail("model refuses a drop", m::toString(status));
    }
    try {
      if (reg.handle) reg.handle->release();
      for (auto& library : reg.libraries) library.reset();
    } catch (const std::exception& e) {
      fail("dropping a live registration throws", e.what());
    }
    reg.dropped = true;
  }

  Stack buildStack(const Action& a) {
    Stack stack;
    for (const ValueSpec& v : a.stack) {
      switch (v.tag) {
        case Value::Tag::None: stack.emplace_back(); break;
        case Value::Tag::Bool: stack.emplace_back((v.number & 1) != 0); break;
        case Value::Tag::Int: stack.emplace_back(v.number); break;
        case Value::Tag::Double: stack.emplace_back(static_cast<double>(v.number) / 8); break;
        case Value::Tag::String: stack.emplace_back(std::string(static_cast<size_t>(v.number & 7), 's')); break;
        case Value::Tag::Tensor:
          stack.emplace_back(Tensor(DispatchKeySet(DispatchKeySet::RAW, v.tensors[0]), next_tensor_++));
          break;
        case Value::Tag::TensorList: {
          std::vector<Tensor> ts;
          for (uint64_t raw : v.tensors) ts.emplace_back(DispatchKeySet(DispatchKeySet::RAW, raw), next_tensor_++);
          stack.emplace_back(std::move(ts));
          break;
        }
      }
    }
    return stack;
  }

  m::CallOutcome passThrough(const std::string& op, m::CallOutcome outcome) const {
    return dispatch::oracle::followStartupPassThrough(model_, op, std::move(outcome));
  }

  // From a model outcome to the expected class; on success, whether the kernel can take the stack.
  Expected judge(const m::CallOutcome& outcome, const Stack& stack, bool has_schema) const {
    Expected e;
    if (!outcome.success) {
      e.outcome = fromModel(outcome.error->kind);
      e.why = "model: " + m::toString(*outcome.error);
      return e;
    }
    e.kernel = outcome.success->kernel;
    e.keys = outcome.success->keys.toRaw();
    e.why = "model runs " + e.kernel + " with " + keySetName(e.keys);
    if (!has_schema) {
      // Without a schema nothing checks the stack before the kernel does (typed: popArgs).
      const auto it = kernels_.find(e.kernel);
      if (it != kernels_.end() && it->second.args && !stackFits(stack, *it->second.args)) {
        e.outcome = Outcome::BoxedCall;
        e.why += ", whose own arguments do not fit the stack";
      }
    }
    return e;
  }

  Expected expectCall(const Action& a, const std::string& op, const Stack& stack, const FunctionSchema* schema,
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
        if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema"};
        return judge(passThrough(op, model_.call(op, args, included, excluded)), stack, schema != nullptr);
      case ActionKind::Redispatch:
        if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema"};
        return judge(passThrough(op, model_.redispatch(op, m::KeySet::fromRaw(a.keys))), stack, schema != nullptr);
      default: {
        // callBoxedForDispatchKey: the key's own kernel, else its fallback; then the stack check.
        const DispatchKey k = *a.key;
        if (!m::isValidKey(k)) return {Outcome::InvalidKey, "", 0, "not a declared key"};
        std::string kernel;
        const auto stack_of_k = model_.kernelStack(op, k);
        if (!stack_of_k.empty()) {
          kernel = stack_of_k.front();
        } else {
          const auto fallback = model_.fallbackFor(k);
          if (m::isAliasKey(k) || !fallback) {
            return {Outcome::NotImplemented, "", 0, "no kernel and no fallback for " + keyName(k)};
          }
          kernel = (fallback->fallthrough ? "fallthrough " : "") + fallback->debug;
        }
        if (!stack_ok) return {Outcome::BoxedCall, "", 0, "the stack does not fit the schema"};
        if (kernel.rfind("fallthrough ", 0) == 0) {
          return {Outcome::NotImplemented, "", 0, "runs the fallthrough " + kernel};
        }
        const m::KeySet keys = model_.finalKeySet(op, args, included, excluded);
        return judge(passThrough(op, m::CallOutcome{m::CallSuccess{kernel, keys}, std::nullopt}), stack,
                     schema != nullptr);
      }
    }
  }

  void call(const Action& a) {
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
    const m::KeySet included = m::defaultIncludedSet() | m::KeySet::fromRaw(a.include.value_or(0));
    const m::KeySet excluded = m::defaultExcludedSet() | m::KeySet::fromRaw(a.exclude.value_or(0));
    const Expected expected = expectCall(a, op_name, before, schema, included, excluded);

    Stack stack = before;
    recorder_.events.clear();
    std::optional<Outcome> real;
    std::string message;
    {
      std::optional<IncludeDispatchKeyGuard> include;
      std::optional<ExcludeDispatchKeyGuard> exclude;
      if (a.include) include.emplace(DispatchKeySet(DispatchKeySet::RAW, *a.include));
      if (a.exclude) exclude.emplace(DispatchKeySet(DispatchKeySet::RAW, *a.exclude));
      if (CellRecorder* cells = CellRecorder::active()) observeCallCell(*cells, a, *handle, schema, stack);
      try {
        switch (a.kind) {
          case ActionKind::CallBoxed: handle->callBoxed(stack); break;
          case ActionKind::Redispatch: handle->redispatchBoxed(DispatchKeySet(DispatchKeySet::RAW, a.keys), &stack); break;
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
    note(real ? std::string(toString(*real)) + ": " + message.substr(0, 200)
              : "ran " + (recorder_.events.empty() ? std::string("?") : recorder_.events.back().kernel) + " with " +
                    (recorder_.events.empty() ? std::string("?") : keySetName(recorder_.events.back().keys)));

    const Outcome got = real.value_or(Outcome::Success);
    if (got != expected.outcome) {
      fail("boxed call outcome differs",
           "dispatcher " + std::string(toString(got)) + (real ? ": " + message : std::string()) + "; expected " +
               std::string(toString(expected.outcome)) + " (" + expected.why + ")");
    }
    if (real) {
      if (!(stack == before)) fail("a failed call changed the stack", message);
      return;
    }
    checkSuccess(expected, schema, before, stack);
  }

  // Table-cell coverage: the slot the lookup reads, under the call's TLS guards. A stack that
  // fails the schema check never reaches the table; callBoxedForDispatchKey bypasses it.
  static void observeCallCell(CellRecorder& cells, const Action& a, const BasicOperatorHandle<L>& handle,
                              const FunctionSchema* schema, const Stack& stack) {
    if (a.kind == ActionKind::CallForKey) {
      cells.observeKey<L>("callBoxedForDispatchKey", *a.key, false);
      return;
    }
    if (schema && !stackFits(stack, argTypesOf(*schema))) return;
    const DispatchKeySet ks =
        a.kind == ActionKind::Redispatch
            ? DispatchKeySet(DispatchKeySet::RAW, a.keys)
            : handle.entry().computeDispatchKeySet(keySetOfStack(stack, schema ? schema->arguments.size() : 0));
    cells.observeCall(handle, ks, toString(a.kind));
  }

  void checkSuccess(const Expected& expected, const FunctionSchema* schema, const Stack& before,
                    const Stack& after) const {
    if (recorder_.events.size() != 1) {
      fail("a successful call ran " + std::to_string(recorder_.events.size()) + " kernels", expected.why);
    }
    const Event& e = recorder_.events.back();
    if (e.kernel != expected.kernel || e.keys != expected.keys) {
      fail("a successful call ran another kernel or key set",
           "ran " + e.kernel + " with " + keySetName(e.keys) + "; " + expected.why);
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
      if (schema && !fits(after[base + i], schema->returns[i])) {
        std::ostringstream out;
        out << "return " << i << " = " << after[base + i] << " for " << toString(*schema);
        fail("a return does not fit the schema's type", out.str());
      }
    }
  }

  const Program& program_;
  std::ostringstream& log_;
  // The dispatcher outlives every handle and library below (members die in reverse order).
  BasicDispatcher<L> dispatcher_;
  m::ModelDispatcher model_;
  Recorder recorder_;
  std::vector<OpState> ops_;
  std::vector<Registration> registrations_;
  std::map<std::string, KernelInfo> kernels_;
  int next_kernel_ = 0;
  int64_t next_tensor_ = 1;
  size_t step_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Program program = decode(data, size);
  std::ostringstream log;
  Runner<FullLayout>(program, log).run();
  Runner<MobileLayout>(program, log).run();
  if (CellRecorder* cells = CellRecorder::active()) cells->endInput(kTarget);
  return 0;
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printProgram(out, decode(data, size));
}
