#include "oracle/actions/action_boxed_codec.h"

#include <iterator>
#include <stdexcept>
#include <string>

#include "oracle/actions/action_boxed_spelling.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/key_sets.h"
#include "dispatch/tensor.h"
#include "oracle/model/model.h"

namespace dispatch::oracle {

namespace {

// Each decoder below has its encoder right after it; both must consume and write the same fields
// in the same order.

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("encodeActions: " + why); }

// Draws choices from the input and records them (the decoder's side of spelling::Replay).
class Draw {
 public:
  Draw(FuzzedDataProvider& in, std::vector<uint32_t>& record) : in_(in), record_(record) {}
  uint32_t next(uint32_t lo, uint32_t hi) {
    record_.push_back(in_.ConsumeIntegralInRange<uint32_t>(lo, hi));
    return record_.back();
  }

 private:
  FuzzedDataProvider& in_;
  std::vector<uint32_t>& record_;
};

constexpr uint16_t kLastKeyValue = toUnderlying(DispatchKey::EndOfAliasKeys);
constexpr int kNumTypes = static_cast<int>(std::size(kAllArgTypes));

// Tensors: mostly realistic key sets (docs/semantics.md §5.5), then unions of keys, raw patterns, undefined.
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
        ks = ks.add(static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue)));
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
void writeTensorKeys(FdpWriter& out, uint64_t raw) {  // every set as its raw pattern
  out.integralInRange<int>(0, 9, 0);
  out.integral<uint64_t>(raw);
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
void writeValue(FdpWriter& out, const ValueSpec& v) {
  const size_t tensors = v.tag == Value::Tag::Tensor ? 1 : v.tag == Value::Tag::TensorList ? v.tensors.size() : 0;
  if (v.tensors.size() != tensors || tensors > 3) refuse("a stack value with the wrong number of tensors");
  const bool numeric = v.tag != Value::Tag::None && tensors == 0 && v.tag != Value::Tag::TensorList;
  if (!numeric && v.number != 0) refuse("a number on a stack value that has none");
  if (v.tag == Value::Tag::TensorList) out.integralInRange<int>(0, 3, static_cast<int>(tensors));
  for (uint64_t raw : v.tensors) writeTensorKeys(out, raw);
  if (numeric) out.integralInRange<int64_t>(-1000, 1000, v.number);
}

// Fitting tags: Tensor? is None a third of the time.
Value::Tag fittingTag(FuzzedDataProvider& in, ArgType t) {
  switch (t) {
    case ArgType::Tensor: return Value::Tag::Tensor;
    case ArgType::OptionalTensor:
      return in.ConsumeIntegralInRange<int>(0, 2) == 0 ? Value::Tag::None : Value::Tag::Tensor;
    case ArgType::TensorList: return Value::Tag::TensorList;
    case ArgType::Int: return Value::Tag::Int;
    case ArgType::Float: return Value::Tag::Double;
    case ArgType::Bool: return Value::Tag::Bool;
    case ArgType::String: return Value::Tag::String;
  }
  return Value::Tag::None;
}
void writeFittingTag(FdpWriter& out, ArgType t, Value::Tag tag) {
  if (t == ArgType::OptionalTensor) {
    if (tag != Value::Tag::None && tag != Value::Tag::Tensor) refuse("a Tensor? argument that is no tensor");
    out.integralInRange<int>(0, 2, tag == Value::Tag::None ? 0 : 1);
    return;
  }
  FuzzedDataProvider empty(nullptr, 0);
  if (fittingTag(empty, t) != tag) refuse("a stack argument that does not fit its type");
}

Value::Tag anyTag(FuzzedDataProvider& in) { return static_cast<Value::Tag>(in.ConsumeIntegralInRange<int>(0, 6)); }
ValueSpec consumeAnyValue(FuzzedDataProvider& in) { return consumeValueOfTag(in, anyTag(in)); }
void writeAnyValue(FdpWriter& out, const ValueSpec& v) {
  out.integralInRange<int>(0, 6, static_cast<int>(v.tag));
  writeValue(out, v);
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
      const auto& aliases = model::aliasKeys();
      return aliases[in.ConsumeIntegralInRange<size_t>(0, aliases.size() - 1)];
    }
    case 4:
      return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
    case 5:
    case 6:
      return static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue));
    default:
      return kCommon[in.ConsumeIntegralInRange<size_t>(0, std::size(kCommon) - 1)];
  }
}
void writeImplKey(FdpWriter& out, std::optional<DispatchKey> key) {
  out.integralInRange<int>(0, 9, key ? 4 : 0);
  if (key) out.integral<uint16_t>(toUnderlying(*key));
}

