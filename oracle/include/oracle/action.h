#pragma once
// The action vocabulary: one dispatcher API call per Action (registrations, drops, TLS guards,
// calls), or one key-set operation (the key-set algebra and key helpers, on a pool of sets). The
// fuzz targets decode actions from bytes (oracle/action_codec.h) with their own weights, the
// properties generate them; dispatcher actions run through oracle/trace_runner.h. They print as
// readable calls and as C++ for regression tests.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
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
  // Key-set actions (no dispatcher): "set#N" is entry N (modulo its size) of a pool of the
  // newest sets; every set pushed is checked, every query compared.
  KeySetPush,            // a new set from recipe
  KeySetOr,              // set#lhs | set#rhs
  KeySetAnd,             // set#lhs & set#rhs
  KeySetXor,             // set#lhs ^ set#rhs
  KeySetMinus,           // set#lhs - set#rhs
  KeySetOrAssign,        // set#lhs |= set#rhs (in place)
  KeySetAndAssign,       // set#lhs &= set#rhs (in place)
  KeySetAddKey,          // set#lhs.add(key)
  KeySetAddSet,          // set#lhs.add(set#rhs)
  KeySetRemoveKey,       // set#lhs.remove(key)
  KeySetRemoveBackend,   // set#lhs.remove_backend(backend)
  KeySetAddBackend,      // set#lhs | DispatchKeySet(backend)
  KeySetRedispatchMask,  // set#lhs & FULL_AFTER(its highestPriorityTypeId()), the redispatch idiom
  KeySetHas,             // set#lhs.has(key)
  KeySetHasBackend,      // set#lhs.has_backend(backend)
  KeySetHasAll,          // set#lhs.has_all(set#rhs), isSupersetOf
  KeySetHasAny,          // set#lhs.has_any(set#rhs)
  KeySetEqual,           // set#lhs == set#rhs
  KeySetIterate,         // the iterator protocol over set#lhs
  KeySetHighest,         // highest* / getBackendIndex / highestPriorityBackendTypeId of set#lhs
  KeySetAliasQuery,      // isIncludedInAlias / runtimeDispatchKeySetHas(.., key) over set#lhs
  KeyHelpers,            // the per-key helpers of dispatch_key.h and key_sets.h for key, backend
  kCount,
};
inline constexpr int kNumActionKinds = static_cast<int>(ActionKind::kCount);
std::string_view toString(ActionKind kind);

// Where a pushed key set comes from.
enum class KeySetSource : uint8_t {
  Raw,                  // DispatchKeySet(RAW, raw)
  Key,                  // DispatchKeySet(keys[0])
  Keys,                 // keys folded by style: 0 | of singles, 1 add() chain, 2 initializer lists
  Backends,             // backend bits; style 0 |= each, 1 initializer list of the first two
  MixedBackends,        // perBackendInstance(block #style, each backend), then the extra keys
  Tensor,               // tensorKeySet(TensorKind(style), backends[0], ..., inference)
  Predefined,           // kPredefinedKeySetNames[style]
  FullAfter,            // FULL_AFTER(keys[0])
  AliasSet,             // getRuntimeDispatchKeySet(keys[0])
  AutogradRelated,      // getAutogradRelatedKeySetFromBackend(backends[0])
  AutocastRelated,      // getAutocastRelatedKeySetFromBackend(backends[0])
  BackendFromAutograd,  // getBackendKeySetFromAutograd(keys[0])
  kCount,
};
inline constexpr int kNumKeySetSources = static_cast<int>(KeySetSource::kCount);

struct KeySetRecipe {
  KeySetSource source = KeySetSource::Raw;
  uint64_t raw = 0;
  std::vector<DispatchKey> keys;
  std::vector<BackendComponent> backends;
  int style = 0;
  bool inference = false;
  bool operator==(const KeySetRecipe&) const = default;
};

