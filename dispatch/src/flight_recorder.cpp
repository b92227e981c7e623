// The flight recorder (diagnostics.h): per-thread rings of events, their text form, and the
// crash handlers that print them before the process dies.

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/diagnostics.h"
#include "dispatch/errors.h"

#if DISPATCH_DIAGNOSTICS
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <mutex>
#endif

namespace dispatch::flight_recorder {

std::string_view toString(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::Call: return "call";
    case EventKind::Redispatch: return "redispatch";
    case EventKind::CallBoxed: return "call boxed";
    case EventKind::RedispatchBoxed: return "redispatch boxed";
    case EventKind::CallBoxedForKey: return "call boxed for key";
    case EventKind::RegisterDef: return "register def";
    case EventKind::DeregisterDef: return "deregister def";
    case EventKind::RegisterImpl: return "register impl";
    case EventKind::DeregisterImpl: return "deregister impl";
    case EventKind::RegisterFallback: return "register fallback";
    case EventKind::DeregisterFallback: return "deregister fallback";
  }
  return "?";
}

std::string_view toString(EventStatus status) noexcept {
  switch (status) {
    case EventStatus::Started: return "in progress";
    case EventStatus::Done: return "done";
    case EventStatus::Failed: return "threw";
  }
  return "?";
}

namespace {

// Appends to a fixed buffer without allocating: usable in a signal handler.
class LineWriter {
 public:
  LineWriter(char* buffer, size_t size) noexcept : buffer_(buffer), size_(size) {}
  LineWriter& operator<<(std::string_view text) noexcept {
    const size_t n = std::min(text.size(), size_ - 1 - length_);
    if (n != 0) std::memcpy(buffer_ + length_, text.data(), n);  // empty views may be null
    length_ += n;
    buffer_[length_] = '\0';
    return *this;
  }
  LineWriter& operator<<(int64_t value) noexcept {
    char digits[24];
    int n = 0;
    const bool negative = value < 0;
    uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    do {
      digits[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    if (negative) digits[n++] = '-';
    std::reverse(digits, digits + n);
    return *this << std::string_view(digits, static_cast<size_t>(n));
  }
  std::string_view text() const noexcept { return {buffer_, length_}; }

 private:
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

// The longest text of one event; format() and the crash dump cut it at the same length, and the
// dump's indent and newline come on top, so a long event never runs into the next line.
constexpr size_t kMaxEventText = 512;

bool isCall(EventKind kind) noexcept { return kind <= EventKind::CallBoxedForKey; }

void formatInto(LineWriter& out, const Event& e) noexcept {
  out << "#" << static_cast<int64_t>(e.seq) << " ";
  if (isCall(e.kind)) {
    for (int i = 0; i < e.depth; ++i) out << "  ";
    out << toString(e.kind) << " op=" << e.op << " key=" << toString(e.key)
        << " slot=" << static_cast<int64_t>(e.slot) << " depth=" << static_cast<int64_t>(e.depth)
        << " keys=(";
    bool first = true;
    for (DispatchKey k : DispatchKeySet(DispatchKeySet::RAW, e.keys)) {
      out << (first ? "" : ", ") << toString(k);
      first = false;
    }
    out << ") kernel=\"" << e.detail << "\"";
  } else {
    out << toString(e.kind);
    if (e.op[0] != '\0') out << " op=" << e.op;
    if (e.kind == EventKind::RegisterImpl || e.kind == EventKind::DeregisterImpl ||
        e.kind == EventKind::RegisterFallback || e.kind == EventKind::DeregisterFallback) {
      out << " key=" << toString(e.key) << " slot=" << static_cast<int64_t>(e.slot);
    }
    out << " debug=\"" << e.detail << "\"";
  }
  out << " flavour=" << e.flavour << " [" << toString(e.status) << "]";
}

}  // namespace

std::string format(const Event& event) {
  char buffer[kMaxEventText + 1];
  LineWriter out(buffer, sizeof buffer);
  formatInto(out, event);
  return std::string(out.text());
}

#if DISPATCH_DIAGNOSTICS

namespace {

// One ring per live thread. Rings are never freed: a thread's ring goes back to the pool when
// the thread ends, so a crash handler can walk every ring without locks or freed memory.
struct Ring {
  Event events[kFlightRecorderCapacity];
  uint64_t count = 0;  // events ever written; the newest is events[(count - 1) % capacity]
  std::atomic<bool> in_use{false};
  Ring* next = nullptr;
};

std::atomic<Ring*> all_rings{nullptr};
std::atomic<uint64_t> next_seq{1};

Ring* acquireRing() {
  for (Ring* ring = all_rings.load(std::memory_order_acquire); ring != nullptr; ring = ring->next) {
    bool expected = false;
    if (ring->in_use.compare_exchange_strong(expected, true)) {
      ring->count = 0;
      return ring;
    }
  }
  auto* ring = new Ring;
  ring->in_use.store(true, std::memory_order_relaxed);
  ring->next = all_rings.load(std::memory_order_relaxed);
  while (!all_rings.compare_exchange_weak(ring->next, ring, std::memory_order_release)) {
  }
  return ring;
}

// The ring of the calling thread, if it has one yet. A plain pointer: readable from signal
// handlers, and still valid for events recorded by static destructors after the lease ended.
thread_local Ring* this_thread_ring = nullptr;

struct RingLease {
  Ring* ring = acquireRing();
  ~RingLease() { ring->in_use.store(false, std::memory_order_release); }
};

Ring& threadRing() {
  if (this_thread_ring == nullptr) {
    thread_local RingLease lease;
    this_thread_ring = lease.ring;
  }
  return *this_thread_ring;
}

void writeAll(int fd, std::string_view text) noexcept {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

// The dump's output: a file descriptor behind a fixed buffer, written out when full, after each
// ring and when the dump ends. A few write calls per dump instead of three per event (the fuzzers check a dump
// after every input); no allocation, so a signal handler may use it.
class BufferedFd {
 public:
  explicit BufferedFd(int fd) noexcept : fd_(fd) {}
  BufferedFd(const BufferedFd&) = delete;
  BufferedFd& operator=(const BufferedFd&) = delete;
  ~BufferedFd() { flush(); }

  void append(std::string_view text) noexcept {
    while (!text.empty()) {  // an empty view may be null: no memcpy then
      if (length_ == sizeof buffer_) flush();
      const size_t n = std::min(text.size(), sizeof buffer_ - length_);
      std::memcpy(buffer_ + length_, text.data(), n);
      length_ += n;
      text.remove_prefix(n);
    }
  }
  void flush() noexcept {
    writeAll(fd_, std::string_view(buffer_, length_));
    length_ = 0;
  }

 private:
  int fd_;
  char buffer_[4096];
  size_t length_ = 0;
};

void writeAll(BufferedFd& fd, std::string_view text) noexcept { fd.append(text); }

void dumpRing(BufferedFd& fd, const Ring& ring, const char* title) noexcept {
  const uint64_t count = ring.count;
  const uint64_t shown = std::min<uint64_t>(count, kFlightRecorderCapacity);
  char buffer[512];
  {
    LineWriter out(buffer, sizeof buffer);
    out << title << ": last " << static_cast<int64_t>(shown) << " of "
        << static_cast<int64_t>(count) << " events, oldest first\n";
    writeAll(fd, out.text());
  }
  for (uint64_t i = count - shown; i < count; ++i) {
    char event_text[kMaxEventText + 1];
    LineWriter out(event_text, sizeof event_text);
    formatInto(out, ring.events[i % kFlightRecorderCapacity]);
    writeAll(fd, "  ");
    writeAll(fd, out.text());
    writeAll(fd, "\n");
  }
  fd.flush();  // a crash while a later ring is read loses none of this one's lines
}

std::atomic<bool> dumped{false};

void dumpOnce(const char* reason) noexcept {
  if (!enabled() || dumped.exchange(true)) return;
  dump(STDERR_FILENO, reason);
}

// --- crash hooks ---

constexpr int kCrashSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction previous_actions[std::size(kCrashSignals)];
std::terminate_handler previous_terminate = nullptr;

const char* signalReason(int sig) noexcept {
  switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
  }
  return "signal";
}

// Prints, then hands the signal to whoever had it before (libFuzzer, a sanitizer), or dies of it.
void onCrashSignal(int sig, siginfo_t* info, void* context) {
  dumpOnce(signalReason(sig));
  for (size_t i = 0; i < std::size(kCrashSignals); ++i) {
    if (kCrashSignals[i] != sig) continue;
    const struct sigaction& previous = previous_actions[i];
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
      previous.sa_sigaction(sig, info, context);
      return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
      previous.sa_handler(sig);
      return;
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);  // blocked until we return: then the default action ends the process
}

void onTerminate() {
  dumpOnce("std::terminate");
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

}  // namespace

bool enabled() noexcept { return (detail::callHooks() & detail::kHookRecorder) != 0; }

void setEnabled(bool on) {
  detail::callHooks();
  if (on) {
    detail::call_hooks.fetch_or(detail::kHookRecorder);
  } else {
    detail::call_hooks.fetch_and(~detail::kHookRecorder);
  }
}

std::vector<Event> snapshot() {
  const Ring& ring = threadRing();
  const uint64_t shown = std::min<uint64_t>(ring.count, kFlightRecorderCapacity);
  std::vector<Event> events;
  for (uint64_t i = ring.count - shown; i < ring.count; ++i) {
    events.push_back(ring.events[i % kFlightRecorderCapacity]);
  }
  return events;
}

void clear() noexcept { threadRing().count = 0; }

void dump(int fd, const char* reason) noexcept {
  BufferedFd buffered(fd);
  char buffer[160];
  LineWriter begin(buffer, sizeof buffer);
  begin << "==== dispatch flight recorder: begin (" << reason << ") ====\n";
  writeAll(buffered, begin.text());
  const Ring* mine = this_thread_ring;
  if (mine != nullptr) dumpRing(buffered, *mine, "this thread");
  for (Ring* ring = all_rings.load(std::memory_order_acquire); ring != nullptr; ring = ring->next) {
    if (ring == mine || !ring->in_use.load(std::memory_order_acquire) || ring->count == 0) continue;
    dumpRing(buffered, *ring, "another thread");
  }
  writeAll(buffered, "==== dispatch flight recorder: end ====\n");
}

}  // namespace dispatch::flight_recorder

namespace dispatch::detail {

uint64_t recordEvent(const flight_recorder::Event& event) noexcept {
  installCrashHandlers();
  auto& ring = flight_recorder::threadRing();
  const uint64_t seq = flight_recorder::next_seq.fetch_add(1, std::memory_order_relaxed);
  flight_recorder::Event& slot = ring.events[ring.count % kFlightRecorderCapacity];
  slot = event;
  slot.seq = seq;
  ++ring.count;
  return seq;
}

void finishEvent(uint64_t seq, flight_recorder::EventStatus status) noexcept {
  flight_recorder::Ring* ring = flight_recorder::this_thread_ring;
  if (ring == nullptr || seq == 0) return;
  // Not always the newest event (nested calls came after it), and maybe overwritten already.
  // Newest first: a ring's events are in sequence order, so it is nearly always one of the
  // last few, and every older one has a smaller sequence number (this runs on every call).
  const uint64_t shown = std::min<uint64_t>(ring->count, kFlightRecorderCapacity);
  for (uint64_t i = 1; i <= shown; ++i) {
    auto& event = ring->events[(ring->count - i) % kFlightRecorderCapacity];
    if (event.seq == seq) {
      event.status = status;
      return;
    }
    if (event.seq < seq) return;
  }
}

#if defined(DISPATCH_HAVE_SANITIZER_RUNTIME) && !defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
extern "C" void __sanitizer_set_death_callback(void (*callback)(void));
#endif

void installCrashHandlers() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    using namespace flight_recorder;
    previous_terminate = std::set_terminate(&onTerminate);
    for (size_t i = 0; i < std::size(kCrashSignals); ++i) {
      struct sigaction action {};
      action.sa_sigaction = &onCrashSignal;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&action.sa_mask);
      sigaction(kCrashSignals[i], &action, &previous_actions[i]);
    }
#if defined(DISPATCH_HAVE_SANITIZER_RUNTIME) && !defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
    // Under libFuzzer the death callback is libFuzzer's (it writes the crash input); there the
    // report summary hook below prints instead.
    __sanitizer_set_death_callback([] { dumpOnce("sanitizer report"); });
#endif
  });
}

}  // namespace dispatch::detail

