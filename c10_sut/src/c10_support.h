#pragma once
// The pieces of the c10 system under test that speak libtorch: key conversion, tensors with a
// chosen key set, the kernels every registration installs, error classification and the
// translation of libtorch's start-up fallback names into the model's.

#include <map>
#include <set>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "c10_keys.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::c10_sut {

// A defined tensor whose key_set() is exactly `keys` (TensorImpl's constructor would add the
// autograd and autocast keys of its backend; the subclass overwrites them). The raw form is our
// key set, translated by name (c10_keys.h; throws UnmappedKey for a bit c10 lacks).
at::Tensor tensorWithKeys(c10::DispatchKeySet keys);
at::Tensor tensorWithKeys(uint64_t raw);

// Kernels return c10KernelResult(name, key set they got); boxed ones pop the three arguments
// first. Debug name: `name`.
torch::CppFunction makeCppFunction(oracle::KernelKind kind, const std::string& name);
c10::KernelFunction makeKernelFunction(oracle::KernelKind kind, const std::string& name);

// The message without c10's backtrace.
std::string messageOf(const c10::Error& e);
// A call's error: NotImplemented (no kernel; or c10's internal assert for a fallthrough kernel
// reached by redispatch), AmbiguousAutogradOther, a declared kernel's stack misfit, anything
// else unclassified.
oracle::SutOutcome callError(const c10::Error& e);
// A registration's error: c10's checks (TORCH_CHECK) are Registration errors, except its schema
// and C++ signature checks (schema_refused); an internal assert is unclassified (a c10 bug).
oracle::SutOutcome registrationError(const c10::Error& e);

// c10 prints its start-up fallbacks as "registered at <file>:<line>"; the model calls them
// "startup fallthrough for <Key>" / "startup fallback for <Key>". Read once from the table of a
// probe operator that has no kernels.
const std::map<std::string, std::string>& startupFallbackNames();
// The runtime keys (c10's names) that have a start-up fallback, boxed or fallthrough, as the
// probe table shows them: 1.13 and 2.x differ (2.x gives every Autograd key one), and one
// registration over an alias key gives several keys the same debug name.
const std::set<std::string>& startupFallbackKeys();
// dumpComputedTable text with start-up fallback names in the model's words.
std::string inModelWords(const std::string& table);

// Silences c10's warnings (kernel overrides) and its backtraces (every c10::Error would walk
// the stack: a call that finds no kernel is an ordinary outcome here).
void quietC10();

// A probe operator of its own namespace, defined and dropped again: its computed table.
std::string probeTable();

}  // namespace dispatch::c10_sut
