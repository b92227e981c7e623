#pragma once
// Table-cell coverage for ci/coverage.sh. Line coverage says which code ran; it cannot say which
// (table key, entry tag) combinations the fuzz inputs ever built, which of them a call landed on,
// which fallback slots were set, or which paths met a key without a slot (index -1, mobile).
// The recorder answers that by reading the live tables after every step. It is off unless the
// environment variable DISPATCH_TABLE_CELLS names a file; then every fuzz input appends one JSON
// line to it, and each layout is described once per process (ci/lib/coverage_cells.py reads both).
// Header-only: the trace runner and boxed_call_fuzzer include it.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch.h"

namespace dispatch::oracle {

namespace cell_detail {

constexpr std::string_view kFallthroughPrefix = "fallthrough ";

// Undefined, then every runtime key: the keys a table can hold (as operator_entry.cpp walks them).
template <class Fn>
inline void forEachTableKey(Fn&& fn) {
  fn(DispatchKey::Undefined);
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) fn(k);
}

inline std::vector<EntryTag> allTags() {
  std::vector<EntryTag> tags;
  for (int t = 0; t <= static_cast<int>(EntryTag::MissingInFlavour); ++t) {
    tags.push_back(static_cast<EntryTag>(t));
  }
  return tags;
}

// Whether the precedence of docs/semantics.md §4.4 can give key k (which has a slot) this tag at all: the
// step that produces the tag must apply to k. MissingInFlavour belongs to keys without a slot.
inline bool reachable(DispatchKey k, EntryTag tag) {
  const bool undefined = k == DispatchKey::Undefined;
  switch (tag) {
    case EntryTag::Kernel:
    case EntryTag::BackendFallback:
      return isRuntimeDispatchKey(k);  // impl and registerFallback take runtime keys only
    case EntryTag::DefaultBackendKernel:
      return undefined || isIncludedInAlias(k, DispatchKey::CompositeExplicitAutograd) ||
             isIncludedInAlias(k, DispatchKey::CompositeExplicitAutogradNonFunctional);
    case EntryTag::NestedKernel:
      return isIncludedInAlias(k, DispatchKey::CompositeImplicitAutogradNestedTensor);
    case EntryTag::MathKernel:
      return undefined || isIncludedInAlias(k, DispatchKey::CompositeImplicitAutograd);
    case EntryTag::AmbiguousAutogradOther:
      return k == DispatchKey::AutogradOther;
    case EntryTag::AutogradKernel:
      return isIncludedInAlias(k, DispatchKey::Autograd);
    case EntryTag::Missing:
      return true;
    case EntryTag::MissingInFlavour:
      return false;
  }
  return false;
}

inline std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <class Range>
inline std::string jsonList(const Range& items) {
  std::string out = "[";
  for (const auto& item : items) {
    if (out.size() > 1) out += ",";
    out += jsonString(item);
  }
  return out + "]";
}

inline std::string cell(DispatchKey k, std::string_view tag) {
  return std::string(toString(k)) + "|" + std::string(tag);
}

// One line of dumpDispatchTable: "Key: [fallthrough ]<debug> [<tag>]".
struct TableLine {
  std::string key;
  std::string tag;
  bool fallthrough = false;
};

inline std::map<std::string, TableLine, std::less<>> parseTable(const std::string& dump) {
  std::map<std::string, TableLine, std::less<>> lines;
  std::istringstream in(dump);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(": ");
    const size_t open = line.rfind(" [");
    if (colon == std::string::npos || open == std::string::npos || line.back() != ']') continue;
    TableLine parsed{line.substr(0, colon), line.substr(open + 2, line.size() - open - 3),
                     line.compare(colon + 2, kFallthroughPrefix.size(), kFallthroughPrefix) == 0};
    lines.emplace(parsed.key, parsed);
  }
  return lines;
}

}  // namespace cell_detail

class CellRecorder {
 public:
  // The recorder of this process, or nullptr when DISPATCH_TABLE_CELLS is not set.
  static CellRecorder* active();

