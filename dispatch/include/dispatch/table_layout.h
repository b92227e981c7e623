#pragma once
// Table layouts: how a key set maps to a runtime-table slot (docs/semantics.md §3 and 6.2).
// A layout is a type with kName, kNumEntries and a constexpr indexOf(); every per-flavour
// class is a template on it. "Index < 0" means "this key has no slot in this flavour".
// The flavours themselves are data (cmake/flavours.list); the trimmed layouts, the list
// DISPATCH_FOR_EACH_LAYOUT and the type lists AllLayouts / DeclaredLayouts are generated from
// it into dispatch/generated_layouts.h (build tree), included at the end of this header.

#include <array>
#include <bit>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "dispatch/dispatch_key_set.h"

namespace dispatch {

namespace detail {

struct OffsetAndMask {
  int16_t offset;
  uint16_t mask;
};

// One (offset, mask) per functionality value 0 .. 40, plus entries for the raw-bit values
// 41 .. 50 a 64-bit pattern can name; those map to -1 so that no pattern indexes out of range.
inline constexpr int kNumOffsetEntries = 64 - num_backends + 1;

constexpr std::array<OffsetAndMask, kNumOffsetEntries> computeOffsetsAndMasks() {
  std::array<OffsetAndMask, kNumOffsetEntries> result{};
  result[0] = {0, 0};
  for (int f = 1; f < num_functionality_keys; ++f) {
    const auto prev = result[static_cast<size_t>(f - 1)];
    const int offset = prev.offset + (prev.mask == 0 ? 1 : num_backends);
    const bool per_backend = isPerBackendFunctionalityKey(static_cast<DispatchKey>(f));
    result[static_cast<size_t>(f)] = {
        static_cast<int16_t>(offset),
        static_cast<uint16_t>(per_backend ? DispatchKeySet::full_backend_mask : 0)};
  }
  for (int f = num_functionality_keys; f < kNumOffsetEntries; ++f) {
    result[static_cast<size_t>(f)] = {-1, 0};
  }
  return result;
}

inline constexpr auto offsets_and_masks = computeOffsetsAndMasks();
static_assert(offsets_and_masks[num_functionality_keys - 1].offset == num_runtime_entries - 1,
              "the highest functionality must not be per-backend");

// Inverse of a trimmed layout's slot list: slot of every enum value, -1 when absent.
template <size_t N>
constexpr auto slotOfKeyMap(const std::array<DispatchKey, N>& slot_keys) {
  static_assert(N <= 127);
  std::array<int8_t, toUnderlying(DispatchKey::EndOfAliasKeys) + 1> slots{};
  slots.fill(-1);
  for (size_t i = 0; i < N; ++i) slots[toUnderlying(slot_keys[i])] = static_cast<int8_t>(i);
  return slots;
}

// Note [Slot Rows]
// The lookup side of every layout: a key set's slot depends only on its highest bit and on its
// highest backend bit, so each layout has one compile-time row per bit width w of the set
// (0 .. 64): rows[w] = {base, backend mask}. Full: slot = base + index of the highest masked
// backend bit (0 when none: the CPU quirk of docs/semantics.md §3.5). Trimmed: slot =
// map[base + bit width of the masked backend bits] (0 = no backend, which some keys
// distinguish from CPU). Two count-leading-zeros, the row load and, for trimmed layouts, one
// byte load; no branch. The value kNumEntries means "no slot" and names the always-empty
// sentinel slot of every table.
struct SlotRow {
  uint32_t base;
  uint32_t backend_mask;
};
inline constexpr int kNumSlotRows = 65;

// Index of the highest set bit of a non-zero x. A plain bsr at run time: std::countl_zero's
// int result costs gcc a sign extension before every use as an index.
constexpr uint64_t highestBitOfNonZero(uint64_t x) noexcept {
#if defined(__x86_64__)
  if (!std::is_constant_evaluated()) {
    uint64_t index;
    asm("bsr %1, %0" : "=r"(index) : "rm"(x) : "cc");
    return index;
  }
#endif
  return 63u ^ static_cast<uint64_t>(std::countl_zero(x));
}
// Index of the highest set bit of x | 1: no zero test.
constexpr uint64_t highestBitOf(uint64_t x) noexcept { return highestBitOfNonZero(x | 1u); }
// Bit width of x for any x: the highest bit of x | 1, plus one (x = 0 shares row 1 with x = 1;
// both have no functionality bit).
constexpr uint64_t rowOf(uint64_t x) noexcept { return highestBitOf(x) + 1u; }
// Bit width of x when bit 63 is clear (every set computeDispatchKeySet returns): lea + bsr.
constexpr uint64_t rowOfBelowBit63(uint64_t x) noexcept { return highestBitOfNonZero(2 * x + 1); }
// Bit width of a backend-bit pattern (< 2^14): 0 for none, b for backend b.
constexpr uint32_t backendWidth(uint64_t backend_bits) noexcept {
  return static_cast<uint32_t>(rowOfBelowBit63(backend_bits));
}

// The functionality a row stands for: 0 (no functionality bit), 1 .. 40, or > 40 (bits past
// the last functionality: no key, no slot).
constexpr int functionalityOfRow(int w) noexcept {
  return w <= num_backends ? 0 : w - num_backends;
}
constexpr bool isPerBackendRow(int w) noexcept {
  const int f = functionalityOfRow(w);
  return f > 0 && f < num_functionality_keys &&
         isPerBackendFunctionalityKey(static_cast<DispatchKey>(f));
}

// Full layout rows: the offset and backend mask of the row's functionality.
constexpr std::array<SlotRow, kNumSlotRows> computeFullRows() {
  std::array<SlotRow, kNumSlotRows> rows{};
  for (int w = 0; w < kNumSlotRows; ++w) {
    const int f = functionalityOfRow(w);
    if (f >= num_functionality_keys) {
      rows[static_cast<size_t>(w)] = {num_runtime_entries, 0};
      continue;
    }
    const auto& entry = offsets_and_masks[static_cast<size_t>(f)];
    rows[static_cast<size_t>(w)] = {static_cast<uint32_t>(entry.offset), entry.mask};
  }
  return rows;
}
inline constexpr auto full_rows = computeFullRows();

// docs/semantics.md §6.2: the slot of highestPriorityTypeId in a trimmed layout, -1 when it
// has none.
template <size_t M>
constexpr int trimmedReferenceIndex(DispatchKeySet ks, const std::array<int8_t, M>& slot_of_key) {
  // Bits past the last functionality name no key; highestPriorityTypeId would decode bit 56
  // as value 43 (CPU). Absent, as in FullLayout.
  if (ks.raw_repr() >> (num_backends + num_functionality_keys - 1)) return -1;
  const DispatchKey k = ks.highestPriorityTypeId();
  if (!isValidDispatchKey(k)) return -1;
  return slot_of_key[toUnderlying(k)];
}

// A per-backend row gets num_backends + 1 map bytes (backend width 0 .. 14), others one.
inline constexpr int kTrimmedMapSize = [] {
  int size = 0;
  for (int w = 0; w < kNumSlotRows; ++w) size += isPerBackendRow(w) ? num_backends + 1 : 1;
  return size;
}();
struct TrimmedMap {
  std::array<SlotRow, kNumSlotRows> rows{};
  std::array<uint8_t, kTrimmedMapSize> slots{};
};
// Row w covers the sets of bit width w; its bytes hold the reference slot of one such set per
// backend width (num_entries where the reference says -1).
template <size_t M>
constexpr TrimmedMap computeTrimmedMap(const std::array<int8_t, M>& slot_of_key, int num_entries) {
  TrimmedMap map{};
  int next = 0;
  auto slotFor = [&](uint64_t repr) {
    const int index = trimmedReferenceIndex(DispatchKeySet(DispatchKeySet::RAW, repr), slot_of_key);
    return static_cast<uint8_t>(index < 0 ? num_entries : index);
  };
  for (int w = 0; w < kNumSlotRows; ++w) {
    const uint64_t top = w == 0 ? 0 : uint64_t{1} << (w - 1);
    if (!isPerBackendRow(w)) {
      map.rows[static_cast<size_t>(w)] = {static_cast<uint32_t>(next), 0};
      map.slots[static_cast<size_t>(next++)] = slotFor(top);
      continue;
    }
    map.rows[static_cast<size_t>(w)] = {static_cast<uint32_t>(next),
                                        static_cast<uint32_t>(DispatchKeySet::full_backend_mask)};
    for (int b = 0; b <= num_backends; ++b) {
      const uint64_t backend = b == 0 ? 0 : uint64_t{1} << (b - 1);
      map.slots[static_cast<size_t>(next++)] = slotFor(top | backend);
    }
  }
  return map;
}

}  // namespace detail

// Note [Full Layout]
// 106 slots: index = offset(f) + index of the highest backend bit (masked to per-backend
// functionalities), f being the highest functionality bit (docs/semantics.md §3.3). Quirks
// kept on purpose (§3.5): a per-backend functionality without backend bits lands on the CPU
// slot; the empty set and alias keys land on slot 0. Raw patterns with bits past the last
// functionality have no slot (-1). See Note [Slot Rows] for how lookups compute it.
struct FullLayout {
  static constexpr std::string_view kName = "full";
  static constexpr int kNumEntries = num_runtime_entries;

