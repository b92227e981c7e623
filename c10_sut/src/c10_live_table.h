#pragma once
// Where c10's live dispatch table differs from the table it computes. c10 shows its live table
// only by dispatching through it, so each slot is probed with a redispatch on that key alone;
// slots whose functionality has a start-up boxed fallback are not probed (libtorch's fallback
// would run on the probe's fake tensors).

#include <functional>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>

#include "dispatch/dispatch_key.h"

namespace dispatch::c10_sut {

// "(N): <Key> (live: kernel k0; computed: ambiguous), ..." for the N stale slots; "(0)" when
// every probed slot holds what dumpComputedTable says.
std::string staleSlots(const c10::OperatorHandle& op);
// The same with another probe: runs the slot of a key alone and returns the kernel's name, or
// throws c10::Error (for operators whose kernels are not of the fz signature).
std::string staleSlots(const c10::OperatorHandle& op, const std::function<std::string(DispatchKey)>& probe);

}  // namespace dispatch::c10_sut
