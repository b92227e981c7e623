#pragma once
// RapidCheck generators for dispatch keys and key sets, biased towards the cases where the
// dispatcher has bugs historically: per-backend runtime keys (CPU ... AutogradPrivateUse3),
// alias keys, mixed-backend tensors, keys the mobile flavour has no slot for, building blocks
// (Dense, the StartOf*Backends placeholders, the EndOfFunctionalityKeys sentinel, Undefined),
// values outside the enum, and raw 64-bit patterns (bits past the last functionality).
//
// Every choice is uniform from the first case (not scaled by RapidCheck's size) and shrinks
// towards the front of its list, whose first entries are the plainest keys (CPU, AutogradCPU),
// so that a shrunk counterexample reads like a dispatcher call somebody would write.
//
// The key classes come from the reference model's classification (oracle/model/model.h), never from
// the library under test.

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "oracle/model/model.h"

namespace dispatch::props {

// --- key classes --------------------------------------------------------------------------------

// The keys some trimmed flavour keeps (cmake/flavours.list: mobile's 8, Vulkan, Metal, ...
// and those of drawn flavours), CPU first (Undefined last: it is the odd one).
const std::vector<DispatchKey>& trimmedKeptKeys();
// The 70 per-backend instances, CPU / CUDA / AutogradCPU / AutogradCUDA ... first.
const std::vector<DispatchKey>& perBackendInstanceKeys();
// Runtime keys without a slot in some trimmed flavour: CUDA, AutogradCUDA, Named, Python, ...
const std::vector<DispatchKey>& keysAbsentFromATrimmedFlavour();
// The 35 plain functionality keys (FPGA, ..., PythonDispatcher), the ones with start-up
// fallbacks first.
const std::vector<DispatchKey>& plainFunctionalityKeys();
// Every runtime key (105), ascending priority.
const std::vector<DispatchKey>& allRuntimeKeys();
// The 5 alias keys.
const std::vector<DispatchKey>& aliasKeys();
// Keys that are neither runtime nor alias keys: Undefined, Dense, Quantized, Sparse,
// NestedTensor, AutogradFunctionality, the StartOf*Backends placeholders, the sentinel.
const std::vector<DispatchKey>& buildingBlockKeys();

// --- keys -------------------------------------------------------------------------------------

// A runtime key: kept on mobile, per-backend instances, absent on mobile, plain functionalities.
rc::Gen<DispatchKey> genRuntimeKey();
// Any DispatchKey value: runtime keys, aliases, building blocks, and rarely a value outside the
// enum (122 .. 65535).
rc::Gen<DispatchKey> genAnyKey();
// A key to register a kernel or a fallback for: like genAnyKey, aliases and keys absent on
// mobile more often.
rc::Gen<DispatchKey> genRegistrationKey();
// CPUBit .. PrivateUse3Bit, CPU and CUDA first.
rc::Gen<BackendComponent> genBackend();

// --- key sets ---------------------------------------------------------------------------------

// A raw 64-bit key set; shows as key names and its raw value ("DispatchKeySet(CPU, ...) [0x...]").
struct RawKeySet {
  uint64_t raw = 0;
  bool operator==(const RawKeySet&) const = default;
};
void showValue(const RawKeySet& ks, std::ostream& os);  // oracle::keySetName

// The key set of a tensor as a 1.13 TensorImpl builds it: kind (dense, quantized, sparse, nested)
// x backend, autocast and autograd keys, sometimes in inference mode.
rc::Gen<uint64_t> genTensorKeys();
// An argument / TLS / redispatch key set: the OR of 0..4 pieces, each a tensor, a single key (of
// any kind), a backend bit, a raw bit or a raw 64-bit pattern. Mixed backends arise from two
// tensors of different backends.
rc::Gen<RawKeySet> genKeySet();
// Call arguments: mostly one or two realistic tensors, sometimes arbitrary sets.
rc::Gen<RawKeySet> genCallKeySet();
// TLS include / exclude sets: mostly a single key or a tensor's keys.
rc::Gen<RawKeySet> genGuardKeySet();

// A uniform choice from `values` that shrinks towards values[0] (gen::element does not shrink).
template <class T>
rc::Gen<T> elementShrinkingToFront(std::vector<T> values) {
  const auto n = static_cast<int>(values.size());
  return rc::gen::map(rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, n)),
                      [values = std::move(values)](int i) { return values[static_cast<size_t>(i)]; });
}

}  // namespace dispatch::props

namespace rc {
template <>
struct Arbitrary<dispatch::DispatchKey> {
  static Gen<dispatch::DispatchKey> arbitrary() { return dispatch::props::genAnyKey(); }
};
template <>
struct Arbitrary<dispatch::BackendComponent> {
  static Gen<dispatch::BackendComponent> arbitrary() { return dispatch::props::genBackend(); }
};
template <>
struct Arbitrary<dispatch::props::RawKeySet> {
  static Gen<dispatch::props::RawKeySet> arbitrary() { return dispatch::props::genKeySet(); }
};
}  // namespace rc

namespace dispatch {
// So RapidCheck prints keys by name, values outside the enum included.
void showValue(DispatchKey k, std::ostream& os);
void showValue(BackendComponent b, std::ostream& os);
}  // namespace dispatch
