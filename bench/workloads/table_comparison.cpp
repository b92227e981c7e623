#include "bench/workloads/table_comparison.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace dispatch::workload {

namespace {

constexpr const char* kAmbiguousTag = "ambiguous autogradother";
constexpr const char* kFallbackTag = "backend fallback";

// The recorded keys an entry of this tag can come from, for slot key `key`; nullopt for a tag
// that names no registration (ambiguous) or one we do not know (never resolved).
std::optional<std::vector<std::string>> keysOfTag(const std::string& tag, const std::string& key) {
  if (tag == "kernel" || tag == kFallbackTag) return std::vector<std::string>{key};
  if (tag == "default backend kernel")
    return std::vector<std::string>{"CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd"};
  if (tag == "nested kernel") return std::vector<std::string>{"CompositeImplicitAutogradNestedTensor"};
  if (tag == "math kernel") return std::vector<std::string>{"CompositeImplicitAutograd", "catch-all"};
  if (tag == "autograd kernel") return std::vector<std::string>{"Autograd"};
  return std::nullopt;
}

std::string printed(const std::optional<TableSlot>& slot) {
  if (!slot) return "missing";
  return (slot->fallthrough ? "fallthrough " : "") + slot->debug + " [" + slot->tag + "]";
}

std::optional<TableSlot> slotOf(const ComputedTable& table, const std::string& key) {
  const auto it = table.find(key);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

// Compares one slot both sides have a key for; the reason when they differ.
SlotVerdict compareSlot(const RecordingIndex& index, const std::string& op, const std::string& key,
                        const std::optional<TableSlot>& c10, const std::optional<TableSlot>& ours, std::string& why) {
  if (!c10 && !ours) return SlotVerdict::Missing;
  if (!c10 || !ours) {
    why = !c10 ? "only ours holds an entry" : "only c10 holds an entry";
    return SlotVerdict::Different;
  }
  if (c10->tag != ours->tag) {
    why = "the tags differ";
    return SlotVerdict::Different;
  }
  if (c10->fallthrough != ours->fallthrough) {
    why = "one is a fallthrough, the other not";
    return SlotVerdict::Different;
  }
  if (c10->tag == kAmbiguousTag) return SlotVerdict::Ambiguous;
  const Row* our_row = index.rowOfOurs(ours->debug);
  if (our_row == nullptr) {
    why = "our entry names no recorded row";
    return SlotVerdict::Different;
  }
  const bool fallback = c10->tag == kFallbackTag;
  if (our_row->call != (fallback ? "fallback" : "impl")) {
    why = "our entry comes from a recorded " + our_row->call + " row";
    return SlotVerdict::Different;
  }
  const std::vector<const Row*> candidates = index.candidatesOf(op, key, *c10);
  if (candidates.empty()) {
    why = "c10's entry matches no recorded registration of that key and debug";
    return SlotVerdict::Different;
  }
  if (std::find(candidates.begin(), candidates.end(), our_row) == candidates.end()) {
    why = "ours holds recorded row #" + std::to_string(our_row->seq) + ", c10's entry is row #" +
          std::to_string(candidates.front()->seq) + (candidates.size() > 1 ? " (or another of the same debug)" : "");
    return SlotVerdict::Different;
  }
  if (candidates.size() > 1) return SlotVerdict::SameDebugOnly;
  if (fallback) return c10->fallthrough ? SlotVerdict::FallthroughFallback : SlotVerdict::Fallback;
  return c10->fallthrough ? SlotVerdict::FallthroughKernel : SlotVerdict::Kernel;
}

}  // namespace

ComputedTable parseComputedTable(const std::string& text) {
  ComputedTable table;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const size_t colon = line.find(": ");
    const size_t open = line.rfind(" [");
    if (colon == std::string::npos || open == std::string::npos || open < colon || line.back() != ']')
      throw std::runtime_error("not a computed-table line: '" + line + "'");
    TableSlot slot{false, line.substr(colon + 2, open - colon - 2), line.substr(open + 2, line.size() - open - 3)};
    constexpr std::string_view kFallthrough = "fallthrough ";
    if (slot.debug.starts_with(kFallthrough)) {
      slot.fallthrough = true;
      slot.debug.erase(0, kFallthrough.size());
    }
    if (!table.emplace(line.substr(0, colon), std::move(slot)).second)
      throw std::runtime_error("a key printed twice: '" + line + "'");
  }
  return table;
}