// A stack for arguments of `types`: fitting, with a wrong kind or None somewhere, too short,
// too long, or with values below the arguments (BoxedCall, stackValues).
void consumeStack(FuzzedDataProvider& in, const std::vector<ArgType>& types, BoxedCall& call) {
  for (ArgType t : types) call.args.push_back(consumeValueOfTag(in, fittingTag(in, t)));
  call.shape_choice = in.ConsumeIntegralInRange<uint32_t>(0, 9);
  const auto last = static_cast<uint32_t>(call.args.size()) - 1;
  switch (stackShape(call)) {
    case StackShape::WrongKind:
      call.pick = in.ConsumeIntegralInRange<uint32_t>(0, last);
      call.extra.push_back(consumeAnyValue(in));
      break;
    case StackShape::None:
      call.pick = in.ConsumeIntegralInRange<uint32_t>(0, last);
      break;
    case StackShape::TooFew:
      call.pick = in.ConsumeIntegralInRange<uint32_t>(1, last + 1);
      break;
    case StackShape::TooMany:
    case StackShape::Below: {
      const int n = in.ConsumeIntegralInRange<int>(1, 2);
      for (int i = 0; i < n; ++i) call.extra.push_back(consumeAnyValue(in));
      break;
    }
    case StackShape::Fits:
      break;
  }
}
void writeStack(FdpWriter& out, const std::vector<ArgType>& types, const BoxedCall& call) {
  if (call.args.size() != types.size()) refuse("a stack whose arguments do not match the operator's");
  for (size_t i = 0; i < types.size(); ++i) {
    writeFittingTag(out, types[i], call.args[i].tag);
    writeValue(out, call.args[i]);
  }
  out.integralInRange<uint32_t>(0, 9, call.shape_choice);
  const auto last = static_cast<uint32_t>(call.args.size()) - 1;
  const StackShape shape = stackShape(call);
  const bool many = shape == StackShape::TooMany || shape == StackShape::Below;  // 1 or 2, range-checked below
  if (!many && call.extra.size() != (shape == StackShape::WrongKind ? 1u : 0u)) {
    refuse("a stack with extra values its shape does not use");
  }
  const bool picks = shape == StackShape::WrongKind || shape == StackShape::None || shape == StackShape::TooFew;
  if (!picks && call.pick != 0) refuse("a stack with a pick its shape does not use");
  switch (shape) {
    case StackShape::WrongKind:
      out.integralInRange<uint32_t>(0, last, call.pick);
      writeAnyValue(out, call.extra[0]);
      break;
    case StackShape::None:
      out.integralInRange<uint32_t>(0, last, call.pick);
      break;
    case StackShape::TooFew:
      out.integralInRange<uint32_t>(1, last + 1, call.pick);
      break;
    case StackShape::TooMany:
    case StackShape::Below:
      out.integralInRange<int>(1, 2, static_cast<int>(call.extra.size()));
      for (const ValueSpec& v : call.extra) writeAnyValue(out, v);
      break;
    case StackShape::Fits:
      break;
  }
}

const std::vector<ArgType>& intendedOf(const DeclaredOps& ops, int op) {
  if (op < 0 || static_cast<size_t>(op) >= ops.intended.size()) refuse("an operator the prologue did not declare");
  return ops.intended[static_cast<size_t>(op)];
}

}  // namespace

