#pragma once
// What our dispatcher's diagnostics report of the oracle's calls, checked against what each call
// did. The call observers and the flight recorder (dispatch/diagnostics.h) run on every call a
// fuzz target makes, yet nothing looked at what they report: mutants of call_hooks.cpp and
// flight_recorder.cpp went unseen by every target. Now, after each call that returned:
//  - the observers saw it entered and exited once per nested call, the outermost one under the
//    operator, flavour and kind of call the oracle made, each with the key and slot of the key
//    set it looked up, and the innermost one under the kernel that ran, with the key set that
//    kernel was given;
//  - the flight recorder's newest events are those calls, in the same words (cut to its fixed
//    fields), each marked done;
// after each def, impl or direct fallback that succeeded, the recorder's one new event is it;
// and after a trace has run on every flavour (runTraceOnAllFlavours), every recorded event
// (registrations too) is finished, and the crash dump prints this thread's events as format()
// does.
// With diagnostics compiled out (release builds) or the recorder off, those checks are skipped.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/diagnostics.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/registration_handle.h"
#include "oracle/actions/action.h"

namespace dispatch::oracle {

// The kind of call our dispatcher reports for a call action (CallTyped, CallBoxed, Redispatch,
// RedispatchBoxed, CallForKey); std::invalid_argument for any other action.
CallKind callKindOf(ActionKind kind);

class CallWitness {
 public:
  // slot_of: the flavour's table index of a key set (its layout's indexOf).
  using SlotOf = int (*)(DispatchKeySet);
  CallWitness(std::string flavour, SlotOf slot_of);
  ~CallWitness();
  CallWitness(const CallWitness&) = delete;
  CallWitness& operator=(const CallWitness&) = delete;

  // Watches the calls this thread makes until the Watch ends (observers are process-wide: a
  // witness records only the calls of its own watch).
  class Watch {
   public:
    explicit Watch(CallWitness& witness);
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

   private:
    CallWitness* previous_;
  };

  // After a call of `op` that returned `kernel`'s result given `keys`: what the reports got
  // wrong, or nullopt.
  std::optional<std::string> misreport(std::string_view op, CallKind kind, std::string_view kernel,
                                       uint64_t keys) const;
  // The seq of this thread's newest recorded event (0: none, or nothing records).
  static uint64_t newestEvent();
  // After a def, impl or direct fallback registered when the newest event was `before`: the
  // recorder's only new event is that registration (op and key as given; key Undefined for a
  // def), marked done. nullopt: so, or nothing records.
  static std::optional<std::string> registrationMisreported(uint64_t before, flight_recorder::EventKind kind,
                                                            std::string_view op, DispatchKey key);
  // With no call or registration running on this thread: every event of its recorder is
  // finished (done or threw), and the crash dump prints them as format() does. nullopt: so.
  static std::optional<std::string> restingRecorderDiffers();

 private:
  struct Seen {
    std::string op;
    std::string flavour;
    CallKind kind;
    uint64_t keys;
    DispatchKey key;
    int slot;
    std::string kernel;
    int depth;
  };
  std::optional<std::string> observersDiffer(std::string_view op, CallKind kind, std::string_view kernel,
                                             uint64_t keys) const;
  std::optional<std::string> recorderDiffers() const;

  std::string flavour_;
  SlotOf slot_of_;
  std::vector<Seen> entered_;
  size_t exited_ = 0;
  std::optional<RegistrationHandle> observer_;
};

}  // namespace dispatch::oracle
