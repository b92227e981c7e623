#pragma once
// The pieces of the c10 system under test that speak libtorch: key conversion, tensors with a
// chosen key set, the kernels every registration installs, error classification and the
// translation of libtorch's start-up fallback names into the model's.

#include <map>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "oracle/system_under_test.h"

namespace dispatch::c10_sut {

// Our DispatchKey numbering is c10 1.13.1's (checked once per process by checkKeyNumbering).
c10::DispatchKey toC10(DispatchKey key);
c10::DispatchKeySet rawKeySet(uint64_t raw);
// Throws std::logic_error naming the first runtime or alias key whose c10 name differs.
void checkKeyNumbering();

// A defined tensor whose key_set() is exactly `raw` (TensorImpl's constructor would add the
// autograd and autocast keys of its backend; the subclass overwrites them).
at::Tensor tensorWithKeys(uint64_t raw);

// Kernels return oracle::kernelResult(name, key set they got); boxed ones pop the three
// arguments first. Debug name: `name`.
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
// dumpComputedTable text with start-up fallback names in the model's words.
std::string inModelWords(const std::string& table);

// Silences c10's warnings (kernel overrides) and its backtraces (every c10::Error would walk
// the stack: a call that finds no kernel is an ordinary outcome here).
void quietC10();

// A probe operator of its own namespace, defined and dropped again: its computed table.
std::string probeTable();

}  // namespace dispatch::c10_sut