void DeclaredOps::add(int op, const SchemaDecl& decl) {
  decls.push_back(decl);
  intended.push_back(intendedArgs(op, decl));
}

SchemaDecl consumeSchemaDecl(FuzzedDataProvider& in, int op) {
  SchemaDecl d;
  d.overload = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  const int mode = in.ConsumeIntegralInRange<int>(0, 5);
  d.mode = mode <= 1 ? SchemaMode::Typed : mode == 2 ? SchemaMode::Text : SchemaMode::Generated;
  if (d.mode == SchemaMode::Typed) {
    d.signature = in.ConsumeIntegralInRange<int>(0, static_cast<int>(typedSignatures().size()) - 1);
    d.args = typedSignatures()[static_cast<size_t>(d.signature)].args;
    d.returns = typedSignatures()[static_cast<size_t>(d.signature)].returns;
  } else {
    const size_t n = in.ConsumeIntegralInRange<size_t>(0, kMaxDeclaredArgs);
    for (size_t i = 0; i < n; ++i) d.args.push_back(kAllArgTypes[in.ConsumeIntegralInRange<int>(0, kNumTypes - 1)]);
    if (in.ConsumeBool()) d.returns.push_back(kAllArgTypes[in.ConsumeIntegralInRange<int>(0, kNumTypes - 1)]);
  }
  Draw spell_choices(in, d.spelling);
  std::string text = spelling::spell(spell_choices, op, d);
  if (d.mode == SchemaMode::Text) {
    Draw edit_choices(in, d.edits);
    spelling::mutate(edit_choices, text);
  }
  return d;
}

void writeSchemaDecl(FdpWriter& out, int op, const SchemaDecl& d) {
  out.integralInRange<int>(0, 3, d.overload ? 0 : 1);
  out.integralInRange<int>(0, 5, d.mode == SchemaMode::Typed ? 0 : d.mode == SchemaMode::Text ? 2 : 3);
  auto typeIndex = [](ArgType t) { return static_cast<int>(t); };
  if (d.mode == SchemaMode::Typed) {
    const int last = static_cast<int>(typedSignatures().size()) - 1;
    out.integralInRange<int>(0, last, d.signature);
    const TypedSignature& sig = typedSignatures()[static_cast<size_t>(d.signature)];
    if (d.args != sig.args || d.returns != sig.returns) refuse("a typed schema that is not its signature's");
  } else {
    if (d.signature != 0) refuse("a signature on a schema that is not typed");
    out.integralInRange<size_t>(0, kMaxDeclaredArgs, d.args.size());
    for (ArgType t : d.args) out.integralInRange<int>(0, kNumTypes - 1, typeIndex(t));
    if (d.returns.size() > 1) refuse("a declared schema with more than one return");
    out.boolean(!d.returns.empty());
    if (!d.returns.empty()) out.integralInRange<int>(0, kNumTypes - 1, typeIndex(d.returns[0]));
  }
  spelling::Replay<FdpWriter> spell_choices(d.spelling, &out);
  std::string text = spelling::spell(spell_choices, op, d);
  if (!spell_choices.done()) refuse("more spelling choices than the spelling makes");
  if (d.mode == SchemaMode::Text) {
    spelling::Replay<FdpWriter> edit_choices(d.edits, &out);
    spelling::mutate(edit_choices, text);
    if (!edit_choices.done()) refuse("more edit choices than the edits make");
  } else if (!d.edits.empty()) {
    refuse("edits on a schema that is not text");
  }
}

