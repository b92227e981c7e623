// TraceRunner's comparisons of the live dispatcher with the model: the incremental check after
// each registration or drop, and the full check at the end of a trace. Both compare table slots
// structurally (kernel identity and fallthrough flag); text is built only to report a
// difference, except the full check's tag comparison, which has no other window into the live
// table (the dispatcher exposes a slot's tag only through dumpDispatchTable).

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
  const std::string op = opName(op_index);
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
    // Same kernels everywhere; the tags are visible only in the printed table.
    const std::string expected = model_.dumpRow(fresh);
    const std::string live = handle->dumpDispatchTable();
    if (live != expected) {
      return std::string(context) + ": dispatch table of " + op + " differs.\n--- dispatcher (live table)\n" +
             live + "--- model\n" + expected;
    }
  }
  return std::nullopt;
}

template <class L>
std::optional<std::string> TraceRunner<L>::compareFallbacks(std::string_view context) const {
  // The dispatcher shows its fallback slots only as text (dumpFallbacks); this runs after a
  // fallback change and at the end of a trace, not after every action.
  const std::string expected = model_.dumpFallbacks();
  const std::string fallbacks = dispatcher_.dumpFallbacks();
  if (fallbacks != expected) {
    return std::string(context) + ": fallback table differs.\n--- dispatcher\n" + fallbacks +
           "--- model\n" + expected;
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
