#include "oracle/ours/call_witness.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

#include "dispatch/dispatch_key_set.h"

namespace dispatch::oracle {

namespace {

thread_local CallWitness* watching = nullptr;

// A string as the recorder keeps it in a field of `size` bytes: cut, NUL-terminated.
std::string_view cut(std::string_view text, size_t size) { return text.substr(0, std::min(text.size(), size - 1)); }

std::string describe(std::string_view op, std::string_view flavour, CallKind kind, uint64_t keys, DispatchKey key,
                     int slot, std::string_view kernel, int depth) {
  std::string out;
  out.append(toString(kind)).append(" op=").append(op).append(" flavour=").append(flavour);
  out.append(" keys=").append(toString(DispatchKeySet(DispatchKeySet::RAW, keys)));
  out.append(" key=").append(toString(key)).append(" slot=").append(std::to_string(slot));
  out.append(" kernel=").append(kernel).append(" depth=").append(std::to_string(depth));
  return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

// This thread's file for the dumps it checks, emptied before each: the check runs after every
// fuzz input, and a new temporary file each time cost more than the check itself.
class DumpFile {
 public:
  DumpFile() : file_(std::tmpfile()) {
    if (file_ == nullptr) throw std::runtime_error("no temporary file for the flight recorder's dump");
  }
  DumpFile(const DumpFile&) = delete;
  DumpFile& operator=(const DumpFile&) = delete;
  ~DumpFile() { std::fclose(file_); }

  // The file, empty, at its start.
  std::FILE* emptied() {
    std::rewind(file_);
    if (::ftruncate(fileno(file_), 0) != 0) throw std::runtime_error("cannot empty the flight recorder's dump file");
    return file_;
  }

 private:
  std::FILE* file_;
};

std::optional<std::string> readWhole(std::FILE* file) {
  std::string text;
  char buffer[4096];
  std::rewind(file);
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) != 0;) text.append(buffer, n);
  if (std::ferror(file)) return std::nullopt;
  return text;
}

}  // namespace

CallKind callKindOf(ActionKind kind) {
  switch (kind) {
    case ActionKind::CallTyped: return CallKind::Call;
    case ActionKind::CallBoxed: return CallKind::CallBoxed;
    case ActionKind::Redispatch: return CallKind::Redispatch;
    case ActionKind::RedispatchBoxed: return CallKind::RedispatchBoxed;
    case ActionKind::CallForKey: return CallKind::CallBoxedForKey;
    default: break;
  }
  throw std::invalid_argument(std::string("not a call action: ").append(toString(kind)));
}

CallWitness::CallWitness(std::string flavour, SlotOf slot_of) : flavour_(std::move(flavour)), slot_of_(slot_of) {
  if (!kDiagnosticsCompiledIn) return;
  observer_ = addCallObserver(
      [this](const CallInfo& info) {
        if (watching != this) return;
        entered_.push_back({std::string(info.op), std::string(info.flavour), info.kind, info.keys.raw_repr(),
                            info.key, info.slot, std::string(info.kernel), info.depth});
      },
      [this](const CallInfo&) {
        if (watching == this) ++exited_;
      });
}

CallWitness::~CallWitness() = default;

CallWitness::Watch::Watch(CallWitness& witness) : previous_(watching) {
  witness.entered_.clear();
  witness.exited_ = 0;
  watching = &witness;
}

CallWitness::Watch::~Watch() { watching = previous_; }

std::optional<std::string> CallWitness::misreport(std::string_view op, CallKind kind, std::string_view kernel,
                                                  uint64_t keys) const {
  if (!kDiagnosticsCompiledIn) return std::nullopt;
  if (auto wrong = observersDiffer(op, kind, kernel, keys)) return "call observers: " + *wrong;
  if (auto wrong = recorderDiffers()) return "flight recorder: " + *wrong;
  return std::nullopt;
}

std::optional<std::string> CallWitness::observersDiffer(std::string_view op, CallKind kind,
                                                        std::string_view kernel, uint64_t keys) const {
  if (entered_.empty()) return "saw no call of " + std::string(op);
  if (exited_ != entered_.size()) {
    return "saw " + std::to_string(entered_.size()) + " calls entered but " + std::to_string(exited_) + " exited";
  }
  const Seen& outer = entered_.front();
  const Seen& inner = entered_.back();
  if (outer.op != op || outer.flavour != flavour_ || outer.kind != kind || outer.depth != 0) {
    return "the outermost call is " + describe(outer.op, outer.flavour, outer.kind, outer.keys, outer.key, outer.slot,
                                                outer.kernel, outer.depth) +
           "; the oracle made " + std::string(toString(kind)) + " op=" + std::string(op) + " flavour=" + flavour_;
  }
  if (inner.kernel != kernel || inner.keys != keys) {
    return "the innermost call ran kernel " + inner.kernel + " with " +
           toString(DispatchKeySet(DispatchKeySet::RAW, inner.keys)) + "; the call returned " + std::string(kernel) +
           "'s result with " + toString(DispatchKeySet(DispatchKeySet::RAW, keys));
  }
  for (size_t i = 0; i < entered_.size(); ++i) {
    const Seen& s = entered_[i];
    const DispatchKeySet looked_up(DispatchKeySet::RAW, s.keys);
    const DispatchKey key = looked_up.highestPriorityTypeId();
    // Nested calls come from kernels that redispatch: each one level under some earlier call.
    const bool depth_fits = i == 0 ? s.depth == 0 : s.depth >= 1 && s.depth <= entered_[i - 1].depth + 1;
    if (s.key != key || s.slot != slot_of_(looked_up) || !depth_fits) {
      return "call " + std::to_string(i) + " is " +
             describe(s.op, s.flavour, s.kind, s.keys, s.key, s.slot, s.kernel, s.depth) + "; its key set's key is " +
             std::string(toString(key)) + " at slot " + std::to_string(slot_of_(looked_up));
    }
  }
  return std::nullopt;
}

