#pragma once
// BackendComponent and DispatchKey, generated from the key table (key_table.h), with the pure
// helpers of docs/semantics.md §1.6. Integer values match PyTorch 1.13.1 exactly.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/key_table.h"

namespace dispatch {

#define DISPATCH_DETAIL_COUNT_BACKEND(extra, b) +1
#define DISPATCH_DETAIL_COUNT_ONE(...) +1
#define DISPATCH_DETAIL_IGNORE(...)

// Backend building blocks. Value b >= 1 owns key-set bit b - 1; higher value, higher priority.
enum class BackendComponent : uint8_t {
  InvalidBit = 0,
#define DISPATCH_DETAIL_BACKEND_BIT(extra, b) b##Bit,
  DISPATCH_FORALL_BACKEND_COMPONENTS(DISPATCH_DETAIL_BACKEND_BIT, )
#undef DISPATCH_DETAIL_BACKEND_BIT
  EndOfBackendKeys = PrivateUse3Bit,
};

inline constexpr uint8_t num_backends =
    0 DISPATCH_FORALL_BACKEND_COMPONENTS(DISPATCH_DETAIL_COUNT_BACKEND, );

// Functionality values incl. Undefined (== EndOfFunctionalityKeys).
inline constexpr uint8_t num_functionality_keys =
    1 DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_COUNT_ONE, DISPATCH_DETAIL_COUNT_ONE);

inline constexpr uint8_t num_per_backend_functionality_keys =
    0 DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_COUNT_ONE);

enum class DispatchKey : uint16_t {
  Undefined = 0,

  // Functionality keys, lowest priority first (bits num_backends .. num_backends + 39).
#define DISPATCH_DETAIL_FUNCTIONALITY(name, ...) name,
  DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_FUNCTIONALITY, DISPATCH_DETAIL_FUNCTIONALITY)
#undef DISPATCH_DETAIL_FUNCTIONALITY
  EndOfFunctionalityKeys,

  // Per-backend runtime keys: for each per-backend functionality F, a placeholder
  // StartOfFBackends (backend InvalidBit) followed by one key per backend in BackendComponent
  // order, so that key - StartOfFBackends == BackendComponent value (Note [Key Table]).
#define DISPATCH_DETAIL_RUNTIME_KEY(prefix, b) prefix##b,
#define DISPATCH_DETAIL_BLOCK(name, prefix)                                      \
  StartOf##name##Backends,                                                       \
      DISPATCH_FORALL_BACKEND_COMPONENTS(DISPATCH_DETAIL_RUNTIME_KEY, prefix)    \
          EndOf##name##Backends = StartOf##name##Backends + num_backends,
  DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_BLOCK)
#undef DISPATCH_DETAIL_BLOCK
#undef DISPATCH_DETAIL_RUNTIME_KEY
  EndOfRuntimeBackendKeys = EndOfAutogradFunctionalityBackends,

  // Alias keys.
#define DISPATCH_DETAIL_ALIAS(name) name,
  DISPATCH_FORALL_ALIAS_KEYS(DISPATCH_DETAIL_ALIAS)
#undef DISPATCH_DETAIL_ALIAS
  StartOfAliasKeys = Autograd,
  EndOfAliasKeys = CompositeExplicitAutogradNonFunctional,

  // Backward-compatible names.
#define DISPATCH_DETAIL_BC(alias, key) alias = key,
  DISPATCH_FORALL_BC_ALIASES(DISPATCH_DETAIL_BC)
#undef DISPATCH_DETAIL_BC

  // For FuzzedDataProvider::ConsumeEnum: every value 0..kMaxValue is a declared key.
  kMaxValue = EndOfAliasKeys,
};

// Runtime table size of the full flavour: one slot per functionality value (Undefined
// included) plus num_backends - 1 extra slots per per-backend functionality.
inline constexpr int num_runtime_entries =
    num_functionality_keys + num_per_backend_functionality_keys * (num_backends - 1);

// Bit budgets (docs/semantics.md §1.2, 1.5, 3.1).
static_assert(num_backends <= 16, "backend masks and offsets are uint16_t");
static_assert(num_backends + num_functionality_keys <= 64, "a key set is 64 bits");
static_assert(num_runtime_entries < 65536, "table indices are uint16_t");
static_assert(static_cast<uint8_t>(BackendComponent::EndOfBackendKeys) == num_backends);
static_assert(static_cast<uint16_t>(DispatchKey::EndOfFunctionalityKeys) == num_functionality_keys);

// The values PyTorch 1.13.1 ships; a change to the key table must be deliberate.
static_assert(num_backends == 14 && num_functionality_keys == 41 &&
              num_per_backend_functionality_keys == 5 && num_runtime_entries == 106);
static_assert(static_cast<uint16_t>(DispatchKey::CPU) == 43 &&
              static_cast<uint16_t>(DispatchKey::QuantizedCPU) == 58 &&
              static_cast<uint16_t>(DispatchKey::SparseCPU) == 73 &&
              static_cast<uint16_t>(DispatchKey::NestedTensorCPU) == 88 &&
              static_cast<uint16_t>(DispatchKey::AutogradCPU) == 103 &&
              static_cast<uint16_t>(DispatchKey::EndOfRuntimeBackendKeys) == 116 &&
              static_cast<uint16_t>(DispatchKey::Autograd) == 117 &&
              static_cast<uint16_t>(DispatchKey::EndOfAliasKeys) == 121);

constexpr uint16_t toUnderlying(DispatchKey k) noexcept { return static_cast<uint16_t>(k); }
constexpr uint8_t toUnderlying(BackendComponent b) noexcept { return static_cast<uint8_t>(b); }

// --- Classification --------------------------------------------------------------------------