#if defined(DISPATCH_HAVE_SANITIZER_RUNTIME) && defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
#include <sys/wait.h>

#include <cerrno>

// Every sanitizer calls this (a weak default in its runtime) with the SUMMARY line of a report,
// just before dying; libFuzzer does not use it, so its death callback stays in place.
// The dump runs in a child process: when the report is about the recorder's own code, dumping
// faults again, and a sanitizer aborts on a report inside a report before libFuzzer's death
// callback has saved the crash input. In a child, only the child dies of it.
extern "C" void __sanitizer_report_error_summary(const char* summary) {
  dispatch::flight_recorder::writeAll(STDERR_FILENO, summary);
  dispatch::flight_recorder::writeAll(STDERR_FILENO, "\n");
  const pid_t child = fork();
  if (child == 0) {
    dispatch::flight_recorder::dumpOnce("sanitizer report");
    _exit(0);
  }
  if (child < 0) {
    dispatch::flight_recorder::dumpOnce("sanitizer report");  // no child to spare: dump here
    return;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  dispatch::flight_recorder::dumped.store(true);  // printed once: a later signal handler must not again
}
#endif

#else  // !DISPATCH_DIAGNOSTICS

bool enabled() noexcept { return false; }
void setEnabled(bool) {
  throw Error("the flight recorder is compiled out: configure with -DDISPATCH_DIAGNOSTICS=ON");
}
std::vector<Event> snapshot() { return {}; }
void clear() noexcept {}
void dump(int, const char*) noexcept {}

}  // namespace dispatch::flight_recorder

#endif  // DISPATCH_DIAGNOSTICS