std::optional<std::string> CallWitness::recorderDiffers() const {
  if (!flight_recorder::enabled()) return std::nullopt;
  const std::vector<flight_recorder::Event> events = flight_recorder::snapshot();
  // A chain of nested calls longer than the ring keeps only its newest calls.
  const size_t kept = std::min<size_t>(entered_.size(), kFlightRecorderCapacity);
  if (events.size() < kept) {
    return "holds " + std::to_string(events.size()) + " events after " + std::to_string(entered_.size()) + " calls";
  }
  const size_t first_event = events.size() - kept;
  const size_t first_call = entered_.size() - kept;
  for (size_t i = 0; i < kept; ++i) {
    const flight_recorder::Event& e = events[first_event + i];
    const Seen& s = entered_[first_call + i];
    const bool same = static_cast<int>(e.kind) == static_cast<int>(s.kind) && e.depth == s.depth &&
                      e.slot == s.slot && e.key == s.key && e.keys == s.keys &&
                      cut(s.op, sizeof e.op) == e.op && cut(s.flavour, sizeof e.flavour) == e.flavour &&
                      cut(s.kernel, sizeof e.detail) == e.detail &&
                      e.status == flight_recorder::EventStatus::Done;
    if (!same) {
      return "event " + flight_recorder::format(e) + " for the call the observers saw as " +
             describe(s.op, s.flavour, s.kind, s.keys, s.key, s.slot, s.kernel, s.depth) + " [done]";
    }
  }
  return std::nullopt;
}

uint64_t CallWitness::newestEvent() {
  if (!kDiagnosticsCompiledIn || !flight_recorder::enabled()) return 0;
  const std::vector<flight_recorder::Event> events = flight_recorder::snapshot();
  return events.empty() ? 0 : events.back().seq;
}

std::optional<std::string> CallWitness::registrationMisreported(uint64_t before, flight_recorder::EventKind kind,
                                                                std::string_view op, DispatchKey key) {
  if (!kDiagnosticsCompiledIn || !flight_recorder::enabled()) return std::nullopt;
  const std::vector<flight_recorder::Event> events = flight_recorder::snapshot();
  std::vector<const flight_recorder::Event*> added;
  for (const flight_recorder::Event& e : events) {
    if (e.seq > before) added.push_back(&e);
  }
  const std::string wanted = std::string(flight_recorder::toString(kind)) + " op=" + std::string(op) +
                             " key=" + std::string(toString(key)) + " [done]";
  if (added.size() != 1) {
    return "flight recorder: " + std::to_string(added.size()) + " new events for the registration " + wanted;
  }
  const flight_recorder::Event& e = *added.front();
  if (e.kind != kind || cut(op, sizeof e.op) != e.op || e.key != key ||
      e.status != flight_recorder::EventStatus::Done) {
    return "flight recorder: event " + flight_recorder::format(e) + " for the registration " + wanted;
  }
  return std::nullopt;
}

std::optional<std::string> CallWitness::restingRecorderDiffers() {
  if (!kDiagnosticsCompiledIn || !flight_recorder::enabled()) return std::nullopt;
  const std::vector<flight_recorder::Event> events = flight_recorder::snapshot();
  for (const flight_recorder::Event& e : events) {
    if (e.status == flight_recorder::EventStatus::Started) {
      return "event " + flight_recorder::format(e) + " is still in progress with nothing running";
    }
  }
  thread_local DumpFile dump_file;
  std::FILE* file = dump_file.emptied();
  flight_recorder::dump(fileno(file), "oracle check");
  const std::optional<std::string> text = readWhole(file);
  if (!text) throw std::runtime_error("cannot read back the flight recorder's dump");

  const std::vector<std::string_view> lines = splitLines(*text);
  if (lines.empty() || lines.front() != "==== dispatch flight recorder: begin (oracle check) ====") {
    return std::string("the dump does not begin with its marker");
  }
  // Its one end marker, last: nothing of an earlier dump may be left in the file behind it.
  constexpr std::string_view kEnd = "==== dispatch flight recorder: end ====\n";
  if (!text->ends_with(kEnd) || text->find(kEnd) != text->size() - kEnd.size()) {
    return std::string("the dump does not end at its one end marker and a newline");
  }
  if (events.empty()) return std::nullopt;
  // This thread's header, then its events oldest first, each as format() prints it.
  const std::string header = "this thread: last " + std::to_string(events.size()) + " of ";
  size_t at = 1;
  while (at < lines.size() && !lines[at].starts_with(header)) ++at;
  if (at == lines.size()) return "the dump has no header \"" + header + "...\"";
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string wanted = "  " + flight_recorder::format(events[i]);
    const size_t line = at + 1 + i;
    if (line + 1 >= lines.size() || lines[line] != wanted) {
      return "event " + std::to_string(i) + " of this thread prints in the dump as\n" +
             std::string(line + 1 < lines.size() ? lines[line] : "(nothing)") + "\nbut format() gives\n" + wanted;
    }
  }
  return std::nullopt;
}

}  // namespace dispatch::oracle
