// Declared-schema actions: schema text, stack shapes, and their text and C++ spellings.

#include <iomanip>
#include <sstream>

#include "oracle/actions/action.h"
#include "oracle/actions/action_boxed_spelling.h"
#include "oracle/actions/action_boxed_text.h"
#include "dispatch/errors.h"
#include "oracle/actions/key_set_action_text.h"
#include "oracle/actions/names.h"

namespace dispatch::oracle {

namespace {

struct NoWriter {
  void integralInRange(uint32_t, uint32_t, uint32_t) {}
};

}  // namespace

const std::vector<TypedSignature>& typedSignatures() {
  using enum ArgType;
  static const std::vector<TypedSignature> kSignatures = {
      {"Tensor(Tensor)", {Tensor}, {Tensor}},
      {"str(Tensor, Tensor?, int)", {Tensor, OptionalTensor, Int}, {String}},
      {"void()", {}, {}},
      {"int(Tensor[], float, bool)", {TensorList, Float, Bool}, {Int}},
      {"Tensor?(Tensor?, str)", {OptionalTensor, String}, {OptionalTensor}},
      {"void(Tensor x6)", {Tensor, Tensor, Tensor, Tensor, Tensor, Tensor}, {}},
      {"float(bool, int, Tensor[], Tensor?)", {Bool, Int, TensorList, OptionalTensor}, {Float}},
  };
  return kSignatures;
}

OperatorName declaredOpName(int op, const SchemaDecl& decl) {
  return {std::string(kDeclaredNamespace) + "::op" + std::to_string(op), decl.overload ? "ov" : ""};
}

std::string schemaText(int op, const SchemaDecl& decl) {
  spelling::Replay<NoWriter> spell_choices(decl.spelling, nullptr);
  std::string text = spelling::spell(spell_choices, op, decl);
  if (decl.mode == SchemaMode::Text) {
    spelling::Replay<NoWriter> edit_choices(decl.edits, nullptr);
    spelling::mutate(edit_choices, text);
  }
  return text;
}

std::vector<ArgType> intendedArgs(int op, const SchemaDecl& decl) {
  if (decl.mode == SchemaMode::Text) {
    try {
      std::vector<ArgType> types;
      for (const Argument& arg : parseSchema(schemaText(op, decl), kDeclaredNamespace).arguments) {
        types.push_back(arg.type);
      }
      return types;
    } catch (const std::exception&) {  // judged when the trace runs; here only stack shapes depend on it
    }
  }
  return decl.args;
}

StackShape stackShape(const BoxedCall& call) {
  switch (call.shape_choice) {
    case 0: return call.args.empty() ? StackShape::Fits : StackShape::WrongKind;
    case 1: return call.args.empty() ? StackShape::Fits : StackShape::None;
    case 2: return call.args.empty() ? StackShape::Fits : StackShape::TooFew;
    case 3: return StackShape::TooMany;
    case 4:
    case 5: return StackShape::Below;
    default: return StackShape::Fits;
  }
}

std::vector<ValueSpec> stackValues(const BoxedCall& call) {
  std::vector<ValueSpec> args = call.args;
  std::vector<ValueSpec> stack;
  switch (stackShape(call)) {
    case StackShape::WrongKind: args.at(call.pick) = call.extra.at(0); break;
    case StackShape::None: args.at(call.pick) = ValueSpec{}; break;
    case StackShape::TooFew: args.resize(args.size() - std::min<size_t>(call.pick, args.size())); break;
    case StackShape::TooMany: args.insert(args.end(), call.extra.begin(), call.extra.end()); break;
    case StackShape::Below: stack = call.extra; break;
    case StackShape::Fits: break;
  }
  stack.insert(stack.end(), args.begin(), args.end());
  return stack;
}

std::string stackHow(const BoxedCall& call) {
  if (call.shape_choice <= 2 && call.args.empty()) return "";  // the shape had nothing to change
  switch (stackShape(call)) {
    case StackShape::WrongKind: return "arg " + std::to_string(call.pick) + " any kind";
    case StackShape::None: return "arg " + std::to_string(call.pick) + " None";
    case StackShape::TooFew: return "drop " + std::to_string(call.pick);
    case StackShape::TooMany: return "extra " + std::to_string(call.extra.size()) + " on top";
    case StackShape::Below: return std::to_string(call.extra.size()) + " below";
    case StackShape::Fits: break;
  }
  return "fits";
}

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

Action Action::declaredSchema(int op, SchemaDecl decl) {
  Action a;
  a.kind = ActionKind::Schema;
  a.op = op;
  a.schema = std::move(decl);
  return a;
}

Action Action::declared(ActionKind kind, int op, std::optional<DispatchKey> key, uint32_t handle, uint64_t keys,
                        std::optional<int> signature, std::optional<BoxedCall> call) {
  Action a(kind, op, key, handle, keys, std::nullopt);
  a.signature = signature;
  a.call = std::move(call);
  return a;
}

bool isDeclaredAction(const Action& a) {
  return a.kind == ActionKind::Schema || a.kind == ActionKind::DefLibrary || a.kind == ActionKind::RedispatchBoxed ||
         a.kind == ActionKind::CallForKey || a.signature.has_value() || a.call.has_value();
}

std::vector<std::string> declaredOpLabels(const std::vector<Action>& schemas) {
  std::vector<std::string> labels;
  for (const Action& a : schemas) {
    if (a.kind != ActionKind::Schema || !a.schema) break;
    labels.push_back("op" + std::to_string(a.op) + "=" + toString(declaredOpName(a.op, *a.schema)));
  }
  return labels;
}

// --- text ----------------------------------------------------------------------------------------

namespace {

std::string describe(const ValueSpec& v) {
  std::ostringstream out;
  switch (v.tag) {
    case Value::Tag::None: out << "None"; break;
    case Value::Tag::Bool: out << ((v.number & 1) ? "true" : "false"); break;
    case Value::Tag::Int: out << v.number; break;
    case Value::Tag::Double: out << static_cast<double>(v.number) / 8; break;
    case Value::Tag::String: out << "str[" << (v.number & 7) << "]"; break;
    case Value::Tag::Tensor: out << "Tensor" << (v.tensors.empty() ? "?" : keySetName(v.tensors[0])); break;
    case Value::Tag::TensorList:
      out << "[";
      for (size_t i = 0; i < v.tensors.size(); ++i) out << (i ? ", " : "") << "Tensor" << keySetName(v.tensors[i]);
      out << "]";
      break;
  }
  return out.str();
}

}  // namespace

std::string describeDeclaredAction(const Action& a, const std::vector<std::string>& op_labels) {
  std::ostringstream out;
  out << toString(a.kind);
  const auto op = static_cast<size_t>(a.op);
  const std::string label = op < op_labels.size() ? op_labels[op] : "op" + std::to_string(a.op);
  const auto& signatures = typedSignatures();
  switch (a.kind) {
    case ActionKind::Schema:
      if (!a.schema) break;
      out.str("");
      out << (a.schema->mode == SchemaMode::Typed ? "typed schema "
              : a.schema->mode == SchemaMode::Text ? "mutated text "
                                                   : "schema ");
      try {
        out << quote(schemaText(a.op, *a.schema));
      } catch (const std::invalid_argument& e) {
        out << "(unspellable: " << e.what() << ")";
      }
      if (a.schema->mode == SchemaMode::Typed && static_cast<size_t>(a.schema->signature) < signatures.size()) {
        out << " (signature " << signatures[static_cast<size_t>(a.schema->signature)].cpp << ")";
      }
      break;
    case ActionKind::Def:
    case ActionKind::DefLibrary:
      out << " " << label;
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
    case ActionKind::ImplTyped:
      out << " " << label << " @ " << keyName(a.key);
      if (a.signature && static_cast<size_t>(*a.signature) < signatures.size()) {
        out << " <- " << signatures[static_cast<size_t>(*a.signature)].cpp;
      }
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      out << " @ " << keyName(a.key);
      break;
    case ActionKind::Drop:
      out << " registration #" << a.handle << " (modulo the live ones)";
      break;
    case ActionKind::CallBoxed:
    case ActionKind::RedispatchBoxed:
    case ActionKind::CallForKey: {
      out << " " << label;
      if (a.kind == ActionKind::RedispatchBoxed) out << " with " << keySetName(a.keys);
      if (a.kind == ActionKind::CallForKey) out << " for " << keyName(a.key);
      if (!a.call) break;
      out << " stack (" << stackHow(*a.call) << ") [";
      const std::vector<ValueSpec> stack = stackValues(*a.call);
      for (size_t i = 0; i < stack.size(); ++i) out << (i ? ", " : "") << describe(stack[i]);
      out << "]";
      if (a.call->include) out << " include " << keySetName(DispatchKeySet(*a.call->include).raw_repr());
      if (a.call->exclude) out << " exclude " << keySetName(*a.call->exclude);
      break;
    }
    default:
      break;
  }
  return out.str();
}

// --- C++ -----------------------------------------------------------------------------------------

namespace {

std::string listCpp(const std::vector<uint32_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "}";
}

std::string argTypesCpp(const std::vector<ArgType>& types) {
  static constexpr std::string_view kNames[] = {"Tensor", "OptionalTensor", "TensorList", "Int",
                                                "Float",  "Bool",           "String"};
  std::string out = "{";
  for (size_t i = 0; i < types.size(); ++i) {
    out += std::string(i ? ", " : "") + "dispatch::ArgType::" + std::string(kNames[static_cast<size_t>(types[i])]);
  }
  return out + "}";
}

std::string valuesCpp(const std::vector<ValueSpec>& values) {
  static constexpr std::string_view kTags[] = {"None", "Bool", "Int", "Double", "String", "Tensor", "TensorList"};
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    const ValueSpec& v = values[i];
    out += std::string(i ? ", " : "") + "{dispatch::Value::Tag::";
    out += std::string(kTags[static_cast<size_t>(v.tag)]) + ", {";
    for (size_t t = 0; t < v.tensors.size(); ++t) out += (t ? ", " : "") + rawCpp(v.tensors[t]);
    out += "}, " + std::to_string(v.number) + "}";
  }
  return out + "}";
}

std::string optionalKeyCpp(std::optional<DispatchKey> key) { return key ? keyCpp(*key) : "std::nullopt"; }

}  // namespace