  // The slot, or kNumEntries (the empty sentinel slot) when the set has none. Any pattern.
  static constexpr uint32_t slotOf(DispatchKeySet ks) noexcept {
    return slotInRow(detail::full_rows[detail::rowOf(ks.raw_repr())], ks.raw_repr());
  }
  // The same for a set without bit 63 (what computeDispatchKeySet returns): one instruction less.
  static constexpr uint32_t slotOfBelowBit63(DispatchKeySet ks) noexcept {
    return slotInRow(detail::full_rows[detail::rowOfBelowBit63(ks.raw_repr())], ks.raw_repr());
  }
  static constexpr int indexOf(DispatchKeySet ks) noexcept {
    const auto slot = static_cast<int>(slotOf(ks));
    return slot == kNumEntries ? -1 : slot;
  }
  static constexpr int indexOf(DispatchKey k) noexcept { return indexOf(DispatchKeySet(k)); }

  // docs/semantics.md §3.3 literally, for tests and for building the rows.
  static constexpr int referenceIndexOf(DispatchKeySet ks) noexcept {
    const uint64_t repr = ks.raw_repr();
    const uint8_t f = DispatchKeySet::indexOfHighestBit(repr >> num_backends);
    const auto& entry = detail::offsets_and_masks[f];
    const uint8_t backend_index = DispatchKeySet::indexOfHighestBit((repr & entry.mask) >> 1);
    return entry.offset + backend_index;
  }