  // Every operator's live table and the fallback table, as they are now.
  template <class L>
  void observeTables(const BasicDispatcher<L>& dispatcher);
  // A call through the table with its final key set (after TLS and fallthrough masking), made by
  // `api` ("call", "callBoxed", "redispatch", ...). Reads the table, so call it before the call.
  template <class L>
  void observeCall(const BasicOperatorHandle<L>& op, DispatchKeySet ks, std::string_view api);
  // A registration or call naming key k: records k if it has no slot in L. An API that expands
  // aliases (impl, Library::fallback) passes expands_aliases, and then an alias's runtime keys
  // without a slot are recorded; the others refuse aliases before they index anything.
  template <class L>
  void observeKey(std::string_view api, DispatchKey k, bool expands_aliases);

  // Writes one JSON line with everything observed since the last call, and forgets it.
  void endInput(std::string_view target);

 private:
  explicit CellRecorder(std::FILE* out) : out_(out) {}

  // Everything one flavour reached during one input; strings are "Key|tag" or key names.
  struct Cells {
    std::set<std::string> held;              // a table entry that existed after some step
    std::set<std::string> held_fallthrough;  // ... and was a fallthrough kernel
    std::set<std::string> called;            // a call's table lookup landed on it
    std::set<std::string> fallbacks_held;    // fallback slot set ("Key" or "Key|fallthrough")
    std::set<std::string> fallbacks_called;  // a call landed on a backend-fallback entry
    std::set<std::string> no_slot;           // "api|Key": a path that met index -1
  };

  template <class L>
  Cells& cellsOf();
  template <class L>
  void describeLayoutOnce();

  std::FILE* out_;
  std::map<std::string, Cells, std::less<>> flavours_;
  std::set<std::string, std::less<>> described_;
};

inline CellRecorder* CellRecorder::active() {
  static CellRecorder* recorder = []() -> CellRecorder* {
    const char* path = std::getenv("DISPATCH_TABLE_CELLS");
    if (path == nullptr || path[0] == '\0') return nullptr;
    std::FILE* out = std::fopen(path, "a");
    if (out == nullptr) {
      std::fprintf(stderr, "DISPATCH_TABLE_CELLS: cannot open %s\n", path);
      std::exit(2);
    }
    return new CellRecorder(out);  // lives as long as the process
  }();
  return recorder;
}

template <class L>
CellRecorder::Cells& CellRecorder::cellsOf() {
  describeLayoutOnce<L>();
  return flavours_[std::string(L::kName)];
}

// {"layout": name, "slots": [{"slot", "key", "reachable": [tags]}], "tags": [...],
//  "no_slot_keys": [...]}: what the aggregation needs to know what "all cells" means.
template <class L>
void CellRecorder::describeLayoutOnce() {
  if (!described_.insert(std::string(L::kName)).second) return;
  std::string slots;
  std::vector<std::string> no_slot_keys;
  cell_detail::forEachTableKey([&](DispatchKey k) {
    const int index = L::indexOf(k);
    if (index < 0) {
      no_slot_keys.emplace_back(toString(k));
      return;
    }
    std::vector<std::string> tags;
    for (EntryTag tag : cell_detail::allTags()) {
      if (cell_detail::reachable(k, tag)) tags.emplace_back(toString(tag));
    }
    slots += std::string(slots.empty() ? "" : ",") + "{\"slot\":" + std::to_string(index) +
             ",\"key\":" + cell_detail::jsonString(toString(k)) +
             ",\"reachable\":" + cell_detail::jsonList(tags) + "}";
  });
  std::vector<std::string> tag_names;
  for (EntryTag tag : cell_detail::allTags()) tag_names.emplace_back(toString(tag));
  const std::string line = "{\"layout\":" + cell_detail::jsonString(L::kName) + ",\"slots\":[" +
                           slots + "],\"tags\":" + cell_detail::jsonList(tag_names) +
                           ",\"no_slot_keys\":" + cell_detail::jsonList(no_slot_keys) + "}\n";
  std::fputs(line.c_str(), out_);
}

