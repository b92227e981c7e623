// The runtime table index (docs/semantics.md §3 and 6.2) of every layout against the model: for every key set,
// the index agrees with the model and is within the table, or -1 where the flavour has no slot;
// the index is injective over runtime keys; it is the slot of the set's highest-priority key;
// and where a trimmed flavour has a slot it holds the same key as full's. Every flavour of the
// build (dispatch::AllLayouts), drawn ones included.

#include "dispatch/table_layout.h"
#include "generators.h"
#include "oracle/ours/layout_flavour.h"
#include "prop_support.h"

#include <string>
#include <type_traits>
#include <vector>

namespace dispatch::props {
namespace {

using model::Flavour;
using model::KeySet;

constexpr uint64_t kBitsPastLastFunctionality = ~DispatchKeySet(DispatchKeySet::FULL).raw_repr();

template <class L>
void indexMatchesModelAndIsInRange(RawKeySet a) {
  const DispatchKeySet ks(DispatchKeySet::RAW, a.raw);
  const int index = L::indexOf(ks);
  RC_ASSERT(index >= -1);
  RC_ASSERT(index < L::kNumEntries);
  RC_ASSERT(index == model::tableIndex(KeySet::fromRaw(a.raw), oracle::kModelFlavour<L>));
  if (oracle::kModelFlavour<L> == Flavour::Full) {
    // Full has a slot for every set whose bits name keys; -1 only for bits past the last
    // functionality.
    RC_ASSERT((index == -1) == ((a.raw & kBitsPastLastFunctionality) != 0));
  }
  RC_TAG(index < 0 ? "no slot" : "slot");
}

template <class L>
void keyIndexMatchesModel(DispatchKey k) {
  const int index = L::indexOf(k);
  RC_ASSERT(index >= -1);
  RC_ASSERT(index < L::kNumEntries);
  RC_ASSERT(index == model::tableIndex(k, oracle::kModelFlavour<L>));
  if (model::isRuntimeKey(k) && index >= 0) {
    // The slot belongs to exactly this key.
    RC_ASSERT(model::tableSlots(oracle::kModelFlavour<L>)[static_cast<size_t>(index)] == k);
  }
}

}  // namespace

DISPATCH_LAYOUT_PROP(TableIndex, IndexMatchesModelAndIsInRange, 1000, 100) {
  indexMatchesModelAndIsInRange<L>(*rc::gen::arbitrary<RawKeySet>());
}

DISPATCH_PROP(TableIndex, KeyIndexMatchesModel, 1000, 100, (DispatchKey k)) {
  AllLayouts::forEach([&]<class L>() { keyIndexMatchesModel<L>(k); });
}

DISPATCH_PROP(TableIndex, IndexIsInjectiveOverRuntimeKeys, 1000, 100, ()) {
  const DispatchKey k1 = *genRuntimeKey();
  const DispatchKey k2 = *genRuntimeKey();
  RC_PRE(k1 != k2);
  RC_ASSERT(FullLayout::indexOf(k1) != FullLayout::indexOf(k2));
  AllLayouts::forEach([&]<class L>() {
    const int i1 = L::indexOf(k1);
    const int i2 = L::indexOf(k2);
    RC_ASSERT(i1 < 0 || i2 < 0 || i1 != i2);
  });
}

// The index of a set is the slot of its highest-priority key (docs/semantics.md §3.3): the hot path's two
// count-leading-zeros agree with highestPriorityTypeId. And where a trimmed flavour has a slot,
// full's slot for the same set holds the same key.
DISPATCH_PROP(TableIndex, IndexIsTheSlotOfTheHighestPriorityKey, 1000, 100, (RawKeySet a)) {
  RC_PRE((a.raw & kBitsPastLastFunctionality) == 0);
  const DispatchKeySet ks(DispatchKeySet::RAW, a.raw);
  const DispatchKey top = ks.highestPriorityTypeId();
  const int full = FullLayout::indexOf(ks);
  AllLayouts::forEach([&]<class L>() {
    if constexpr (!std::is_same_v<L, FullLayout>) {
      const int trimmed = L::indexOf(ks);
      if (top == DispatchKey::Undefined || model::isRuntimeKey(top)) {
        RC_ASSERT(full == FullLayout::indexOf(top));
        RC_ASSERT(trimmed == L::indexOf(top));
      } else {
        // A per-backend functionality without backend bits: full uses the CPU slot
        // (docs/semantics.md §3.5), a trimmed table has none (model decision D15).
        RC_ASSERT(model::isPlaceholder(top));
        RC_ASSERT(trimmed == -1);
        RC_ASSERT(full == FullLayout::indexOf(toRuntimePerBackendFunctionalityKey(
                              toFunctionalityKey(top), BackendComponent::CPUBit)));
      }
      if (trimmed >= 0) {
        RC_ASSERT(model::tableSlots(oracle::kModelFlavour<L>)[static_cast<size_t>(trimmed)] ==
                  model::tableSlots(Flavour::Full)[static_cast<size_t>(full)]);
      }
    }
  });
}

// Exhaustive over the tiny domain: Undefined and the 105 runtime keys fill the 106 full slots
// exactly once; a trimmed flavour's kept keys fill its slots exactly once.
TEST(TableIndex, RuntimeKeysFillEveryTableExactlyOnce) {
  AllLayouts::forEach([]<class L>() {
    SCOPED_TRACE(std::string(L::kName));
    std::vector<int> owners(static_cast<size_t>(L::kNumEntries), 0);
    ++owners[static_cast<size_t>(L::indexOf(DispatchKey::Undefined))];
    for (DispatchKey k : model::allRuntimeKeys()) {
      const int index = L::indexOf(k);
      ASSERT_GE(index, -1) << model::keyName(k);
      ASSERT_LT(index, L::kNumEntries) << model::keyName(k);
      if (index >= 0) ++owners[static_cast<size_t>(index)];
    }
    for (int i = 0; i < L::kNumEntries; ++i) {
      EXPECT_EQ(owners[static_cast<size_t>(i)], 1) << "slot " << i;
    }
    EXPECT_EQ(L::kNumEntries, model::tableSize(oracle::kModelFlavour<L>));
  });
}

}  // namespace dispatch::props