const char* toString(SlotVerdict verdict) {
  switch (verdict) {
    case SlotVerdict::Missing:
      return "missing on both";
    case SlotVerdict::Ambiguous:
      return "ambiguous AutogradOther on both";
    case SlotVerdict::Kernel:
      return "the same recorded kernel";
    case SlotVerdict::FallthroughKernel:
      return "the same recorded fallthrough kernel";
    case SlotVerdict::Fallback:
      return "the same recorded backend fallback";
    case SlotVerdict::FallthroughFallback:
      return "the same recorded fallthrough fallback";
    case SlotVerdict::SameDebugOnly:
      return "same tag and debug, several recorded rows of that debug";
    case SlotVerdict::Different:
      return "different";
  }
  return "?";
}

RecordingIndex::RecordingIndex(const std::vector<Row>& rows) : rows_(rows) {
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (!by_seq_.emplace(rows_[i].seq, i).second)
      throw std::runtime_error("two recorded rows of seq " + std::to_string(rows_[i].seq));
    if (rows_[i].call == "impl") impls_[operatorKey(rows_[i].op, rows_[i].overload)].push_back(i);
    if (rows_[i].call == "fallback") fallbacks_[rows_[i].key].push_back(i);
  }
}

const Row* RecordingIndex::rowOfOurs(const std::string& debug) const {
  if (debug.empty() || debug[0] != '#') return nullptr;
  size_t used = 0;
  long seq = -1;
  try {
    seq = std::stol(debug.substr(1), &used);
  } catch (const std::exception&) {
    return nullptr;
  }
  const auto it = by_seq_.find(seq);
  if (it == by_seq_.end()) return nullptr;
  const Row& row = rows_[it->second];
  // "#<seq> <recorded debug>": the rest must be the row's own text.
  if (debug.compare(1 + used, std::string::npos, " " + row.debug) != 0) return nullptr;
  return &row;
}

std::vector<const Row*> RecordingIndex::candidatesOf(const std::string& op, const std::string& key,
                                                     const TableSlot& slot) const {
  std::vector<const Row*> out;
  const auto keys = keysOfTag(slot.tag, key);
  if (!keys) return out;
  const auto& registry = slot.tag == kFallbackTag ? fallbacks_ : impls_;
  const auto it = registry.find(slot.tag == kFallbackTag ? key : op);
  if (it == registry.end()) return out;
  for (size_t i : it->second) {
    const Row& row = rows_[i];
    if (std::find(keys->begin(), keys->end(), row.key) == keys->end()) continue;
    if (row.debug != slot.debug || (row.kind == "fallthrough") != slot.fallthrough) continue;
    out.push_back(&row);
  }
  return out;
}

long TableComparison::equal() const {
  long total = 0;
  for (const auto& [verdict, count] : verdicts) total += verdict == SlotVerdict::Different ? 0 : count;
  return total;
}

bool TableComparison::tablesEqual() const {
  for (const auto* only : {&keys_only_in_c10, &keys_only_in_ours}) {
    for (const auto& [key, held] : *only) {
      if (held > 0) return false;
    }
  }
  if (!refused.empty() || !skipped_keys.empty() || untranslated != 0) return false;
  return operators > 0 && differences.empty() && operators_only_in_c10.empty() && operators_only_in_ours.empty();
}

