// The slow path of a call when a hook is on (diagnostics.h): the dispatch trace, call
// observers, and the recorder's call and registration events.

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dispatch/diagnostics.h"
#include "dispatch/errors.h"

#if DISPATCH_DIAGNOSTICS
#include <exception>
#include <mutex>
#endif

namespace dispatch {

std::string_view toString(CallKind kind) noexcept {
  switch (kind) {
    case CallKind::Call: return "call";
    case CallKind::Redispatch: return "redispatch";
    case CallKind::CallBoxed: return "call boxed";
    case CallKind::RedispatchBoxed: return "redispatch boxed";
    case CallKind::CallBoxedForKey: return "call boxed for key";
  }
  return "?";
}

#if DISPATCH_DIAGNOSTICS

namespace {

struct Observer {
  CallObserver on_enter;
  CallObserver on_exit;
  uint64_t id;
};
using ObserverList = std::vector<Observer>;

// Copy on write: a call takes the current list and keeps it alive for its on_exit.
std::mutex observers_mutex;
std::shared_ptr<const ObserverList> observers = std::make_shared<const ObserverList>();
uint64_t next_observer_id = 1;

std::shared_ptr<const ObserverList> currentObservers() {
  std::lock_guard<std::mutex> lock(observers_mutex);
  return observers;
}

std::atomic<std::FILE*> trace_out{nullptr};
thread_local int call_depth = 0;

void copyTruncated(char* out, size_t size, std::string_view text) noexcept {
  const size_t n = std::min(text.size(), size - 1);
  if (n != 0) std::memcpy(out, text.data(), n);  // an empty view may have a null data()
  out[n] = '\0';
}

bool envIs(const char* name, const char* value) {
  const char* set = std::getenv(name);
  return set != nullptr && std::strcmp(set, value) == 0;
}

void printTrace(const CallInfo& info) {
  std::FILE* out = trace_out.load(std::memory_order_relaxed);
  if (out == nullptr) out = stderr;
  const std::string keys = toString(info.keys);
  std::fprintf(out, "%*s[%.*s] op=[%.*s], key=[%.*s], slot=%d, kernel=[%.*s], keys=%s\n",
               2 * info.depth, "", static_cast<int>(toString(info.kind).size()),
               toString(info.kind).data(), static_cast<int>(info.op.size()), info.op.data(),
               static_cast<int>(toString(info.key).size()), toString(info.key).data(), info.slot,
               static_cast<int>(info.kernel.size()), info.kernel.data(), keys.c_str());
}

}  // namespace

namespace detail {

static_assert(static_cast<int>(flight_recorder::EventKind::CallBoxedForKey) ==
              static_cast<int>(CallKind::CallBoxedForKey));

uint32_t callHooks() noexcept {
  const uint32_t hooks = call_hooks.load(std::memory_order_acquire);
  if ((hooks & kHooksUninitialized) == 0) return hooks;
  static const uint32_t from_environment = [] {
    uint32_t bits = 0;
    if (envIs("DISPATCH_SHOW_DISPATCH_TRACE", "1")) bits |= kHookTrace;
    if (!envIs("DISPATCH_FLIGHT_RECORDER", "0")) bits |= kHookRecorder;
    return bits;
  }();
  // Setters may have run before the first call: keep their bits, drop "uninitialized".
  call_hooks.fetch_and(~kHooksUninitialized);
  call_hooks.fetch_or(from_environment);
  return call_hooks.load(std::memory_order_acquire);
}

ObservedCall::ObservedCall(std::string_view op, std::string_view flavour, CallKind kind,
                           DispatchKeySet keys) noexcept
    : info_{op, flavour, kind, keys, keys.highestPriorityTypeId(), -1, {}, call_depth},
      hooks_(callHooks()) {
  ++call_depth;
}

void ObservedCall::resolved(int slot, std::string_view kernel) {
  info_.slot = slot;
  info_.kernel = kernel;
  uncaught_ = std::uncaught_exceptions();
  if (hooks_ & kHookRecorder) {
    flight_recorder::Event event;
    event.kind = static_cast<flight_recorder::EventKind>(info_.kind);
    event.depth = static_cast<int16_t>(info_.depth);
    event.slot = static_cast<int16_t>(slot);
    event.key = info_.key;
    event.keys = info_.keys.raw_repr();
    copyTruncated(event.flavour, sizeof event.flavour, info_.flavour);
    copyTruncated(event.op, sizeof event.op, info_.op);
    copyTruncated(event.detail, sizeof event.detail, kernel);
    seq_ = recordEvent(event);
  }
  if (hooks_ & kHookTrace) printTrace(info_);
  if (hooks_ & kHookObservers) {
    auto list = currentObservers();
    for (const auto& observer : *list) {
      if (observer.on_enter) observer.on_enter(info_);
    }
    observers_ = std::move(list);
  }
}

ObservedCall::~ObservedCall() {
  --call_depth;
  if (observers_) {
    for (const auto& observer : *static_cast<const ObserverList*>(observers_.get())) {
      if (observer.on_exit) observer.on_exit(info_);
    }
  }
  if (seq_ != 0) {
    finishEvent(seq_, std::uncaught_exceptions() > uncaught_ ? flight_recorder::EventStatus::Failed
                                                             : flight_recorder::EventStatus::Done);
  }
}

RecordedRegistration::RecordedRegistration(flight_recorder::EventKind kind,
                                           std::string_view flavour, std::string_view op,
                                           DispatchKey key, int slot,
                                           std::string_view debug) noexcept {
  if ((callHooks() & kHookRecorder) == 0) return;
  flight_recorder::Event event;
  event.kind = kind;
  event.key = key;
  event.slot = static_cast<int16_t>(slot);
  copyTruncated(event.flavour, sizeof event.flavour, flavour);
  copyTruncated(event.op, sizeof event.op, op);
  copyTruncated(event.detail, sizeof event.detail, debug);
  seq_ = recordEvent(event);
}

RecordedRegistration::~RecordedRegistration() {
  if (seq_ != 0) {
    finishEvent(seq_, done_ ? flight_recorder::EventStatus::Done
                            : flight_recorder::EventStatus::Failed);
  }
}

}  // namespace detail

RegistrationHandle addCallObserver(CallObserver on_enter, CallObserver on_exit) {
  detail::callHooks();
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(observers_mutex);
    auto list = std::make_shared<ObserverList>(*observers);
    id = next_observer_id++;
    list->push_back({std::move(on_enter), std::move(on_exit), id});
    observers = std::move(list);
  }
  detail::call_hooks.fetch_or(detail::kHookObservers);
  return RegistrationHandle(
      [id] {
        std::lock_guard<std::mutex> lock(observers_mutex);
        auto list = std::make_shared<ObserverList>(*observers);
        std::erase_if(*list, [id](const Observer& o) { return o.id == id; });
        if (list->empty()) detail::call_hooks.fetch_and(~detail::kHookObservers);
        observers = std::move(list);
      },
      "call observer");
}

