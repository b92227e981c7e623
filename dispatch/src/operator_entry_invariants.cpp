// BasicOperatorEntry::checkInvariants: the kernel lists, the schema, every table slot against
// its recomputation, and the fallthrough masks against the table (Note [Fallthrough Masks]);
// checkRefreshedRow runs it after every change in sanitizer and fuzz builds.
// Fuzzers run it at the end of every input on every flavour, so it reads the table once, slot by
// slot, and checks each backend's mask with one comparison of bit sets; the per-key walk runs
// only to name the key of a violation.

#include <array>
#include <bit>

#include "dispatch/dispatcher.h"
#include "operator_entry_internal.h"

namespace dispatch {

namespace {

// One slot of a layout as the check sees it: the key it holds and where a fallthrough in it
// shows in the masks.
struct SlotFacts {
  bool present = false;        // some table key has this slot (a trimmed test layout may keep
                               // a placeholder no runtime key maps to)
  DispatchKey key = DispatchKey::Undefined;
  uint64_t functionality = 0;  // the bit a fallthrough clears in the masks
  uint8_t backend = 0;         // a per-backend key's backend (1 .. num_backends), else 0
};

template <class L>
std::array<SlotFacts, static_cast<size_t>(L::kNumEntries)> computeSlotFacts() {
  std::array<SlotFacts, static_cast<size_t>(L::kNumEntries)> facts{};
  for (const auto& [k, index] : detail::slotKeys<L>()) {
    DISPATCH_INTERNAL_ASSERT(index < L::kNumEntries, L::kName, ": index ", index, " of ", k,
                             " is outside the table");
    SlotFacts& slot = facts[static_cast<size_t>(index)];
    DISPATCH_INTERNAL_ASSERT(!slot.present, L::kName, ": ", k, " and ", slot.key,
                             " share slot ", index);
    slot.present = true;
    slot.key = k;
    if (k == DispatchKey::Undefined) continue;
    const DispatchKey functionality = toFunctionalityKey(k);
    slot.functionality = DispatchKeySet(functionality).raw_repr();
    // One bit per functionality, so that a backend's mask is checked as one bit-set comparison.
    DISPATCH_INTERNAL_ASSERT(std::has_single_bit(slot.functionality), k,
                             ": its functionality is not one bit");
    if (isPerBackendFunctionalityKey(functionality)) {
      slot.backend = static_cast<uint8_t>(toUnderlying(toBackendComponent(k)));
    }
  }
  return facts;
}

template <class L>
const std::array<SlotFacts, static_cast<size_t>(L::kNumEntries)>& slotFacts() {
  static const auto facts = computeSlotFacts<L>();
  return facts;
}

}  // namespace

template <class L>
void BasicOperatorEntry<L>::checkInvariants(const Fallbacks& fallbacks) const {
  DISPATCH_INTERNAL_ASSERT(!kernels_.count(DispatchKey::Undefined), cold_->name_string,
                           ": a kernel list exists for Undefined");
  for (const auto& [key, kernels] : kernels_) {
    DISPATCH_INTERNAL_ASSERT(!kernels.empty(), cold_->name_string, ": empty kernel list for ", key);
    DISPATCH_INTERNAL_ASSERT(isRuntimeDispatchKey(key) || isAliasDispatchKey(key),
                             cold_->name_string,
                             ": kernel list for non-runtime key ", key);
  }
  if (const SchemaRecord* record = schema_.load(std::memory_order_acquire)) {
    DISPATCH_INTERNAL_ASSERT(record->schema.name == cold_->name, cold_->name_string,
                             ": schema name differs from the operator name");
    DISPATCH_INTERNAL_ASSERT(dispatchArgBitset() == ::dispatch::dispatchArgBitset(record->schema),
                             cold_->name_string,
                             ": dispatch argument bitset does not match the schema");
  }
  // Every slot equals its recomputation (Note [Table Equals Recomputation]). On the way, the
  // functionality bits each backend's mask must clear (fallthrough slots) out of those it
  // must decide (slots of plain keys, and per-backend slots of that backend).
  const KernelSummary summary = summarize();
  uint64_t plain_decided = 0;
  uint64_t plain_cleared = 0;
  std::array<uint64_t, num_backends + 1> backend_decided{};
  std::array<uint64_t, num_backends + 1> backend_cleared{};
  const auto& slots = slotFacts<L>();
  for (int index = 0; index < L::kNumEntries; ++index) {
    const SlotFacts& slot = slots[static_cast<size_t>(index)];
    if (!slot.present) continue;
    const ComputedEntry<L> expected = compute(summary, fallbacks, slot.key, index);
    const auto* actual = loadSlot(index);
    DISPATCH_INTERNAL_ASSERT(
        actual == expected.kernel && tags_[static_cast<size_t>(index)] == expected.tag,
        cold_->name_string, ": the table entry for ", slot.key, " is '",
        actual ? actual->debug : std::string("missing"), "' [",
        toString(tags_[static_cast<size_t>(index)]), "] but recomputation gives '",
        expected.kernel ? expected.kernel->debug : std::string("missing"), "' [",
        toString(expected.tag), "]");
    if (slot.key == DispatchKey::Undefined) continue;  // no mask has a bit for it
    const bool fallthrough = actual != nullptr && actual->kernel.isFallthrough();
    (slot.backend != 0 ? backend_decided[slot.backend] : plain_decided) |= slot.functionality;
    if (fallthrough) {
      (slot.backend != 0 ? backend_cleared[slot.backend] : plain_cleared) |= slot.functionality;
    }
  }
  // The fallthrough masks agree with the table (Note [Fallthrough Masks]): for every backend,
  // the decided bits its mask lacks are exactly the fallthrough ones.
  for (size_t b = 0; b < num_backends; ++b) {
    const uint64_t mask = non_fallthrough_per_backend_[static_cast<size_t>(
        L::fallthroughMaskOfBackend(static_cast<BackendComponent>(b + 1)))].load(
        std::memory_order_relaxed);
    const uint64_t decided = plain_decided | backend_decided[b + 1];
    const uint64_t cleared = plain_cleared | backend_cleared[b + 1];
    if ((~mask & decided) != cleared) reportFallthroughMaskViolation(b, mask);
  }
}

template <class L>
void BasicOperatorEntry<L>::checkRefreshedRow(const Fallbacks& fallbacks,
                                              std::string_view change) const {
  try {
    checkInvariants(fallbacks);
  } catch (const InternalError& e) {
    throw InternalError(detail::concat(
        cold_->name_string, ": after ", change,
        ", the refreshed row differs from its full recomputation: ", e.what()));
  }
}

// The key-by-key walk of one backend's mask, run only to name the first key it gets wrong.
template <class L>
void BasicOperatorEntry<L>::reportFallthroughMaskViolation(size_t b, uint64_t mask_bits) const {
  const DispatchKeySet mask(DispatchKeySet::RAW, mask_bits);
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) {
    const int index = L::indexOf(k);
    if (index < 0) continue;
    const bool per_backend = isPerBackendFunctionalityKey(toFunctionalityKey(k));
    if (per_backend && toUnderlying(toBackendComponent(k)) != b + 1) continue;
    const auto* kernel = loadSlot(index, std::memory_order_relaxed);
    const bool fallthrough = kernel != nullptr && kernel->kernel.isFallthrough();
    const bool masked_out = !mask.has(toFunctionalityKey(k));
    DISPATCH_INTERNAL_ASSERT(fallthrough == masked_out, cold_->name_string,
                             ": fallthrough mask of backend ", b, " disagrees with the entry of ",
                             k);
  }
  DISPATCH_INTERNAL_ASSERT(false, cold_->name_string, ": fallthrough mask of backend ", b,
                           " disagrees with the table");
}

#define DISPATCH_DETAIL_INSTANTIATE_INVARIANTS(L)                                              \
  template void BasicOperatorEntry<L>::checkInvariants(const FallbackTable<L>&) const;        \
  template void BasicOperatorEntry<L>::checkRefreshedRow(const FallbackTable<L>&,             \
                                                         std::string_view) const;            \
  template void BasicOperatorEntry<L>::reportFallthroughMaskViolation(size_t, uint64_t) const;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_INSTANTIATE_INVARIANTS)
#undef DISPATCH_DETAIL_INSTANTIATE_INVARIANTS

}  // namespace dispatch
