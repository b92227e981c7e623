#include "oracle/action.h"

#include <iomanip>
#include <sstream>

#include "dispatch/dispatch_key_set.h"
#include "oracle/names.h"

namespace dispatch::oracle {

std::string opName(int op) { return "fz::op" + std::to_string(op); }
std::string opSchema(int op) { return opName(op) + "(Tensor self, Tensor? other, int tag) -> str"; }

std::string_view toString(ActionKind kind) {
  switch (kind) {
    case ActionKind::Def: return "def";
    case ActionKind::ImplTyped: return "impl typed";
    case ActionKind::ImplBoxed: return "impl boxed";
    case ActionKind::ImplFallthrough: return "impl fallthrough";
    case ActionKind::FallbackDirect: return "registerFallback";
    case ActionKind::FallthroughDirect: return "registerFallback fallthrough";
    case ActionKind::FallbackLibrary: return "library fallback";
    case ActionKind::FallthroughLibrary: return "library fallthrough";
    case ActionKind::StartupFallbacks: return "startup fallbacks";
    case ActionKind::Drop: return "drop";
    case ActionKind::IncludeKeys: return "include guard";
    case ActionKind::ExcludeKeys: return "exclude guard";
    case ActionKind::PopGuard: return "pop guard";
    case ActionKind::CallTyped: return "call";
    case ActionKind::CallBoxed: return "callBoxed";
    case ActionKind::Redispatch: return "redispatch";
    case ActionKind::kCount: break;
  }
  return "?";
}

bool isRegistration(ActionKind kind) {
  switch (kind) {
    case ActionKind::Def:
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
    case ActionKind::StartupFallbacks:
      return true;
    default:
      return false;
  }
}

bool isImpl(ActionKind kind) {
  return kind == ActionKind::ImplTyped || kind == ActionKind::ImplBoxed ||
         kind == ActionKind::ImplFallthrough;
}

bool isFallthrough(ActionKind kind) {
  return kind == ActionKind::ImplFallthrough || kind == ActionKind::FallthroughDirect ||
         kind == ActionKind::FallthroughLibrary;
}

bool isCall(ActionKind kind) {
  return kind == ActionKind::CallTyped || kind == ActionKind::CallBoxed ||
         kind == ActionKind::Redispatch;
}

bool isGuard(ActionKind kind) {
  return kind == ActionKind::IncludeKeys || kind == ActionKind::ExcludeKeys ||
         kind == ActionKind::PopGuard;
}

std::string describe(const Action& a) {
  std::ostringstream out;
  out << toString(a.kind);
  switch (a.kind) {
    case ActionKind::Def:
      out << " " << opSchema(a.op);
      break;
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      out << " " << opName(a.op) << " @ " << keyName(a.key);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      out << " @ " << keyName(a.key);
      break;
    case ActionKind::Drop:
      out << " handle #" << a.handle << " (modulo the handles made so far)";
      break;
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys:
      out << " " << keySetName(a.keys);
      break;
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed:
      out << " " << opName(a.op) << "(self=" << keySetName(a.keys) << ", other="
          << (a.other ? keySetName(*a.other) : std::string("None")) << ")";
      break;
    case ActionKind::Redispatch:
      out << " " << opName(a.op) << " with " << keySetName(a.keys);
      break;
    default:
      break;
  }
  return out.str();
}

namespace {
std::string_view cppName(ActionKind kind) {
  switch (kind) {
    case ActionKind::Def: return "Def";
    case ActionKind::ImplTyped: return "ImplTyped";
    case ActionKind::ImplBoxed: return "ImplBoxed";
    case ActionKind::ImplFallthrough: return "ImplFallthrough";
    case ActionKind::FallbackDirect: return "FallbackDirect";
    case ActionKind::FallthroughDirect: return "FallthroughDirect";
    case ActionKind::FallbackLibrary: return "FallbackLibrary";
    case ActionKind::FallthroughLibrary: return "FallthroughLibrary";
    case ActionKind::StartupFallbacks: return "StartupFallbacks";
    case ActionKind::Drop: return "Drop";
    case ActionKind::IncludeKeys: return "IncludeKeys";
    case ActionKind::ExcludeKeys: return "ExcludeKeys";
    case ActionKind::PopGuard: return "PopGuard";
    case ActionKind::CallTyped: return "CallTyped";
    case ActionKind::CallBoxed: return "CallBoxed";
    case ActionKind::Redispatch: return "Redispatch";
    case ActionKind::kCount: break;
  }
  return "kCount";
}
std::string keyCpp(DispatchKey key) {
  // Per-backend placeholders print as "<prefix>Unknown", which is not an enumerator name.
  const std::string_view name = isValidDispatchKey(key) ? toString(key) : std::string_view();
  if (name.empty() || name.ends_with("Unknown")) {
    return "static_cast<DispatchKey>(" + std::to_string(toUnderlying(key)) + ")";
  }
  return "DispatchKey::" + std::string(name);
}
std::string rawCpp(uint64_t raw) {
  if (raw == 0) return "0";
  std::ostringstream out;
  out << "0x" << std::hex << raw << "u";
  return out.str();
}
}  // namespace

std::string toCpp(const Action& a) {
  return "{ActionKind::" + std::string(cppName(a.kind)) + ", " + std::to_string(a.op) + ", " +
         (a.key ? keyCpp(*a.key) : std::string("std::nullopt")) + ", " + std::to_string(a.handle) +
         ", " + rawCpp(a.keys) + ", " + (a.other ? rawCpp(*a.other) : std::string("std::nullopt")) +
         "}";
}

void printTrace(std::ostream& out, const std::vector<Action>& actions) {
  for (size_t i = 0; i < actions.size(); ++i) {
    out << std::setw(3) << i << ": " << describe(actions[i]) << "\n";
  }
}

}  // namespace dispatch::oracle
