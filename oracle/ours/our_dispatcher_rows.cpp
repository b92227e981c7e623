// Our dispatcher's structural row comparison (oracle/runner/system_under_test.h, RowComparison): the
// live rows and fallback table against the model's, per slot (kernel identity, fallthrough flag
// and, in the full check, the tag; per fallback slot: kernel identity and fallthrough flag). The
// runner makes it after every step, so text is built only to report a difference.

#include <algorithm>

#include "oracle/model/model_key_facts.h"
#include "oracle/actions/names.h"
#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {

namespace {

// "k3", "fallthrough fb2", "<missing>": one slot, for a report.
std::string describeSlot(bool missing, bool fallthrough, const std::string& debug) {
  if (missing) return "<missing>";
  return (fallthrough ? "fallthrough " : "") + debug;
}

// Whether a live slot holds what the model computed, kernel for kernel (missing: the live
// table's missingKernel()).
template <class L>
bool slotMatches(const BasicAnnotatedKernel<L>& live, const BasicAnnotatedKernel<L>& missing,
                 const model::ComputedEntry& expected) {
  const bool live_missing = &live == &missing;
  if (expected.kind == model::EntryKind::Missing) return live_missing;
  return !live_missing && live.kernel.isFallthrough() == (expected.kind == model::EntryKind::Fallthrough) &&
         live.debug == expected.debug;
}

// The single-key set of each model slot's key, which the live table is looked up with; fixed
// per flavour, so built once.
template <class L>
const std::vector<DispatchKeySet>& slotKeySets(const std::vector<DispatchKey>& slots) {
  static const std::vector<DispatchKeySet> sets(slots.begin(), slots.end());
  return sets;
}

// The first slot key of the model's flavour that the layout has no slot for; fixed per
// flavour, so worked out once.
template <class L>
std::optional<DispatchKey> modelSlotMissingInLayout(const std::vector<DispatchKey>& slots) {
  static const std::optional<DispatchKey> missing = [&]() -> std::optional<DispatchKey> {
    for (DispatchKey k : slots) {
      if (L::indexOf(k) < 0) return k;
    }
    return std::nullopt;
  }();
  return missing;
}

// Whether the layout's slots are exactly the model's: every model slot key has its own layout
// slot and there are no others. Then comparing the model's slots one by one covers every line
// the live table's dump prints. Fixed per flavour, so worked out once.
template <class L>
bool layoutSlotsAreModelSlots(const std::vector<DispatchKey>& slots) {
  static const bool same = [&] {
    std::vector<int> indices;
    for (DispatchKey k : slots) indices.push_back(L::indexOf(k));
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    return indices.size() == slots.size() && static_cast<int>(slots.size()) == L::kNumEntries &&
           indices.front() == 0 && indices.back() == L::kNumEntries - 1;
  }();
  return same;
}

// Whether the keys dumpFallbacks prints (each FULL key with a slot, in that order) are the
// model's slot keys other than Undefined, in its print order, each a runtime key (which
// backendFallback answers for). Then comparing the model's fallback slots one by one is the
// text comparison without the text. Fixed per flavour, so worked out once.
template <class L>
bool fallbackKeysAreModelKeys(const std::vector<DispatchKey>& slots, const std::vector<int>& print_order) {
  static const bool same = [&] {
    std::vector<DispatchKey> layout_keys;
    for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) {
      if (L::indexOf(k) >= 0) layout_keys.push_back(k);
    }
    std::vector<DispatchKey> model_keys;
    for (const int slot : print_order) {
      const DispatchKey k = slots[static_cast<size_t>(slot)];
      if (k == DispatchKey::Undefined) continue;
      if (!isRuntimeDispatchKey(k)) return false;
      model_keys.push_back(k);
    }
    return layout_keys == model_keys;
  }();
  return same;
}

}  // namespace