  // Fallthrough masks: one per backend (Note [Fallthrough Masks] in operator_entry.cpp).
  static constexpr int kNumFallthroughMasks = num_backends;
  static constexpr uint64_t fallthroughMaskOf(uint64_t args_repr) noexcept {
    return detail::highestBitOf(args_repr & DispatchKeySet::full_backend_mask);
  }
  static constexpr int fallthroughMaskOfBackend(BackendComponent b) noexcept {
    return toUnderlying(b) == 0 ? 0 : toUnderlying(b) - 1;
  }

 private:
  static constexpr uint32_t slotInRow(detail::SlotRow row, uint64_t repr) noexcept {
    return row.base + static_cast<uint32_t>(detail::highestBitOf(repr & row.backend_mask));
  }
};

// Note [Trimmed Layout]
// A build that keeps only the listed keys: slot i holds Keys[i]; every other key has index -1.
// The slot is the one of highestPriorityTypeId (docs/semantics.md §6.2), precomputed per
// (highest bit, backend width) in a byte map (Note [Slot Rows]). Every trimmed flavour of
// cmake/flavours.list is one instance.
template <DispatchKey... Keys>
struct TrimmedLayout {
  static constexpr int kNumEntries = sizeof...(Keys);
  static constexpr std::array<DispatchKey, kNumEntries> kSlotKeys = {Keys...};
  // docs/semantics.md §6.2: the empty set and alias keys take Undefined's slot, so it is slot 0;
  // every other slot holds a distinct non-alias key (cmake/flavours.cmake admits runtime keys
  // only; tests also keep a per-backend placeholder).
  static_assert(kNumEntries >= 2 && kSlotKeys[0] == DispatchKey::Undefined,
                "a trimmed flavour keeps Undefined in slot 0 and at least one more key");
  static_assert(
      [] {
        for (size_t i = 1; i < kSlotKeys.size(); ++i) {
          const DispatchKey k = kSlotKeys[i];
          if (!isValidDispatchKey(k) || isAliasDispatchKey(k) || k == DispatchKey::Undefined) {
            return false;
          }
          for (size_t j = 0; j < i; ++j) {
            if (kSlotKeys[j] == kSlotKeys[i]) return false;
          }
        }
        return true;
      }(),
      "a trimmed flavour keeps distinct keys, none of them an alias");

