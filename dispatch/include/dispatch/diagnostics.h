#pragma once
// What the dispatcher was doing: the flight recorder, the dispatch trace and call observers.
//
// All three are compiled in when DISPATCH_DIAGNOSTICS is 1 (CMake option DISPATCH_DIAGNOSTICS:
// AUTO = on in sanitizer, fuzz, hardened and coverage builds, off in release; ON/OFF force it).
// Compiled in but idle, a call pays one test of a global word (detail::call_hooks); compiled out
// it pays nothing, and addCallObserver / setDispatchTrace throw Error saying so.
//
// Flight recorder: a per-thread ring of the last kFlightRecorderCapacity dispatcher events --
// calls and redispatches (operator, final key set, chosen key, slot, the debug string of the
// kernel = where it was registered, depth) and (de)registrations (key, slot, debug string,
// outcome). On by default when compiled in (environment DISPATCH_FLIGHT_RECORDER=0 turns it off).
// It is printed to stderr when the process dies of a sanitizer report, std::terminate (e.g. an
// uncaught InternalError), SIGABRT (hardened standard-library assertions call abort()), SIGSEGV,
// SIGBUS, SIGFPE or SIGILL, as one block a script can cut out:
//   ==== dispatch flight recorder: begin (<reason>) ====
//   <one line per event, oldest first, this thread first, then other threads>
//   ==== dispatch flight recorder: end ====
// The handlers are installed at the first recorded event (after libFuzzer's, which it would
// otherwise skip) and chain to the ones they replace. Sanitizer reports: the death callback
// (__sanitizer_set_death_callback); in fuzz builds, where libFuzzer owns that callback and
// writes the crash input from it, the report-summary hook (__sanitizer_report_error_summary).
//
// Dispatch trace: DISPATCH_SHOW_DISPATCH_TRACE=1 (read once, at the first call) prints every call
// and redispatch to stderr as it happens, indented by depth (PyTorch's TORCH_SHOW_DISPATCH_TRACE).
//
// Observers: callbacks run on operator entry (after the kernel is chosen) and exit, as profilers
// use PyTorch's RecordFunction; addCallObserver returns the handle that removes them.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch_key_set.h"
#include "dispatch/registration_handle.h"

#ifndef DISPATCH_DIAGNOSTICS
#define DISPATCH_DIAGNOSTICS 0
#endif

#if DISPATCH_DIAGNOSTICS
#include <atomic>
#endif

