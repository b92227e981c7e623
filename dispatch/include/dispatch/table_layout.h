#pragma once
// Table layouts: how a key set maps to a runtime-table slot (spec section 3 and 6.2).
// A layout is a type with kName, kNumEntries and a constexpr indexOf(); every per-flavour
// class is a template on it. "Index < 0" means "this key has no slot in this flavour".

#include <array>
#include <string_view>

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

}  // namespace detail

// Note [Full Layout]
// 106 slots: index = offset(f) + index of the highest backend bit (masked to per-backend
// functionalities), f being the highest functionality bit. Two count-leading-zeros and one
// load; never calls highestPriorityTypeId. Quirks kept on purpose (spec 3.5): a per-backend
// functionality without backend bits lands on the CPU slot; the empty set and alias keys land
// on slot 0. Raw patterns with bits past the last functionality give -1.
struct FullLayout {
  static constexpr std::string_view kName = "full";
  static constexpr int kNumEntries = num_runtime_entries;
  static constexpr bool kHasAbsentKeys = false;

  static constexpr int indexOf(DispatchKeySet ks) noexcept {
    const uint64_t repr = ks.raw_repr();
    const uint8_t f = DispatchKeySet::indexOfHighestBit(repr >> num_backends);
    const auto& entry = detail::offsets_and_masks[f];
    const uint8_t backend_index = DispatchKeySet::indexOfHighestBit((repr & entry.mask) >> 1);
    return entry.offset + backend_index;
  }
  static constexpr int indexOf(DispatchKey k) noexcept { return indexOf(DispatchKeySet(k)); }
};

// Note [Trimmed Layout]
// A build that keeps only the listed keys: slot i holds Keys[i]; every other key has index -1.
// The slot is chosen by highestPriorityTypeId (spec 6.2). The mobile flavour is one instance; a
// selective build is another list.
template <DispatchKey... Keys>
struct TrimmedLayout {
  static constexpr int kNumEntries = sizeof...(Keys);
  static constexpr bool kHasAbsentKeys = true;
  static constexpr std::array<DispatchKey, kNumEntries> kSlotKeys = {Keys...};

  static constexpr int indexOf(DispatchKeySet ks) noexcept {
    // Bits past the last functionality name no key; highestPriorityTypeId would decode bit 56
    // as value 43 (CPU). Absent, as in FullLayout.
    if (ks.raw_repr() >> (num_backends + num_functionality_keys - 1)) return -1;
    const DispatchKey k = ks.highestPriorityTypeId();
    if (!isValidDispatchKey(k)) return -1;
    return kSlotOfKey[toUnderlying(k)];
  }
  static constexpr int indexOf(DispatchKey k) noexcept { return indexOf(DispatchKeySet(k)); }

 private:
  static constexpr auto kSlotOfKey = detail::slotOfKeyMap(kSlotKeys);
};

// The trimmed mobile table of PyTorch (C10_MOBILE_TRIM_DISPATCH_KEYS).
struct MobileLayout
    : TrimmedLayout<DispatchKey::Undefined, DispatchKey::CPU, DispatchKey::QuantizedCPU,
                    DispatchKey::SparseCPU, DispatchKey::BackendSelect,
                    DispatchKey::ADInplaceOrView, DispatchKey::AutogradOther,
                    DispatchKey::AutogradCPU> {
  static constexpr std::string_view kName = "mobile";
};

static_assert(FullLayout::indexOf(DispatchKeySet(DispatchKey::CPU)) == 1);
static_assert(FullLayout::indexOf(DispatchKeySet{DispatchKey::CUDA, DispatchKey::CPU}) == 2);
static_assert(FullLayout::indexOf(DispatchKey::QuantizedCUDA) == 20);
static_assert(FullLayout::indexOf(DispatchKey::PythonDispatcher) == 105);
static_assert(FullLayout::indexOf(DispatchKey::Autograd) == 0);
static_assert(MobileLayout::indexOf(DispatchKeySet{DispatchKey::CPU, DispatchKey::ADInplaceOrView,
                                                   DispatchKey::AutogradCPU}) == 7);
static_assert(MobileLayout::indexOf(DispatchKey::CUDA) == -1);

// Every layout the library is built for; explicit instantiations iterate this list, so a new
// flavour is: a layout type here, a namespace in flavours.h, and a line in this macro.
#define DISPATCH_FOR_EACH_LAYOUT(_) \
  _(::dispatch::FullLayout)         \
  _(::dispatch::MobileLayout)

}  // namespace dispatch
