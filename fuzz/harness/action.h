#pragma once
// Dispatcher action traces: the input language of the API-sequence fuzzers. Bytes decode into a
// bounded list of actions (one byte picks the action, FuzzedDataProvider the arguments), which
// print as readable dispatcher calls and run against the real dispatcher and the model.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dispatch/dispatch_key.h"

namespace dispatch::fuzz {

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
};

// How often each action kind is picked: one weight per kind (0 = never). Targets differ only in
// their weights (fallback_fuzzer favours fallbacks, registration_fuzzer spreads evenly).
struct ActionWeights {
  int weight[kNumActionKinds];
};
extern const ActionWeights kRegistrationWeights;
extern const ActionWeights kFallbackWeights;

// Hard cap on actions per input: bounded work per input (harness-notes B1).
inline constexpr size_t kMaxActions = 48;

std::vector<Action> decodeActions(const uint8_t* data, size_t size, const ActionWeights& weights);

// "impl fz::op1 @ AutogradCPU <- typed kernel" style, one line.
std::string describe(const Action& action);
// The trace as a numbered list, for --print and crash reports.
void printTrace(std::ostream& out, const std::vector<Action>& actions);

// The action as a C++ aggregate initializer, all six fields positional, e.g.
//   {ActionKind::ImplTyped, 1, DispatchKey::AutogradCPU, 0, 0, std::nullopt}
// (keys not named by the enum as static_cast<DispatchKey>(N), key sets as hex literals), for
// regression tests written by ci/repro.sh; assumes `using dispatch::DispatchKey;` and
// `using dispatch::fuzz::ActionKind;`.
std::string toCpp(const Action& action);

}  // namespace dispatch::fuzz
