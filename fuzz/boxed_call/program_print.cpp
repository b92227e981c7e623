#include <iomanip>
#include <sstream>

#include "boxed_call/kernels.h"
#include "boxed_call/program.h"
#include "oracle/names.h"

namespace dispatch::fuzz::boxed_call {

using oracle::keyName;
using oracle::keySetName;

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

namespace {

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

}  // namespace

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

}  // namespace dispatch::fuzz::boxed_call