 private:
  static constexpr auto kSlotOfKey = detail::slotOfKeyMap(kSlotKeys);
  static constexpr detail::TrimmedMap kMap = detail::computeTrimmedMap(kSlotOfKey, kNumEntries);
  static constexpr uint32_t slotInRow(detail::SlotRow row, uint64_t repr) noexcept {
    return kMap.slots[row.base + detail::backendWidth(repr & row.backend_mask)];
  }

 public:
  // The slot, or kNumEntries (the empty sentinel slot) when the set has none. Any pattern.
  static constexpr uint32_t slotOf(DispatchKeySet ks) noexcept {
    return slotInRow(kMap.rows[detail::rowOf(ks.raw_repr())], ks.raw_repr());
  }
  static constexpr uint32_t slotOfBelowBit63(DispatchKeySet ks) noexcept {
    return slotInRow(kMap.rows[detail::rowOfBelowBit63(ks.raw_repr())], ks.raw_repr());
  }
  static constexpr int indexOf(DispatchKeySet ks) noexcept {
    const auto slot = static_cast<int>(slotOf(ks));
    return slot == kNumEntries ? -1 : slot;
  }
  static constexpr int indexOf(DispatchKey k) noexcept { return indexOf(DispatchKeySet(k)); }
  // docs/semantics.md §6.2 literally, for tests.
  static constexpr int referenceIndexOf(DispatchKeySet ks) noexcept {
    return detail::trimmedReferenceIndex(ks, kSlotOfKey);
  }

  // Fallthrough masks: backends none of whose per-backend keys has a slot all use the mask of
  // plain keys, so when only CPU's do (mobile), two masks: [0] CPU or no backend, [1] the rest.
  static constexpr bool kOnlyCpuPerBackend = [] {
    for (DispatchKey k : kSlotKeys) {
      if (isInPerBackendBlock(k) && toBackendComponent(k) != BackendComponent::CPUBit) return false;
    }
    return true;
  }();
  static constexpr int kNumFallthroughMasks = kOnlyCpuPerBackend ? 2 : num_backends;
  static constexpr uint64_t fallthroughMaskOf(uint64_t args_repr) noexcept {
    if constexpr (kOnlyCpuPerBackend) {
      return (args_repr & DispatchKeySet::full_backend_mask & ~uint64_t{1}) != 0 ? 1u : 0u;
    } else {
      return detail::highestBitOf(args_repr & DispatchKeySet::full_backend_mask);
    }
  }
  static constexpr int fallthroughMaskOfBackend(BackendComponent b) noexcept {
    if constexpr (kOnlyCpuPerBackend) {
      return toUnderlying(b) <= 1 ? 0 : 1;
    } else {
      return toUnderlying(b) == 0 ? 0 : toUnderlying(b) - 1;
    }
  }
};

static_assert(FullLayout::indexOf(DispatchKeySet(DispatchKey::CPU)) == 1);
static_assert(FullLayout::indexOf(DispatchKeySet{DispatchKey::CUDA, DispatchKey::CPU}) == 2);
static_assert(FullLayout::indexOf(DispatchKey::QuantizedCUDA) == 20);
static_assert(FullLayout::indexOf(DispatchKey::PythonDispatcher) == 105);
static_assert(FullLayout::indexOf(DispatchKey::Autograd) == 0);

// A list of layouts: run a generic lambda per layout, or name a type list (gtest's Types).
template <class... Layouts>
struct LayoutList {
  static constexpr size_t kSize = sizeof...(Layouts);
  template <class F>
  static void forEach(F&& f) {
    (f.template operator()<Layouts>(), ...);
  }
  // The first result of f<L>() that converts to true (a failure, say), in list order; f<L>()
  // is not called for the layouts after it.
  template <class F>
  static auto firstOf(F&& f) {
    using Result = decltype(f.template operator()<std::tuple_element_t<0, std::tuple<Layouts...>>>());
    Result result{};
    (void)((result = f.template operator()<Layouts>(), static_cast<bool>(result)) || ...);
    return result;
  }
  template <template <class...> class T>
  using Apply = T<Layouts...>;
};

}  // namespace dispatch

#include "dispatch/generated_layouts.h"  // the flavours of cmake/flavours.list