void setDispatchTrace(bool on, std::FILE* out) {
  detail::callHooks();
  trace_out.store(out, std::memory_order_relaxed);
  if (on) {
    detail::call_hooks.fetch_or(detail::kHookTrace);
  } else {
    detail::call_hooks.fetch_and(~detail::kHookTrace);
  }
}

bool dispatchTraceEnabled() noexcept { return (detail::callHooks() & detail::kHookTrace) != 0; }

#else  // !DISPATCH_DIAGNOSTICS

namespace {
[[noreturn]] void compiledOut(const char* what) {
  throw Error(detail::concat(what, " is compiled out: configure with -DDISPATCH_DIAGNOSTICS=ON"));
}
}  // namespace

RegistrationHandle addCallObserver(CallObserver, CallObserver) { compiledOut("addCallObserver"); }
void setDispatchTrace(bool, std::FILE*) { compiledOut("the dispatch trace"); }
bool dispatchTraceEnabled() noexcept { return false; }

namespace detail {
uint32_t callHooks() noexcept { return 0; }
ObservedCall::ObservedCall(std::string_view op, std::string_view flavour, CallKind kind,
                           DispatchKeySet keys) noexcept
    : info_{op, flavour, kind, keys, DispatchKey::Undefined, -1, {}, 0}, hooks_(0) {}
ObservedCall::~ObservedCall() = default;
void ObservedCall::resolved(int, std::string_view) {}
RecordedRegistration::RecordedRegistration(flight_recorder::EventKind, std::string_view,
                                           std::string_view, DispatchKey, int,
                                           std::string_view) noexcept {}
RecordedRegistration::~RecordedRegistration() = default;
uint64_t recordEvent(const flight_recorder::Event&) noexcept { return 0; }
void finishEvent(uint64_t, flight_recorder::EventStatus) noexcept {}
void installCrashHandlers() noexcept {}
}  // namespace detail

#endif  // DISPATCH_DIAGNOSTICS

}  // namespace dispatch
