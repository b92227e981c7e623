#pragma once
// Two computed dispatch tables of one operator compared slot by slot, each entry identified by
// the recorded registration it comes from (bench/workloads/README.md "c10's tables beside ours").
// Both dispatchers print a computed table the same way, one line per slot that holds something:
//   "<Key>: [fallthrough ]<debug> [<tag>]"
// c10's debug is the one the recording holds for that registration; ours, after a replay, is
// "#<seq> " and the same text (workload.h), so our entry names its recorded row exactly, and
// c10's is resolved to the row(s) of that operator (or the fallback of that key) with that debug
// whose key the tag allows. Nothing here needs libtorch: c10's side arrives as text.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/workloads/workload.h"

namespace dispatch::workload {

// One printed slot.
struct TableSlot {
  bool fallthrough = false;
  std::string debug;
  std::string tag;  // "kernel", "math kernel", "backend fallback", "ambiguous autogradother", ...
  bool operator==(const TableSlot&) const = default;
};
// By key name; a key without a line is missing. Throws std::runtime_error on a malformed line.
using ComputedTable = std::map<std::string, TableSlot>;
ComputedTable parseComputedTable(const std::string& text);

// What one compared slot was found to be.
enum class SlotVerdict {
  Missing,              // missing on both sides
  Ambiguous,            // the ambiguous-AutogradOther entry on both sides
  Kernel,               // both hold the same recorded impl (a kernel, not a fallthrough)
  FallthroughKernel,    // both hold the same recorded impl, a fallthrough
  Fallback,             // both hold the same recorded backend fallback (boxed)
  FallthroughFallback,  // both hold the same recorded backend fallback, a fallthrough
  SameDebugOnly,        // same tag, kind and debug, but that debug names several recorded rows
  Different,
};
const char* toString(SlotVerdict verdict);
inline constexpr SlotVerdict kAllVerdicts[] = {
    SlotVerdict::Missing,  SlotVerdict::Ambiguous,           SlotVerdict::Kernel,        SlotVerdict::FallthroughKernel,
    SlotVerdict::Fallback, SlotVerdict::FallthroughFallback, SlotVerdict::SameDebugOnly, SlotVerdict::Different};

// The recording's impl and fallback rows, for resolving an entry to the row it came from.
class RecordingIndex {
 public:
  explicit RecordingIndex(const std::vector<Row>& rows);
  // The row of one of our kernels, from its debug name "#<seq> ..."; nullptr if it names none.
  const Row* rowOfOurs(const std::string& debug) const;
  // The rows a c10 entry of key `key` of operator `op` can come from: the tag decides which keys
  // (kernel: key itself; default backend kernel: the two CompositeExplicitAutograd keys; nested
  // kernel: CompositeImplicitAutogradNestedTensor; math kernel: CompositeImplicitAutograd and
  // catch-all; autograd kernel: Autograd; backend fallback: key's fallbacks), then debug and
  // fallthrough must match.
  std::vector<const Row*> candidatesOf(const std::string& op, const std::string& key, const TableSlot& slot) const;

 private:
  std::vector<Row> rows_;
  std::map<long, size_t> by_seq_;                        // seq -> index in rows_
  std::map<std::string, std::vector<size_t>> impls_;     // operator "name.overload" -> its impl rows
  std::map<std::string, std::vector<size_t>> fallbacks_; // key -> its fallback rows
};

struct SlotDifference {
  std::string op;
  std::string key;
  std::string c10;   // the slot as c10 printed it, or "missing"
  std::string ours;  // the same for ours
  std::string why;
};

// Figures over every operator compared.
struct TableComparison {
  long operators = 0;
  long slots = 0;  // operators x keys both sides have
  std::map<SlotVerdict, long> verdicts;
  std::vector<SlotDifference> differences;  // every Different slot
  // Keys one side's tables have and the other's lack: key -> slots holding something there.
  std::map<std::string, long> keys_only_in_c10;
  std::map<std::string, long> keys_only_in_ours;
  std::vector<std::string> operators_only_in_c10;
  std::vector<std::string> operators_only_in_ours;
  // The replay into ours: calls made, the refused ones ("seq: message"), rows skipped on keys our
  // vocabulary lacks (key -> count) and rows that could not be translated.
  long replayed = 0;
  std::vector<std::string> refused;
  std::map<std::string, long> skipped_keys;
  long untranslated = 0;

  long equal() const;
  // Every row replayed, every operator on both sides, every slot equal, no key only one side has a
  // non-missing slot for.
  bool tablesEqual() const;
  // The figures, one per line, then every difference.
  std::string summary() const;
};

// Compares one operator's tables. c10_keys / our_keys: every key each side's table can print
// (a slot of a key only one side has is counted under keys_only_in_*, never compared).
void compareOperator(TableComparison& report, const RecordingIndex& index, const std::string& op,
                     const std::string& c10_table, const std::string& our_table,
                     const std::vector<std::string>& c10_keys, const std::vector<std::string>& our_keys);

// Every row of a recording replayed into a fresh dispatcher of our full flavour, then each
// operator's computed table compared with `c10_tables` (operatorKey -> c10's
// dumpComputedTable text of that operator, every operator c10 holds); c10_keys as above.
TableComparison compareWithReplay(const std::vector<Row>& rows, const std::map<std::string, std::string>& c10_tables,
                                  const std::vector<std::string>& c10_keys);

// The keys our computed tables of layout L print a line for: Undefined and every runtime key with
// a slot in L.
template <class L>
std::vector<std::string> ourTableKeys() {
  std::vector<std::string> keys{std::string(toString(DispatchKey::Undefined))};
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) {
    if (L::indexOf(k) >= 0) keys.emplace_back(toString(k));
  }
  return keys;
}

}  // namespace dispatch::workload
