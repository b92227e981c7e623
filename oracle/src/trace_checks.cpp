// TraceRunner's comparisons of the live dispatcher with the model: the incremental check after
// each registration or drop, and the full check at the end of a trace. Both compare structurally
// (per slot: kernel identity, fallthrough flag and, in the full check, the tag; per fallback
// slot: kernel identity and fallthrough flag); text is built only to report a difference.

#include <algorithm>

#include "model_key_facts.h"
#include "oracle/names.h"
#include "oracle/trace_runner.h"

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
std::optional<std::string> TraceRunner<L>::checkTouched(std::string_view context, int op) const {
  // The library's own checkInvariants (which recomputes every table) runs in checkAll only.
  if (op >= 0) return compareRow(context, op, false);
  // A fallback can show in every operator's row.
  for (int i = 0; i < kNumOps; ++i) {
    if (auto d = compareRow(context, i, false)) return d;
  }
  return compareFallbacks(context);
}

template <class L>
std::optional<std::string> TraceRunner<L>::checkAll() const {
  for (int i = 0; i < kNumOps; ++i) {
    if (auto d = compareRow("end of trace", i, true)) return d;
  }
  if (auto d = compareFallbacks("end of trace")) return d;
  dispatcher_.checkInvariants();  // throws InternalError on a stale or inconsistent table
  return std::nullopt;
}

template <class L>
std::optional<std::string> TraceRunner<L>::compareRow(std::string_view context, int op_index,
                                                      bool full) const {
  const std::string& op = opName(op_index);
  const auto handle = dispatcher_.findOp(OperatorName{op, ""});
  if (handle.has_value() != model_.hasOperator(op)) {
    return std::string(context) + ": operator " + op + (handle ? " exists" : " is gone") +
           " in the dispatcher but not in the model";
  }
  if (!handle) return std::nullopt;
  const auto& slots = model::tableSlots(model_.flavour());
  // Incremental: the model's memoised row. Full: every entry recomputed from scratch.
  const model::ModelDispatcher::ComputedRow fresh =
      full ? model_.recomputedRow(op) : model::ModelDispatcher::ComputedRow();
  if (const auto k = modelSlotMissingInLayout<L>(slots)) {
    return std::string(context) + ": the model has a slot for " + std::string(toString(*k)) +
           " but the " + std::string(L::kName) + " layout has none";
  }
  const model::ModelDispatcher::ComputedRow& row = full ? fresh : model_.computedRow(op);
  const auto& entry = handle->entry();
  const auto& missing_kernel = BasicOperatorEntry<L>::missingKernel();
  const std::vector<DispatchKeySet>& key_sets = slotKeySets<L>(slots);
  for (size_t i = 0; i < slots.size(); ++i) {
    const DispatchKey k = slots[i];
    const model::ComputedEntry& expected = row[i];
    const auto& live = entry.lookup(key_sets[i]);
    if (!slotMatches<L>(live, missing_kernel, expected)) {
      const bool missing = &live == &missing_kernel;
      return std::string(context) + ": dispatch table of " + op + " differs at " +
             std::string(toString(k)) + ": dispatcher " +
             describeSlot(missing, live.kernel.isFallthrough(), live.debug) + ", model " +
             describeSlot(expected.kind == model::EntryKind::Missing,
                          expected.kind == model::EntryKind::Fallthrough, expected.debug) +
             " [" + std::string(expected.tag) + "]\n--- dispatcher (live table)\n" + handle->dumpDispatchTable() +
             "--- model\n" + model_.dumpComputedTable(op);
    }
  }
  if (full) {
    // Same kernels everywhere; now why each slot holds its kernel (missing slots print no tag).
    if (!layoutSlotsAreModelSlots<L>(slots)) {
      return std::string(context) + ": the " + std::string(L::kName) +
             " layout's slots are not the model's slots";
    }
    for (size_t i = 0; i < slots.size(); ++i) {
      const model::ComputedEntry& expected = row[i];
      if (expected.kind == model::EntryKind::Missing) continue;
      const std::optional<EntryTag> tag = entry.liveTag(slots[i]);
      if (!tag || toString(*tag) != expected.tag) {
        return std::string(context) + ": dispatch table of " + op + " differs at " +
               std::string(toString(slots[i])) + ": dispatcher tag [" +
               std::string(tag ? toString(*tag) : "<no slot>") + "], model [" + std::string(expected.tag) +
               "]\n--- dispatcher (live table)\n" + handle->dumpDispatchTable() + "--- model\n" +
               model_.dumpRow(fresh);
      }
    }
  }
  return std::nullopt;
}

template <class L>
std::optional<std::string> TraceRunner<L>::compareFallbacks(std::string_view context) const {
  auto differs = [&](const std::string& what) {
    return std::string(context) + ": fallback table differs" + what + ".\n--- dispatcher\n" +
           dispatcher_.dumpFallbacks() + "--- model\n" + model_.dumpFallbacks();
  };
  const auto& slots = model::tableSlots(model_.flavour());
  if (!fallbackKeysAreModelKeys<L>(slots, model::slotsInPrintOrder(model_.flavour()))) {
    return differs(std::string(" (the ") + std::string(L::kName) + " layout's fallback keys are not the model's)");
  }
  // Every occupied model slot holds the same kernel live, and the live table has no others.
  const std::map<int, model::FallbackSlot>& expected_slots = model_.fallbackSlots();
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

#define DISPATCH_ORACLE_INSTANTIATE_CHECKS(L)                                                   \
  template std::optional<std::string> TraceRunner<L>::checkTouched(std::string_view, int) const; \
  template std::optional<std::string> TraceRunner<L>::checkAll() const;                         \
  template std::optional<std::string> TraceRunner<L>::compareRow(std::string_view, int, bool)   \
      const;                                                                                    \
  template std::optional<std::string> TraceRunner<L>::compareFallbacks(std::string_view) const;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_INSTANTIATE_CHECKS)
#undef DISPATCH_ORACLE_INSTANTIATE_CHECKS

}  // namespace dispatch::oracle