namespace dispatch {

inline constexpr bool kDiagnosticsCompiledIn = DISPATCH_DIAGNOSTICS != 0;
inline constexpr int kFlightRecorderCapacity = 64;

enum class CallKind : uint8_t { Call, Redispatch, CallBoxed, RedispatchBoxed, CallBoxedForKey };
std::string_view toString(CallKind kind) noexcept;

// What an observer sees; the views live as long as the call.
struct CallInfo {
  std::string_view op;       // "ns::name.overload"
  std::string_view flavour;  // the layout's name
  CallKind kind;
  DispatchKeySet keys;       // the final key set that was looked up
  DispatchKey key;           // its highest priority key: whose slot was used
  int slot;                  // the table index, -1 for a key without a slot
  std::string_view kernel;   // the kernel's debug string (where it was registered)
  int depth;                 // calls on this thread enclosing this one (0: outermost)
};
using CallObserver = std::function<void(const CallInfo&)>;

// on_enter runs before the kernel, on_exit after it (also when it throws; on_exit must not
// throw). Observers are process-wide. Throws Error when diagnostics are compiled out.
RegistrationHandle addCallObserver(CallObserver on_enter, CallObserver on_exit = {});

// Turns the dispatch trace on or off at run time, writing to out. Throws Error when compiled out.
void setDispatchTrace(bool on, std::FILE* out = stderr);
bool dispatchTraceEnabled() noexcept;

namespace flight_recorder {

enum class EventKind : uint8_t {
  Call, Redispatch, CallBoxed, RedispatchBoxed, CallBoxedForKey,
  RegisterDef, DeregisterDef, RegisterImpl, DeregisterImpl, RegisterFallback, DeregisterFallback,
};
// Started: still running when printed (a crash inside it); Failed: it threw.
enum class EventStatus : uint8_t { Started, Done, Failed };
std::string_view toString(EventKind kind) noexcept;
std::string_view toString(EventStatus status) noexcept;

// Fixed size, so recording never allocates and a crash handler can print it. Strings are
// truncated to fit and always NUL-terminated.
struct Event {
  uint64_t seq = 0;  // process-wide order of events
  EventKind kind = EventKind::Call;
  EventStatus status = EventStatus::Started;
  int16_t depth = 0;
  int16_t slot = -1;
  DispatchKey key = DispatchKey::Undefined;
  uint64_t keys = 0;      // raw key set (calls)
  char flavour[8] = {};
  char op[64] = {};       // operator name (calls, defs and impls)
  char detail[96] = {};   // kernel debug string (calls) or registration debug string
};

// False when compiled out or turned off.
bool enabled() noexcept;
// Throws Error when compiled out.
void setEnabled(bool on);
// This thread's events, oldest first.
std::vector<Event> snapshot();
void clear() noexcept;
// One line, as the crash output prints it.
std::string format(const Event& event);
// Writes the block (markers included) to fd; async-signal-safe. Does nothing when compiled out.
void dump(int fd, const char* reason) noexcept;

}  // namespace flight_recorder

namespace detail {

enum : uint32_t {
  kHookTrace = 1u,
  kHookRecorder = 2u,
  kHookObservers = 4u,
  kHooksUninitialized = 8u,  // the first call reads the environment
};

#if DISPATCH_DIAGNOSTICS
// Non-zero when any hook is on: the one word the idle call path tests.
inline std::atomic<uint32_t> call_hooks{kHooksUninitialized};
inline bool callHooksActive() noexcept {
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
  // One compare with a memory operand and the branch: gcc never folds an atomic load into
  // `cmp`, and the load + test it emits instead is a third instruction on every call. An
  // aligned 32-bit read is atomic on x86-64 (relaxed order is all the hook needs).
  bool active;
  asm("cmpl $0, %1" : "=@ccne"(active) : "m"(call_hooks));
  return active;
#else
  return call_hooks.load(std::memory_order_relaxed) != 0;
#endif
}
#else
constexpr bool callHooksActive() noexcept { return false; }
#endif

// One call on the slow path: resolved() records, traces and runs on_enter; the destructor runs
// on_exit and marks the recorded event done or failed.
class ObservedCall {
 public:
  ObservedCall(std::string_view op, std::string_view flavour, CallKind kind,
               DispatchKeySet keys) noexcept;
  ~ObservedCall();
  ObservedCall(const ObservedCall&) = delete;
  ObservedCall& operator=(const ObservedCall&) = delete;
  void resolved(int slot, std::string_view kernel);

 private:
  CallInfo info_;
  uint32_t hooks_;
  uint64_t seq_ = 0;
  int uncaught_ = 0;
  std::shared_ptr<const void> observers_;
};

// One (de)registration in the recorder: Started until done() (Failed if destroyed without it).
class RecordedRegistration {
 public:
  RecordedRegistration(flight_recorder::EventKind kind, std::string_view flavour,
                       std::string_view op, DispatchKey key, int slot,
                       std::string_view debug) noexcept;
  ~RecordedRegistration();
  RecordedRegistration(const RecordedRegistration&) = delete;
  RecordedRegistration& operator=(const RecordedRegistration&) = delete;
  void done() noexcept { done_ = true; }

 private:
  uint64_t seq_ = 0;
  bool done_ = false;
};

// --- between call_hooks.cpp and flight_recorder.cpp ---
uint32_t callHooks() noexcept;  // reads the environment once
uint64_t recordEvent(const flight_recorder::Event& event) noexcept;  // returns its seq
void finishEvent(uint64_t seq, flight_recorder::EventStatus status) noexcept;
void installCrashHandlers() noexcept;

}  // namespace detail
}  // namespace dispatch
