#include "oracle/actions/action.h"

#include <array>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "dispatch/dispatch_key_set.h"
#include "oracle/actions/names.h"
#include "oracle/actions/action_boxed_text.h"
#include "oracle/actions/key_set_action_text.h"

namespace dispatch::oracle {

const std::string& opName(int op) {
  static const std::array<std::string, kNumOps> kNames = [] {
    std::array<std::string, kNumOps> names;
    for (int i = 0; i < kNumOps; ++i) names[static_cast<size_t>(i)] = "fz::op" + std::to_string(i);
    return names;
  }();
  if (op >= 0 && op < kNumOps) return kNames[static_cast<size_t>(op)];
  // The decoders and generators only make 0 .. kNumOps - 1, and the end-of-input full check
  // walks only those operators: a hand-written action on another index would escape it, so it
  // is refused here rather than named.
  throw std::out_of_range("oracle::opName: operator index " + std::to_string(op) + " is outside 0.." +
                          std::to_string(kNumOps - 1));
}
std::string opSchema(int op) { return opName(op) + "(Tensor self, Tensor? other, int tag) -> str"; }

namespace {

// Per kind: the enumerator (for C++) and the readable name (for traces and DISPATCH-STEP lines).
struct KindNames {
  std::string_view cpp;
  std::string_view text;
};
constexpr KindNames kKindNames[] = {
    {"Def", "def"},
    {"ImplTyped", "impl typed"},
    {"ImplBoxed", "impl boxed"},
    {"ImplFallthrough", "impl fallthrough"},
    {"FallbackDirect", "registerFallback"},
    {"FallthroughDirect", "registerFallback fallthrough"},
    {"FallbackLibrary", "library fallback"},
    {"FallthroughLibrary", "library fallthrough"},
    {"StartupFallbacks", "startup fallbacks"},
    {"Drop", "drop"},
    {"IncludeKeys", "include guard"},
    {"ExcludeKeys", "exclude guard"},
    {"PopGuard", "pop guard"},
    {"CallTyped", "call"},
    {"CallBoxed", "callBoxed"},
    {"Redispatch", "redispatch"},
    {"KeySetPush", "push"},
    {"KeySetOr", "|"},
    {"KeySetAnd", "&"},
    {"KeySetXor", "^"},
    {"KeySetMinus", "-"},
    {"KeySetOrAssign", "|="},
    {"KeySetAndAssign", "&="},
    {"KeySetAddKey", "add(key)"},
    {"KeySetAddSet", "add(set)"},
    {"KeySetRemoveKey", "remove"},
    {"KeySetRemoveBackend", "remove_backend"},
    {"KeySetAddBackend", "| backend"},
    {"KeySetRedispatchMask", "& FULL_AFTER(highestPriorityTypeId)"},
    {"KeySetHas", "has"},
    {"KeySetHasBackend", "has_backend"},
    {"KeySetHasAll", "has_all"},
    {"KeySetHasAny", "has_any"},
    {"KeySetEqual", "=="},
    {"KeySetIterate", "iterate"},
    {"KeySetHighest", "highest*"},
    {"KeySetAliasQuery", "alias query"},
    {"KeyHelpers", "key helpers"},
    {"Schema", "schema"},
    {"DefLibrary", "library def"},
    {"RedispatchBoxed", "redispatchBoxed"},
    {"CallForKey", "callBoxedForDispatchKey"},
    {"NamedKey", "named key registration"},
    {"LibraryBlock", "library block"},
};
static_assert(std::size(kKindNames) == kNumActionKinds);

const KindNames& namesOf(ActionKind kind) {
  static constexpr KindNames kUnknown{"kCount", "?"};
  const auto index = static_cast<size_t>(kind);
  return index < std::size(kKindNames) ? kKindNames[index] : kUnknown;
}

}  // namespace

std::string_view toString(ActionKind kind) { return namesOf(kind).text; }

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
    case ActionKind::LibraryBlock:
      return true;
    default:
      return false;
  }
}

bool registersOnNamedKey(ActionKind kind) {
  return kind != ActionKind::Def && kind != ActionKind::StartupFallbacks && kind != ActionKind::LibraryBlock &&
         isRegistration(kind);
}

Action Action::libraryBlock(LibraryBlock block, int op, std::optional<DispatchKey> key) {
  Action a;
  a.kind = ActionKind::LibraryBlock;
  a.op = op;
  a.key = key;
  a.block = block;
  return a;
}

Action Action::namedKey(ActionKind registration, int op, std::string key) {
  Action a;
  a.kind = ActionKind::NamedKey;
  a.op = op;
  a.named = NamedKeyRegistration{registration, std::move(key)};
  return a;
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

bool isKeySetAction(ActionKind kind) {
  return kind >= ActionKind::KeySetPush && kind <= ActionKind::KeyHelpers;
}

bool isBoxedStackCall(ActionKind kind) {
  return kind == ActionKind::CallBoxed || kind == ActionKind::RedispatchBoxed || kind == ActionKind::CallForKey;
}

std::string describe(const Action& a, const std::vector<std::string>& op_labels) {
  if (isKeySetAction(a.kind)) return describeKeySetAction(a);
  if (!op_labels.empty() || isDeclaredAction(a)) return describeDeclaredAction(a, op_labels);
  std::ostringstream out;
  if (a.kind == ActionKind::NamedKey) {
    if (!a.named) return "named key registration without a registration";
    out << toString(a.named->registration);
    if (isImpl(a.named->registration)) out << " " << opName(a.op);
    out << " @ named key " << a.named->key;
    return out.str();
  }
  if (a.kind == ActionKind::LibraryBlock) {
    return a.block ? describeLibraryBlock(*a.block, a.op, a.key) : "library block without a block";
  }
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

std::string_view cppName(ActionKind kind) { return namesOf(kind).cpp; }

std::string toCpp(const Action& a) {
  if (isKeySetAction(a.kind)) return keySetActionToCpp(a);
  if (isDeclaredAction(a)) return declaredActionToCpp(a);
  if (a.kind == ActionKind::NamedKey && a.named) {
    return "Action::namedKey(ActionKind::" + std::string(cppName(a.named->registration)) + ", " +
           std::to_string(a.op) + ", " + quote(a.named->key) + ")";
  }
  if (a.kind == ActionKind::LibraryBlock && a.block) {
    return "Action::libraryBlock(" + libraryBlockCpp(*a.block) + ", " + std::to_string(a.op) + ", " +
           (a.key ? keyCpp(*a.key) : std::string("std::nullopt")) + ")";
  }
  return "{ActionKind::" + std::string(cppName(a.kind)) + ", " + std::to_string(a.op) + ", " +
         (a.key ? keyCpp(*a.key) : std::string("std::nullopt")) + ", " + std::to_string(a.handle) +
         ", " + rawCpp(a.keys) + ", " + (a.other ? rawCpp(*a.other) : std::string("std::nullopt")) +
         "}";
}

void printTrace(std::ostream& out, const std::vector<Action>& actions) {
  size_t prologue = 0;
  while (prologue < actions.size() && actions[prologue].kind == ActionKind::Schema) {
    out << "op" << actions[prologue].op << ": " << describe(actions[prologue]) << "\n";
    ++prologue;
  }
  const std::vector<std::string> labels =
      declaredOpLabels({actions.begin(), actions.begin() + static_cast<std::ptrdiff_t>(prologue)});
  for (size_t i = prologue; i < actions.size(); ++i) {
    out << std::setw(3) << i - prologue << ": " << describe(actions[i], labels) << "\n";
  }
}

}  // namespace dispatch::oracle
