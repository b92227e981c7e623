#pragma once
// Where c10's live dispatch table differs from the table it computes. c10 shows a live slot's
// kernel only by dispatching through it, so each valid slot is probed with a redispatch on that
// key alone; an invalid one (hasComputedKernelForDispatchKey, c10's own reading of the slot) is
// "missing" without a call, which would only throw NotImplemented after c10 checked every
// invariant and printed the table for the message (85% of a fuzz input's time when probed);
// where c10 lets a handle read a slot (2.x), a fallthrough is read, not called (an assert).
// Slots whose computed entry is one of libtorch's start-up boxed fallbacks are not probed.

#include <functional>
#include <map>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>

#include "c10_sut/c10_system.h"


namespace dispatch::c10_sut {

// Runs the slot of one runtime key alone and returns the kernel's name, or throws c10::Error.
using LiveProbe = std::function<std::string(c10::DispatchKey)>;

// One operator's computed table as dumpComputedTable prints it, the same in the model's words
// (inModelWords), and its entries by c10 key name: "kernel <debug>", "fallthrough", "ambiguous".
struct ComputedTable {
  std::string text;
  std::string model_words;
  std::map<std::string, std::string> slots;
};
ComputedTable computedTable(const c10::OperatorHandle& op);
// Whether a computed entry is one of libtorch's own start-up boxed (not fallthrough) fallbacks.
bool isStartupBoxedFallback(const std::string& computed);

// "(N): <Key> (live: kernel k0; computed: ambiguous), ..." for the N stale slots; "(0)" when
// every probed slot holds what dumpComputedTable says. Every runtime key of the release is
// probed, by c10's own key names.
// `computed` is op's computed table (computedTable(op)).
std::string staleSlots(const c10::OperatorHandle& op, const ComputedTable& computed,
                       SlotReading reading = SlotReading::Cheap);
// The same with another probe (for operators whose kernels are not of the fz signature).
std::string staleSlots(const c10::OperatorHandle& op, const ComputedTable& computed, const LiveProbe& probe,
                       SlotReading reading = SlotReading::Cheap);

}  // namespace dispatch::c10_sut
