#include <fuzzer/FuzzedDataProvider.h>

#include <iterator>
#include <sstream>

#include "boxed_call/kernels.h"
#include "boxed_call/program.h"
#include "oracle/model.h"

namespace dispatch::fuzz::boxed_call {

namespace {

namespace m = dispatch::model;

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

}  // namespace

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

}  // namespace dispatch::fuzz::boxed_call