// The predefined sets of dispatch/key_sets.h (and FULL, empty) a recipe can name, by index.
inline constexpr std::string_view kPredefinedKeySetNames[] = {
    "all_backends_keyset", "autograd_dispatch_keyset", "autocast_dispatch_keyset",
    "default_included_set", "default_excluded_set", "autograd_dispatch_keyset_with_ADInplaceOrView",
    "python_ks", "sparse_ks", "sparse_csr_ks", "mkldnn_ks", "autogradother_backends",
    "after_autograd_keyset", "after_ADInplaceOrView_keyset", "after_func_keyset",
    "backend_functionality_keys", "functorch_transforms_ks", "backend_dispatch_keyset",
    "math_dispatch_keyset", "non_functional_backend_dispatch_keyset", "nested_dispatch_keyset",
    "FULL", "empty"};
inline constexpr int kNumPredefinedKeySets = static_cast<int>(std::size(kPredefinedKeySetNames));

// The per-backend functionality a MixedBackends recipe's style names (model order).
DispatchKey mixedBackendsBlock(int style);
// The keys a MixedBackends recipe stands for: block instances on each backend, then the extras.
std::vector<DispatchKey> mixedBackendsKeys(const KeySetRecipe& recipe);

struct Action {
  Action() = default;
  // A dispatcher action by its six fields, as regression tests spell it.
  Action(ActionKind kind_, int op_, std::optional<DispatchKey> key_, uint32_t handle_,
         uint64_t keys_, std::optional<uint64_t> other_)
      : kind(kind_), op(op_), key(key_), handle(handle_), keys(keys_), other(other_) {}
  // A key-set action by its fields.
  static Action keySet(ActionKind kind, uint8_t lhs, uint8_t rhs, std::optional<DispatchKey> key,
                       BackendComponent backend, KeySetRecipe recipe);

  ActionKind kind = ActionKind::Def;
  int op = 0;                        // operator index, 0 .. kNumOps - 1
  std::optional<DispatchKey> key;    // impl (nullopt: catch-all), fallbacks, key-set key
  uint32_t handle = 0;               // Drop: index into every handle made so far (modulo)
  uint64_t keys = 0;                 // TLS guards, Redispatch: a raw key set; calls: self's set
  std::optional<uint64_t> other;     // calls: the optional second tensor's raw set
  // Key-set actions only:
  KeySetRecipe recipe;               // KeySetPush
  uint8_t lhs = 0;                   // pool operands (modulo the pool size)
  uint8_t rhs = 0;
  BackendComponent backend = BackendComponent::InvalidBit;
  bool operator==(const Action&) const = default;
};

bool isRegistration(ActionKind kind);  // def, impl, fallbacks, start-up fallbacks
bool isImpl(ActionKind kind);          // the three impl kinds
bool isFallthrough(ActionKind kind);   // registers a fallthrough kernel
bool isCall(ActionKind kind);          // typed call, boxed call, redispatch
bool isGuard(ActionKind kind);         // push or pop a TLS guard
bool isKeySetAction(ActionKind kind);  // KeySetPush .. KeyHelpers: no dispatcher involved

// "impl typed fz::op1 @ AutogradCPU", "| set#3 set#5" style, one line.
std::string describe(const Action& action);
// The trace as a numbered list, for --print and crash reports.
void printTrace(std::ostream& out, const std::vector<Action>& actions);

// The action as a C++ aggregate initializer, for regression tests written by ci/repro.sh.
// Dispatcher actions by the six-field constructor, e.g.
//   {ActionKind::ImplTyped, 1, DispatchKey::AutogradCPU, 0, 0, std::nullopt}
// key-set actions by Action::keySet(kind, lhs, rhs, key, backend, {recipe, all six fields}). Keys not named by the enum print as
// static_cast<DispatchKey>(N), key sets as hex literals; assumes `using dispatch::DispatchKey;`,
// `using dispatch::BackendComponent;`, `using dispatch::oracle::ActionKind;` and
// `using dispatch::oracle::KeySetSource;`.
std::string toCpp(const Action& action);

}  // namespace dispatch::oracle