template <class L>
std::optional<std::string> OurDispatcherSut<L>::compareRow(const std::string& context, int op_index,
                                                           const model::ModelDispatcher& reference, bool full) const {
  const std::string op = opName(op_index);
  const auto handle = dispatcher_.findOp(operatorName(op_index));
  if (handle.has_value() != reference.hasOperator(op)) {
    return context + ": operator " + op + (handle ? " exists" : " is gone") +
           " in the dispatcher but not in the model";
  }
  if (!handle) return std::nullopt;
  const auto& slots = model::tableSlots(reference.flavour());
  // Incremental: the model's memoised row. Full: every entry recomputed from scratch.
  const model::ModelDispatcher::ComputedRow fresh =
      full ? reference.recomputedRow(op) : model::ModelDispatcher::ComputedRow();
  if (const auto k = modelSlotMissingInLayout<L>(slots)) {
    return context + ": the model has a slot for " + std::string(toString(*k)) +
           " but the " + std::string(L::kName) + " layout has none";
  }
  const model::ModelDispatcher::ComputedRow& row = full ? fresh : reference.computedRow(op);
  const auto& entry = handle->entry();
  const auto& missing_kernel = BasicOperatorEntry<L>::missingKernel();
  const std::vector<DispatchKeySet>& key_sets = slotKeySets<L>(slots);
  for (size_t i = 0; i < slots.size(); ++i) {
    const DispatchKey k = slots[i];
    const model::ComputedEntry& expected = row[i];
    const auto& live = entry.lookup(key_sets[i]);
    if (!slotMatches<L>(live, missing_kernel, expected)) {
      const bool missing = &live == &missing_kernel;
      return context + ": dispatch table of " + op + " differs at " +
             std::string(toString(k)) + ": dispatcher " +
             describeSlot(missing, live.kernel.isFallthrough(), live.debug) + ", model " +
             describeSlot(expected.kind == model::EntryKind::Missing,
                          expected.kind == model::EntryKind::Fallthrough, expected.debug) +
             " [" + std::string(expected.tag) + "]\n--- dispatcher (live table)\n" + handle->dumpDispatchTable() +
             "--- model\n" + reference.dumpComputedTable(op);
    }
  }
  if (full) {
    // Same kernels everywhere; now why each slot holds its kernel (missing slots print no tag).
    if (!layoutSlotsAreModelSlots<L>(slots)) {
      return context + ": the " + std::string(L::kName) +
             " layout's slots are not the model's slots";
    }
    for (size_t i = 0; i < slots.size(); ++i) {
      const model::ComputedEntry& expected = row[i];
      if (expected.kind == model::EntryKind::Missing) continue;
      const std::optional<EntryTag> tag = entry.liveTag(slots[i]);
      if (!tag || toString(*tag) != expected.tag) {
        return context + ": dispatch table of " + op + " differs at " +
               std::string(toString(slots[i])) + ": dispatcher tag [" +
               std::string(tag ? toString(*tag) : "<no slot>") + "], model [" + std::string(expected.tag) +
               "]\n--- dispatcher (live table)\n" + handle->dumpDispatchTable() + "--- model\n" +
               reference.dumpRow(fresh);
      }
    }
  }
  return std::nullopt;
}

template <class L>
std::optional<std::string> OurDispatcherSut<L>::compareFallbacks(const std::string& context,
                                                                 const model::ModelDispatcher& reference) const {
  auto differs = [&](const std::string& what) {
    return context + ": fallback table differs" + what + ".\n--- dispatcher\n" +
           dispatcher_.dumpFallbacks() + "--- model\n" + reference.dumpFallbacks();
  };
  const auto& slots = model::tableSlots(reference.flavour());
  if (!fallbackKeysAreModelKeys<L>(slots, model::slotsInPrintOrder(reference.flavour()))) {
    return differs(std::string(" (the ") + std::string(L::kName) + " layout's fallback keys are not the model's)");
  }
  // Every occupied model slot holds the same kernel live, and the live table has no others.
  const std::map<int, model::FallbackSlot>& expected_slots = reference.fallbackSlots();
  for (const auto& [slot, expected] : expected_slots) {
    const DispatchKey k = slots.at(static_cast<size_t>(slot));
    const BasicAnnotatedKernel<L>* live = dispatcher_.backendFallback(k);
    if (live == nullptr || live->kernel.isFallthrough() != expected.fallthrough || live->debug != expected.debug) {
      return differs(std::string(" at ") + std::string(toString(k)));
    }
  }
  if (const size_t live = dispatcher_.numBackendFallbacks(); live != expected_slots.size()) {
    return differs(" (" + std::to_string(live) + " occupied slots, model " + std::to_string(expected_slots.size()) + ")");
  }
  return std::nullopt;
}

#define DISPATCH_ORACLE_INSTANTIATE_ROWS(L)                                                          \
  template std::optional<std::string> OurDispatcherSut<L>::compareRow(const std::string&, int,           \
                                                                      const model::ModelDispatcher&, bool) \
      const;                                                                                            \
  template std::optional<std::string> OurDispatcherSut<L>::compareFallbacks(const std::string&,         \
                                                                            const model::ModelDispatcher&) \
      const;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_INSTANTIATE_ROWS)
#undef DISPATCH_ORACLE_INSTANTIATE_ROWS

}  // namespace dispatch::oracle
