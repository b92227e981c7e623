#pragma once
// Where c10's live dispatch table differs from the table it computes. c10 shows its live table
// only by dispatching through it, so each slot is probed with a redispatch on that key alone;
// slots whose computed entry is one of libtorch's start-up boxed fallbacks are not probed (it
// would run on the probe's fake tensors).

#include <functional>
#include <map>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>


namespace dispatch::c10_sut {

// Runs the slot of one runtime key alone and returns the kernel's name, or throws c10::Error.
using LiveProbe = std::function<std::string(c10::DispatchKey)>;

// The computed table's entries by c10 key name: "kernel <debug>", "fallthrough", "ambiguous".
std::map<std::string, std::string> computedSlots(const c10::OperatorHandle& op);
// Whether a computed entry is one of libtorch's own start-up boxed (not fallthrough) fallbacks.
bool isStartupBoxedFallback(const std::string& computed);

// "(N): <Key> (live: kernel k0; computed: ambiguous), ..." for the N stale slots; "(0)" when
// every probed slot holds what dumpComputedTable says. Every runtime key of the release is
// probed, by c10's own key names.
std::string staleSlots(const c10::OperatorHandle& op);
// The same with another probe (for operators whose kernels are not of the fz signature).
std::string staleSlots(const c10::OperatorHandle& op, const LiveProbe& probe);

}  // namespace dispatch::c10_sut