void consumeDeclaredFields(FuzzedDataProvider& in, const DeclaredOps& ops, Action& a) {
  switch (a.kind) {
    case ActionKind::Def:
    case ActionKind::DefLibrary:
    case ActionKind::StartupFallbacks:
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      a.key = consumeImplKey(in);
      break;
    case ActionKind::ImplTyped: {
      a.key = consumeImplKey(in);
      const SchemaDecl& decl = ops.decls.at(static_cast<size_t>(a.op));
      a.signature = decl.mode == SchemaMode::Typed && in.ConsumeIntegralInRange<int>(0, 3) != 0
                        ? decl.signature
                        : in.ConsumeIntegralInRange<int>(0, static_cast<int>(typedSignatures().size()) - 1);
      break;
    }
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      a.key = consumeImplKey(in).value_or(DispatchKey::CPU);
      break;
    case ActionKind::Drop:
      a.handle = in.ConsumeIntegral<uint8_t>();
      break;
    case ActionKind::CallBoxed:
    case ActionKind::RedispatchBoxed:
    case ActionKind::CallForKey: {
      if (a.kind == ActionKind::RedispatchBoxed) a.keys = consumeTensorKeys(in);
      if (a.kind == ActionKind::CallForKey) a.key = consumeImplKey(in).value_or(DispatchKey::CompositeImplicitAutograd);
      BoxedCall& call = a.call.emplace();
      consumeStack(in, ops.intended.at(static_cast<size_t>(a.op)), call);
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        call.include = static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue));
      }
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        call.exclude = in.ConsumeBool() ? autograd_dispatch_keyset.raw_repr() : consumeTensorKeys(in);
      }
      break;
    }
    default:
      throw std::logic_error("declared-schema weights pick " + std::string(toString(a.kind)));
  }
}

void writeDeclaredFields(FdpWriter& out, const DeclaredOps& ops, const Action& a) {
  const bool takes_call = isBoxedStackCall(a.kind);
  if (a.call.has_value() != takes_call) {
    refuse(std::string(toString(a.kind)) + (takes_call ? " without" : " with") + " a stack");
  }
  if (a.signature.has_value() != (a.kind == ActionKind::ImplTyped)) refuse("a signature on anything but impl typed");
  switch (a.kind) {
    case ActionKind::Def:
    case ActionKind::DefLibrary:
    case ActionKind::StartupFallbacks:
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      writeImplKey(out, a.key);
      break;
    case ActionKind::ImplTyped: {
      writeImplKey(out, a.key);
      if (static_cast<size_t>(a.op) >= ops.decls.size()) refuse("an operator the prologue did not declare");
      if (ops.decls[static_cast<size_t>(a.op)].mode == SchemaMode::Typed) out.integralInRange<int>(0, 3, 0);
      out.integralInRange<int>(0, static_cast<int>(typedSignatures().size()) - 1, *a.signature);
      break;
    }
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      if (!a.key) refuse("a fallback without a key");
      writeImplKey(out, a.key);
      break;
    case ActionKind::Drop:
      if (a.handle > 255) refuse("drop handle above 255");
      out.integral<uint8_t>(static_cast<uint8_t>(a.handle));
      break;
    case ActionKind::CallBoxed:
    case ActionKind::RedispatchBoxed:
    case ActionKind::CallForKey: {
      if (a.kind == ActionKind::RedispatchBoxed) writeTensorKeys(out, a.keys);
      if (a.kind == ActionKind::CallForKey) {
        if (!a.key) refuse("callBoxedForDispatchKey without a key");
        writeImplKey(out, a.key);
      }
      const BoxedCall& call = *a.call;
      writeStack(out, intendedOf(ops, a.op), call);
      out.integralInRange<int>(0, 3, call.include ? 0 : 1);
      if (call.include) out.integralInRange<uint16_t>(0, kLastKeyValue, toUnderlying(*call.include));
      out.integralInRange<int>(0, 3, call.exclude ? 0 : 1);
      if (call.exclude) {
        const bool autograd = *call.exclude == autograd_dispatch_keyset.raw_repr();
        out.boolean(autograd);
        if (!autograd) writeTensorKeys(out, *call.exclude);
      }
      break;
    }
    default:
      refuse("declared-schema weights never pick " + std::string(toString(a.kind)));
  }
}

}  // namespace dispatch::oracle
