#pragma once
// Tensor: the tensor-like argument of dispatched calls. It carries nothing but a key set (what
// dispatch reads, docs/semantics.md §5.5) and an id (so tests can tell which tensor a kernel received).
// tensorKeySet builds the key set a real 1.13 TensorImpl would have.

#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <type_traits>

#include "dispatch/errors.h"
#include "dispatch/key_sets.h"

namespace dispatch {

class Tensor final {
 public:
  // Undefined tensor: the empty key set contributes nothing to dispatch (docs/semantics.md §2.2 "empty()").
  constexpr Tensor() noexcept = default;
  constexpr explicit Tensor(DispatchKeySet ks, int64_t id = 0) noexcept : key_set_(ks), id_(id) {}

  constexpr DispatchKeySet key_set() const noexcept { return key_set_; }
  constexpr bool defined() const noexcept { return !key_set_.empty(); }
  constexpr int64_t id() const noexcept { return id_; }

  constexpr bool operator==(const Tensor&) const noexcept = default;

 private:
  DispatchKeySet key_set_;
  int64_t id_ = 0;
};

// Passed by value on the hot path and copied into stacks: keep it two words and memcpy-able.
static_assert(sizeof(Tensor) == 16);
static_assert(std::is_trivially_copyable_v<Tensor>);

// "Tensor(id=3, DispatchKeySet(CPU, ...))", or "Tensor(undefined, id=3)".
std::ostream& operator<<(std::ostream& out, const Tensor& t);

// The per-backend functionality a tensor's storage has (its "layout" in PyTorch terms).
enum class TensorKind : uint8_t { Dense, Quantized, Sparse, Nested };

constexpr DispatchKey functionalityOf(TensorKind kind) noexcept {
  switch (kind) {
    case TensorKind::Dense: return DK::Dense;
    case TensorKind::Quantized: return DK::Quantized;
    case TensorKind::Sparse: return DK::Sparse;
    case TensorKind::Nested: return DK::NestedTensor;
  }
  return DK::Undefined;
}

std::string_view toString(TensorKind kind) noexcept;

// The key set of a freshly made tensor, following the TensorImpl constructor of docs/semantics.md §5.5:
//   keys = {kind's functionality x backend}
//   keys |= getAutocastRelatedKeySetFromBackend(backend)
//   keys -= python_ks
//   inference mode: keys -= autograd keys and ADInplaceOrView
//   otherwise:      keys |= getAutogradRelatedKeySetFromBackend(backend)
//
// requires_grad does not change the keys: in 1.13 every non-inference tensor carries its
// autograd keys and the autograd kernel itself decides whether to record anything. The parameter
// exists so call sites read like PyTorch's and so a later version can start using it.
//
// Nested tensors get {ADInplaceOrView, AutogradNestedTensor} instead of the backend's autograd
// key. That is the autograd key NestedTensorImpl adds; we deliberately leave out the
// Autograd<backend> key the generic constructor would add as well, because AutogradNestedTensor
// outranks it, so dispatch is the same, and with it a nested CPU tensor would also "have"
// AutogradCPU, which tests would then have to special-case.
//
// Throws InvalidKeyError for InvalidBit or a value outside BackendComponent.
constexpr DispatchKeySet tensorKeySet(TensorKind kind, BackendComponent backend,
                                      [[maybe_unused]] bool requires_grad = false,
                                      bool inference_mode = false) {
  if (backend == BC::InvalidBit || !isValidBackendComponent(backend)) {
    throw InvalidKeyError(detail::concat("tensorKeySet: not a backend: ",
                                         static_cast<int>(toUnderlying(backend))));
  }
  DispatchKeySet ks(toRuntimePerBackendFunctionalityKey(functionalityOf(kind), backend));
  const BackendComponent b = ks.highestBackendKey();  // == backend; docs/semantics.md §5.5 step 1
  ks = ks | getAutocastRelatedKeySetFromBackend(b);
  ks = ks - python_ks;
  if (inference_mode) return ks - autograd_dispatch_keyset_with_ADInplaceOrView;
  if (kind == TensorKind::Nested) return ks | DispatchKeySet{DK::ADInplaceOrView, DK::AutogradNestedTensor};
  return ks | getAutogradRelatedKeySetFromBackend(b);
}

// The verified rows of docs/semantics.md §5.5, pinned at compile time.
static_assert(tensorKeySet(TensorKind::Dense, BC::CPUBit) ==
              DispatchKeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU});
static_assert(tensorKeySet(TensorKind::Sparse, BC::CPUBit) ==
              DispatchKeySet{DK::SparseCPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU});
static_assert(tensorKeySet(TensorKind::Quantized, BC::CPUBit) ==
              DispatchKeySet{DK::QuantizedCPU, DK::ADInplaceOrView, DK::AutogradCPU,
                             DK::AutocastCPU});
static_assert(tensorKeySet(TensorKind::Dense, BC::MetaBit) ==
              DispatchKeySet{DK::Meta, DK::ADInplaceOrView, DK::AutogradMeta});

constexpr Tensor makeTensor(TensorKind kind, BackendComponent backend, bool requires_grad = false,
                            bool inference_mode = false, int64_t id = 0) {
  return Tensor(tensorKeySet(kind, backend, requires_grad, inference_mode), id);
}

}  // namespace dispatch