std::string declaredActionToCpp(const Action& a) {
  static constexpr std::string_view kModes[] = {"Generated", "Typed", "Text"};
  if (a.kind == ActionKind::Schema && a.schema) {
    const SchemaDecl& d = *a.schema;
    return "Action::declaredSchema(" + std::to_string(a.op) + ", {dispatch::oracle::SchemaMode::" +
           std::string(kModes[static_cast<size_t>(d.mode)]) + ", " + (d.overload ? "true" : "false") + ", " +
           std::to_string(d.signature) + ", " + argTypesCpp(d.args) + ", " + argTypesCpp(d.returns) + ", " +
           listCpp(d.spelling) + ", " + listCpp(d.edits) + "})";
  }
  std::string call = "std::nullopt";
  if (a.call) {
    const BoxedCall& c = *a.call;
    call = "dispatch::oracle::BoxedCall{" + valuesCpp(c.args) + ", " + std::to_string(c.shape_choice) + ", " +
           std::to_string(c.pick) + ", " + valuesCpp(c.extra) + ", " + optionalKeyCpp(c.include) + ", " +
           (c.exclude ? rawCpp(*c.exclude) : std::string("std::nullopt")) + "}";
  }
  return "Action::declared(ActionKind::" + std::string(cppName(a.kind)) + ", " + std::to_string(a.op) + ", " +
         optionalKeyCpp(a.key) + ", " + std::to_string(a.handle) + ", " + rawCpp(a.keys) + ", " +
         (a.signature ? std::to_string(*a.signature) : std::string("std::nullopt")) + ", " + call + ")";
}

}  // namespace dispatch::oracle