// True for every value the enum declares (0 .. EndOfAliasKeys); false for out-of-range integers.
constexpr bool isValidDispatchKey(DispatchKey k) noexcept {
  return toUnderlying(k) <= toUnderlying(DispatchKey::EndOfAliasKeys);
}

constexpr bool isValidBackendComponent(BackendComponent b) noexcept {
  return toUnderlying(b) <= num_backends;
}

constexpr bool isAliasDispatchKey(DispatchKey k) noexcept {
  return DispatchKey::StartOfAliasKeys <= k && k <= DispatchKey::EndOfAliasKeys;
}

constexpr bool isPerBackendFunctionalityKey(DispatchKey k) noexcept {
#define DISPATCH_DETAIL_IS(name, prefix) || k == DispatchKey::name
  return false DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_IS);
#undef DISPATCH_DETAIL_IS
}

// The last functionality must not be per-backend (docs/semantics.md §3.2 sanity assertion).
static_assert(!isPerBackendFunctionalityKey(
    static_cast<DispatchKey>(num_functionality_keys - 1)));

// Start placeholder of each per-backend block, indexed 0 .. num_per_backend - 1.
namespace detail {
inline constexpr DispatchKey per_backend_block_starts[] = {
#define DISPATCH_DETAIL_START(name, prefix) DispatchKey::StartOf##name##Backends,
    DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_START)
#undef DISPATCH_DETAIL_START
};
inline constexpr DispatchKey per_backend_functionalities[] = {
#define DISPATCH_DETAIL_FN(name, prefix) DispatchKey::name,
    DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_FN)
#undef DISPATCH_DETAIL_FN
};
}  // namespace detail

// A per-backend runtime key (CPU, QuantizedCUDA, AutogradXLA, ...) or a block placeholder.
constexpr bool isInPerBackendBlock(DispatchKey k) noexcept {
  return DispatchKey::EndOfFunctionalityKeys < k && k <= DispatchKey::EndOfRuntimeBackendKeys;
}

constexpr DispatchKey toFunctionalityKey(DispatchKey k) noexcept {
  if (k <= DispatchKey::EndOfFunctionalityKeys) return k;
  for (int i = 0; i < num_per_backend_functionality_keys; ++i) {
    const auto start = detail::per_backend_block_starts[i];
    if (start <= k && toUnderlying(k) <= toUnderlying(start) + num_backends) {
      return detail::per_backend_functionalities[i];
    }
  }
  return DispatchKey::Undefined;
}

constexpr BackendComponent toBackendComponent(DispatchKey k) noexcept {
  if (!isInPerBackendBlock(k)) return BackendComponent::InvalidBit;
  for (auto start : detail::per_backend_block_starts) {
    if (start <= k && toUnderlying(k) <= toUnderlying(start) + num_backends) {
      return static_cast<BackendComponent>(toUnderlying(k) - toUnderlying(start));
    }
  }
  return BackendComponent::InvalidBit;
}

constexpr DispatchKey toRuntimePerBackendFunctionalityKey(DispatchKey functionality,
                                                          BackendComponent b) noexcept {
  for (int i = 0; i < num_per_backend_functionality_keys; ++i) {
    if (detail::per_backend_functionalities[i] == functionality) {
      return static_cast<DispatchKey>(toUnderlying(detail::per_backend_block_starts[i]) +
                                      toUnderlying(b));
    }
  }
  return DispatchKey::Undefined;
}

// A key that owns a table slot and can be the result of highestPriorityTypeId on a set with
// backend bits: a plain functionality or a per-backend instance (not a placeholder, not Undefined).
constexpr bool isRuntimeDispatchKey(DispatchKey k) noexcept {
  if (k == DispatchKey::Undefined) return false;
  if (k < DispatchKey::EndOfFunctionalityKeys) return !isPerBackendFunctionalityKey(k);
  return isInPerBackendBlock(k) && toBackendComponent(k) != BackendComponent::InvalidBit;
}

// Every per-backend block is in exact backend order (docs/semantics.md §1.4 ordering invariant).
static_assert(toBackendComponent(DispatchKey::CPU) == BackendComponent::CPUBit);
static_assert(toBackendComponent(DispatchKey::AutogradPrivateUse3) ==
              BackendComponent::PrivateUse3Bit);
static_assert(toFunctionalityKey(DispatchKey::SparseMeta) == DispatchKey::Sparse);
static_assert(toRuntimePerBackendFunctionalityKey(DispatchKey::Quantized,
                                                  BackendComponent::CUDABit) ==
              DispatchKey::QuantizedCUDA);

// --- Names -----------------------------------------------------------------------------------

// Canonical name ("CPU", "AutogradUnknown" for a placeholder, "CPUBit"); values outside the
// enum print as "UNKNOWN_TENSOR_TYPE_ID" / "UNKNOWN_BACKEND_BIT".
std::string_view toString(DispatchKey k) noexcept;
std::string_view toString(BackendComponent b) noexcept;
std::ostream& operator<<(std::ostream& out, DispatchKey k);
std::ostream& operator<<(std::ostream& out, BackendComponent b);

// Accepts every canonical name and the backward-compatible names; throws InvalidKeyError
// ("could not parse dispatch key: <name>") otherwise.
DispatchKey parseDispatchKey(std::string_view name);
std::optional<DispatchKey> tryParseDispatchKey(std::string_view name) noexcept;

// Throws InvalidKeyError naming `what` unless k is a declared enum value.
void checkValidDispatchKey(DispatchKey k, std::string_view what);
// The message of that error (for the registration functions that return it as a value).
std::string invalidDispatchKeyMessage(DispatchKey k, std::string_view what);

}  // namespace dispatch