template <class L>
void CellRecorder::observeTables(const BasicDispatcher<L>& dispatcher) {
  Cells& cells = cellsOf<L>();
  for (const OperatorName& name : dispatcher.getAllOpNames()) {
    const auto op = dispatcher.findOp(name);
    if (!op) continue;
    const auto table = cell_detail::parseTable(op->dumpDispatchTable());
    cell_detail::forEachTableKey([&](DispatchKey k) {
      if (L::indexOf(k) < 0) return;
      const auto line = table.find(toString(k));
      // Dumps skip empty slots: an absent line is a missing entry.
      const std::string tag =
          line == table.end() ? std::string(toString(EntryTag::Missing)) : line->second.tag;
      cells.held.insert(cell_detail::cell(k, tag));
      if (line != table.end() && line->second.fallthrough) {
        cells.held_fallthrough.insert(cell_detail::cell(k, tag));
      }
    });
  }
  // dumpFallbacks: "Key: [fallthrough ]<debug>" per set slot.
  std::istringstream in(dispatcher.dumpFallbacks());
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const bool fallthrough = line.compare(colon + 2, cell_detail::kFallthroughPrefix.size(),
                                          cell_detail::kFallthroughPrefix) == 0;
    cells.fallbacks_held.insert(line.substr(0, colon) + (fallthrough ? "|fallthrough" : ""));
  }
}

template <class L>
void CellRecorder::observeCall(const BasicOperatorHandle<L>& op, DispatchKeySet ks,
                               std::string_view api) {
  Cells& cells = cellsOf<L>();
  if (L::indexOf(ks) < 0) {
    // Bits past the last functionality name no key (every layout gives -1; docs/semantics.md §3.5).
    const bool garbage = (ks.raw_repr() >> (num_backends + num_functionality_keys - 1)) != 0;
    const DispatchKey k = ks.highestPriorityTypeId();
    cells.no_slot.insert(std::string(api) + "|" +
                         (garbage || !isValidDispatchKey(k) ? "bits past the last functionality"
                                                            : std::string(toString(k))));
    return;
  }
  // The key whose slot the lookup reads (one key per slot in every layout).
  std::optional<DispatchKey> landed;
  cell_detail::forEachTableKey([&](DispatchKey k) {
    if (!landed && L::indexOf(k) == L::indexOf(ks)) landed = k;
  });
  if (!landed) return;
  const auto table = cell_detail::parseTable(op.dumpDispatchTable());
  const auto line = table.find(toString(*landed));
  const std::string tag =
      line == table.end() ? std::string(toString(EntryTag::Missing)) : line->second.tag;
  cells.called.insert(cell_detail::cell(*landed, tag));
  if (tag == toString(EntryTag::BackendFallback)) cells.fallbacks_called.emplace(toString(*landed));
}

template <class L>
void CellRecorder::observeKey(std::string_view api, DispatchKey k, bool expands_aliases) {
  if (!isValidDispatchKey(k)) return;
  const bool alias = isAliasDispatchKey(k);
  if (alias ? !expands_aliases : !isRuntimeDispatchKey(k)) return;
  Cells& cells = cellsOf<L>();
  const std::string path =
      std::string(api) + (alias ? " (alias " + std::string(toString(k)) + ")" : "") + "|";
  for (DispatchKey runtime : getRuntimeDispatchKeySet(k)) {
    if (L::indexOf(runtime) < 0) cells.no_slot.insert(path + std::string(toString(runtime)));
  }
}

inline void CellRecorder::endInput(std::string_view target) {
  std::string line = "{\"target\":" + cell_detail::jsonString(target) + ",\"flavours\":{";
  bool first = true;
  for (const auto& [flavour, cells] : flavours_) {
    line += (first ? "" : ",") + cell_detail::jsonString(flavour) +
            ":{\"held\":" + cell_detail::jsonList(cells.held) +
            ",\"held_fallthrough\":" + cell_detail::jsonList(cells.held_fallthrough) +
            ",\"called\":" + cell_detail::jsonList(cells.called) +
            ",\"fallbacks_held\":" + cell_detail::jsonList(cells.fallbacks_held) +
            ",\"fallbacks_called\":" + cell_detail::jsonList(cells.fallbacks_called) +
            ",\"no_slot\":" + cell_detail::jsonList(cells.no_slot) + "}";
    first = false;
  }
  line += "}}\n";
  std::fputs(line.c_str(), out_);
  std::fflush(out_);  // a crash in the next input keeps this one
  flavours_.clear();
}

}  // namespace dispatch::oracle
