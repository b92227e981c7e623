#include "action.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <iomanip>
#include <sstream>

#include "dispatch/dispatch_key_set.h"
#include "dispatch/tensor.h"
#include "names.h"

namespace dispatch::fuzz {

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

//                                       Def Typed Boxed FT FbD FtD FbL FtL Start Drop Inc Exc Pop Call CallB Redisp
const ActionWeights kRegistrationWeights{{6, 10, 6, 4, 3, 3, 3, 3, 1, 10, 3, 3, 3, 12, 6, 4}};
const ActionWeights kFallbackWeights{{3, 3, 2, 1, 10, 10, 10, 10, 3, 12, 1, 1, 1, 6, 3, 2}};

namespace {

constexpr uint16_t kLastKeyValue = toUnderlying(DispatchKey::EndOfAliasKeys);

// Mostly declared keys (runtime, alias, building blocks, placeholders), sometimes garbage.
DispatchKey consumeKey(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
    return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
  }
  return static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue));
}

// Realistic tensors most of the time, then unions of keys, then raw 64-bit patterns.
uint64_t consumeKeySet(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return in.ConsumeIntegral<uint64_t>();
    case 1:
    case 2: {
      DispatchKeySet ks;
      const int n = in.ConsumeIntegralInRange<int>(0, 4);
      for (int i = 0; i < n; ++i) ks = ks.add(consumeKey(in));
      return ks.raw_repr();
    }
    default: {
      const auto kind = static_cast<TensorKind>(in.ConsumeIntegralInRange<int>(0, 3));
      const auto backend = static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
      const bool inference = in.ConsumeIntegralInRange<int>(0, 5) == 0;
      return tensorKeySet(kind, backend, false, inference).raw_repr();
    }
  }
}

ActionKind pickKind(FuzzedDataProvider& in, const ActionWeights& weights) {
  int total = 0;
  for (int w : weights.weight) total += w;
  int roll = in.ConsumeIntegral<uint8_t>() % total;
  for (int i = 0; i < kNumActionKinds; ++i) {
    roll -= weights.weight[i];
    if (roll < 0) return static_cast<ActionKind>(i);
  }
  return ActionKind::Def;
}

}  // namespace

std::vector<Action> decodeActions(const uint8_t* data, size_t size, const ActionWeights& weights) {
  FuzzedDataProvider in(data, size);
  std::vector<Action> actions;
  while (in.remaining_bytes() > 0 && actions.size() < kMaxActions) {
    Action a;
    a.kind = pickKind(in, weights);
    a.op = in.ConsumeIntegralInRange<int>(0, kNumOps - 1);
    switch (a.kind) {
      case ActionKind::ImplTyped:
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough:
        if (in.ConsumeIntegralInRange<int>(0, 9) != 0) a.key = consumeKey(in);
        break;
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect:
      case ActionKind::FallbackLibrary:
      case ActionKind::FallthroughLibrary:
        a.key = consumeKey(in);
        break;
      case ActionKind::Drop:
        a.handle = in.ConsumeIntegral<uint8_t>();
        break;
      case ActionKind::IncludeKeys:
      case ActionKind::ExcludeKeys:
      case ActionKind::Redispatch:
        a.keys = consumeKeySet(in);
        break;
      case ActionKind::CallTyped:
      case ActionKind::CallBoxed:
        a.keys = consumeKeySet(in);
        if (in.ConsumeBool()) a.other = consumeKeySet(in);
        break;
      default:
        break;
    }
    actions.push_back(a);
  }
  return actions;
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

}  // namespace dispatch::fuzz
