#pragma once
// The action vocabulary: one dispatcher API call per Action (registrations, drops, TLS guards,
// calls). The fuzz targets decode actions from bytes (oracle/action_codec.h), the properties
// generate them, both run them through oracle/trace_runner.h; they print as readable dispatcher
// calls and as C++ for regression tests.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dispatch/dispatch_key.h"

namespace dispatch::oracle {

// The operators every trace works on: "fz::op0" .. "fz::op3", schema
// (Tensor self, Tensor? other, int tag) -> str. Kernels return "<kernel name>@<key set>".
inline constexpr int kNumOps = 4;
std::string opName(int op);
std::string opSchema(int op);

enum class ActionKind : uint8_t {
  Def,                // registerDef(schema of op)
  ImplTyped,          // registerImpl(op, key or catch-all, typed kernel)
  ImplBoxed,          // registerImpl(op, key or catch-all, boxed kernel)
  ImplFallthrough,    // registerImpl(op, key or catch-all, fallthrough)
  FallbackDirect,     // Dispatcher::registerFallback(key, boxed kernel)
  FallthroughDirect,  // Dispatcher::registerFallback(key, fallthrough)
  FallbackLibrary,    // DISPATCH_LIBRARY_IMPL(_, key) { m.fallback(boxed) }
  FallthroughLibrary, // DISPATCH_LIBRARY_IMPL(_, key) { m.fallback(fallthrough) }
  StartupFallbacks,   // the fallbacks PyTorch 1.13 registers at start-up
  Drop,               // release() one handle (any handle ever made: twice is an error)
  IncludeKeys,        // push IncludeDispatchKeyGuard(keys)
  ExcludeKeys,        // push ExcludeDispatchKeyGuard(keys)
  PopGuard,           // pop the newest TLS guard
  CallTyped,          // op.typed<...>().call(self, other, tag)
  CallBoxed,          // op.callBoxed(stack)
  Redispatch,         // op.typed<...>().redispatch(keys, ...)
  kCount,
};
inline constexpr int kNumActionKinds = static_cast<int>(ActionKind::kCount);
std::string_view toString(ActionKind kind);

struct Action {
  ActionKind kind = ActionKind::Def;
  int op = 0;                        // operator index, 0 .. kNumOps - 1
  std::optional<DispatchKey> key;    // impl (nullopt: catch-all) and fallback actions
  uint32_t handle = 0;               // Drop: index into every handle made so far (modulo)
  uint64_t keys = 0;                 // TLS guards, Redispatch: a raw key set; calls: self's set
  std::optional<uint64_t> other;     // calls: the optional second tensor's raw set
  bool operator==(const Action&) const = default;
};

bool isRegistration(ActionKind kind);  // def, impl, fallbacks, start-up fallbacks
bool isImpl(ActionKind kind);          // the three impl kinds
bool isFallthrough(ActionKind kind);   // registers a fallthrough kernel
bool isCall(ActionKind kind);          // typed call, boxed call, redispatch
bool isGuard(ActionKind kind);         // push or pop a TLS guard

// "impl fz::op1 @ AutogradCPU <- typed kernel" style, one line.
std::string describe(const Action& action);
// The trace as a numbered list, for --print and crash reports.
void printTrace(std::ostream& out, const std::vector<Action>& actions);

// The action as a C++ aggregate initializer, all six fields positional, e.g.
//   {ActionKind::ImplTyped, 1, DispatchKey::AutogradCPU, 0, 0, std::nullopt}
// (keys not named by the enum as static_cast<DispatchKey>(N), key sets as hex literals), for
// regression tests written by ci/repro.sh; assumes `using dispatch::DispatchKey;` and
// `using dispatch::oracle::ActionKind;`.
std::string toCpp(const Action& action);

}  // namespace dispatch::oracle
