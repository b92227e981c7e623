#pragma once
// Private to oracle/actions: the byte layout of dispatcher actions' fields (after the kind byte), read
// with FuzzedDataProvider and written with FdpWriter. action_codec.cpp dispatches to it.
//
// Dense on purpose: a fuzzer reaches deep states only if a useful action costs few bytes. One
// argument byte carries the operator (3 bits, fz::op0 five times in eight, so that registrations
// meet each other) and a 5-bit selector into short lists of the keys and tensors that decide tables
// (docs/semantics.md §4.4: backends, their autograd keys, AutogradOther and the backends mapped
// to it, the aliases, a few keys with start-up fallbacks, two invalid keys). The last selector
// values escape to the wide form (any declared key or garbage, any key set), so every action the
// old layout expressed still has bytes. A registration is 2 bytes, a drop 2, a call 2. A NamedKey
// action (picked only by weights that give it a weight) is the argument byte and a key byte; so is
// a LibraryBlock action of an IMPL block (the selector picks the block's form), other blocks none.

#include <fuzzer/FuzzedDataProvider.h>

#include "oracle/actions/action.h"
#include "oracle/actions/fdp_writer.h"

namespace dispatch::oracle {

// The fields of a dispatcher action of kind a.kind (already set): op, key, handle, keys, other.
void consumeDispatcherFields(FuzzedDataProvider& in, Action& a);
// Throws std::invalid_argument for a fallback without a key, a handle above 255, an operator
// outside 0 .. kNumOps - 1, a NamedKey action whose key is not in kReleaseKeyNames or that
// makes no impl or fallback, or a LibraryBlock action no form byte makes (no block,
// libraryBlockProblem, a form not in the list, a key on a block other than IMPL).
void writeDispatcherFields(FdpWriter& out, const Action& a);

}  // namespace dispatch::oracle