std::string TableComparison::summary() const {
  std::ostringstream out;
  out << "replayed into ours (full flavour): " << replayed << " calls, " << refused.size() << " refused";
  for (const auto& refusal : refused) out << "\n  refused " << refusal;
  out << "\nrows skipped on keys our vocabulary lacks: " << skipped_keys.size() << " keys";
  for (const auto& [key, count] : skipped_keys) out << " " << key << "=" << count;
  out << "\nrows not translatable: " << untranslated << "\n";
  out << "operators compared: " << operators << "\n";
  out << "operators only c10 has: " << operators_only_in_c10.size();
  for (const auto& op : operators_only_in_c10) out << " " << op;
  out << "\noperators only ours has: " << operators_only_in_ours.size();
  for (const auto& op : operators_only_in_ours) out << " " << op;
  out << "\nslots compared (operators x keys both tables have): " << slots << "\n";
  out << "equal: " << equal() << "\n";
  for (SlotVerdict verdict : kAllVerdicts) {
    const auto it = verdicts.find(verdict);
    out << "  " << toString(verdict) << ": " << (it == verdicts.end() ? 0 : it->second) << "\n";
  }
  for (const auto& [title, only] :
       {std::pair{"keys only c10's tables have (slots holding an entry)", &keys_only_in_c10},
        std::pair{"keys only our tables have (slots holding an entry)", &keys_only_in_ours}}) {
    out << title << ": " << only->size();
    for (const auto& [key, held] : *only) out << " " << key << "=" << held;
    out << "\n";
  }
  out << "different: " << differences.size() << "\n";
  for (const auto& d : differences) {
    out << "  " << d.op << " " << d.key << ": " << d.why << "\n    c10:  " << d.c10 << "\n    ours: " << d.ours
        << "\n";
  }
  return out.str();
}

void compareOperator(TableComparison& report, const RecordingIndex& index, const std::string& op,
                     const std::string& c10_table, const std::string& our_table,
                     const std::vector<std::string>& c10_keys, const std::vector<std::string>& our_keys) {
  const ComputedTable c10 = parseComputedTable(c10_table);
  const ComputedTable ours = parseComputedTable(our_table);
  const std::set<std::string> c10_set(c10_keys.begin(), c10_keys.end());
  const std::set<std::string> our_set(our_keys.begin(), our_keys.end());
  for (const auto& [table, keys, side] : {std::tuple{&c10, &c10_set, "c10"}, std::tuple{&ours, &our_set, "ours"}}) {
    for (const auto& [key, slot] : *table) {
      if (!keys->count(key))
        throw std::runtime_error(std::string(side) + "'s table of " + op + " prints key " + key +
                                 ", which is not in its key list");
    }
  }
  ++report.operators;
  for (const std::string& key : c10_keys) {
    if (!our_set.count(key)) report.keys_only_in_c10[key] += static_cast<long>(c10.count(key));
  }
  for (const std::string& key : our_keys) {
    if (!c10_set.count(key)) {
      report.keys_only_in_ours[key] += static_cast<long>(ours.count(key));
      continue;
    }
    ++report.slots;
    const auto c10_slot = slotOf(c10, key);
    const auto our_slot = slotOf(ours, key);
    std::string why;
    const SlotVerdict verdict = compareSlot(index, op, key, c10_slot, our_slot, why);
    ++report.verdicts[verdict];
    if (verdict == SlotVerdict::Different)
      report.differences.push_back({op, key, printed(c10_slot), printed(our_slot), why});
  }
}

TableComparison compareWithReplay(const std::vector<Row>& rows, const std::map<std::string, std::string>& c10_tables,
                                  const std::vector<std::string>& c10_keys) {
  if (c10_tables.empty()) throw std::runtime_error("no c10 tables to compare with");
  TableComparison report;
  const RecordingIndex index(rows);
  Translation translation = translate(rows);
  report.skipped_keys = translation.skipped_keys;
  report.untranslated = translation.untranslated();
  Replay<FullLayout> replay;
  for (Call& call : translation.calls) {
    const long seq = call.seq;
    if (auto refusal = replay.apply(std::move(call))) {
      report.refused.push_back(std::to_string(seq) + ": " + refusal->message());
    }
    ++report.replayed;
  }
  const auto& ours = replay.dispatcher();
  const std::vector<std::string> our_keys = ourTableKeys<FullLayout>();
  std::set<std::string> ours_named;
  for (const OperatorName& name : ours.getAllOpNames()) {
    const std::string op = operatorKey(name.name, name.overload_name);
    ours_named.insert(op);
    const auto theirs = c10_tables.find(op);
    if (theirs == c10_tables.end()) {
      report.operators_only_in_ours.push_back(op);
      continue;
    }
    compareOperator(report, index, op, theirs->second, ours.findOp(name)->dumpComputedTable(), c10_keys, our_keys);
  }
  for (const auto& [op, table] : c10_tables) {
    if (!ours_named.count(op)) report.operators_only_in_c10.push_back(op);
  }
  std::sort(report.operators_only_in_ours.begin(), report.operators_only_in_ours.end());
  return report;
}

}  // namespace dispatch::workload
