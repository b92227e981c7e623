#pragma once
// Predefined key sets (docs/semantics.md §2.7), alias resolution (2.8) and the backend -> autograd/autocast
// mappings (1.6, 2.8). All constexpr.

#include "dispatch/dispatch_key_set.h"

namespace dispatch {

using DK = DispatchKey;
using BC = BackendComponent;

inline constexpr DispatchKeySet all_backends_keyset{DispatchKeySet::RAW,
                                                    DispatchKeySet::full_backend_mask};
inline constexpr DispatchKeySet backend_bitset_mask = all_backends_keyset;

// No backend bits on purpose, so that it can be subtracted.
inline constexpr DispatchKeySet autograd_dispatch_keyset{
    DK::AutogradFunctionality, DK::AutogradOther, DK::AutogradNestedTensor};
inline constexpr DispatchKeySet autocast_dispatch_keyset{DK::AutocastCPU, DK::AutocastCUDA,
                                                         DK::AutocastXPU};
inline constexpr DispatchKeySet default_included_set{DK::BackendSelect, DK::ADInplaceOrView};
inline constexpr DispatchKeySet default_excluded_set{DK::AutocastCPU, DK::AutocastXPU,
                                                     DK::AutocastCUDA};
inline constexpr DispatchKeySet autograd_dispatch_keyset_with_ADInplaceOrView =
    autograd_dispatch_keyset | DispatchKeySet(DK::ADInplaceOrView);
inline constexpr DispatchKeySet python_ks{DK::Python, DK::PythonTLSSnapshot};
inline constexpr DispatchKeySet sparse_ks{DK::Sparse};
inline constexpr DispatchKeySet sparse_csr_ks{DK::SparseCsrCPU, DK::SparseCsrCUDA};
inline constexpr DispatchKeySet mkldnn_ks{DK::MkldnnCPU};

// Backends that share the AutogradOther slot: the plain backends plus Sparse and Quantized.
// HIP and VE are not here: they have backend bits of their own.
inline constexpr DispatchKeySet autogradother_backends =
    DispatchKeySet{DK::FPGA,          DK::ORT,           DK::Vulkan,         DK::Metal,
                   DK::SparseCsrCPU,  DK::SparseCsrCUDA, DK::CustomRNGKeyId, DK::MkldnnCPU,
                   DK::Sparse,        DK::Quantized} |
    all_backends_keyset;

inline constexpr DispatchKeySet after_autograd_keyset{DispatchKeySet::FULL_AFTER,
                                                      DK::AutogradOther};
inline constexpr DispatchKeySet after_ADInplaceOrView_keyset{DispatchKeySet::FULL_AFTER,
                                                             DK::ADInplaceOrView};
inline constexpr DispatchKeySet after_func_keyset =
    DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::Functionalize).remove(DK::ADInplaceOrView);
inline constexpr DispatchKeySet backend_functionality_keys =
    DispatchKeySet{DK::Dense, DK::Quantized, DK::Sparse} | all_backends_keyset;
inline constexpr DispatchKeySet functorch_transforms_ks{DK::FuncTorchBatched,
                                                        DK::FuncTorchVmapMode, DK::Batched,
                                                        DK::VmapMode, DK::FuncTorchGradWrapper};

// Sets behind the alias keys (docs/semantics.md §2.8).
inline constexpr DispatchKeySet backend_dispatch_keyset =
    autogradother_backends | DispatchKeySet(DK::Dense);
inline constexpr DispatchKeySet math_dispatch_keyset =
    backend_dispatch_keyset | autograd_dispatch_keyset | DispatchKeySet(DK::NestedTensor);
inline constexpr DispatchKeySet non_functional_backend_dispatch_keyset =
    backend_dispatch_keyset.remove(DK::Sparse).remove_backend(BC::XLABit).remove_backend(BC::LazyBit);
inline constexpr DispatchKeySet nested_dispatch_keyset =
    DispatchKeySet{DK::AutogradNestedTensor, DK::NestedTensor} | all_backends_keyset;

static_assert(autograd_dispatch_keyset.raw_repr() == 0x7000000000);
static_assert(default_included_set.raw_repr() == 0x804000000);
static_assert(default_excluded_set.raw_repr() == 0x70000000000);
static_assert(autogradother_backends.raw_repr() == 0x1FFBFFF);
static_assert(backend_functionality_keys.raw_repr() == 0x487FFF);
static_assert(autogradother_backends.size() == 36);

// The runtime keys an alias stands for; a non-alias key stands for itself. Undefined gives the
// empty set (c10 asserts).
constexpr DispatchKeySet getRuntimeDispatchKeySet(DispatchKey k) noexcept {
  switch (k) {
    case DK::Autograd:
      return autograd_dispatch_keyset | all_backends_keyset;
    case DK::CompositeImplicitAutograd:
      return math_dispatch_keyset;
    case DK::CompositeImplicitAutogradNestedTensor:
      return nested_dispatch_keyset;
    case DK::CompositeExplicitAutograd:
      return backend_dispatch_keyset;
    case DK::CompositeExplicitAutogradNonFunctional:
      return non_functional_backend_dispatch_keyset;
    default:
      return DispatchKeySet(k);
  }
}

// Whether runtime key k is covered by alias (or equals it, for a non-alias).
constexpr bool runtimeDispatchKeySetHas(DispatchKey alias, DispatchKey k) noexcept {
  switch (alias) {
    case DK::Autograd:
      return autograd_dispatch_keyset.has(toFunctionalityKey(k));
    case DK::CompositeImplicitAutograd:
      return math_dispatch_keyset.has(k);
    case DK::CompositeImplicitAutogradNestedTensor:
      return nested_dispatch_keyset.has(k);
    case DK::CompositeExplicitAutograd:
      return k != DK::NestedTensor && backend_dispatch_keyset.has(k);
    case DK::CompositeExplicitAutogradNonFunctional:
      return k != DK::NestedTensor && non_functional_backend_dispatch_keyset.has(k);
    default:
      return alias == k;
  }
}

// Undefined is never included in any alias.
constexpr bool isIncludedInAlias(DispatchKey k, DispatchKey alias) noexcept {
  return k != DK::Undefined && runtimeDispatchKeySetHas(alias, k);
}

static_assert(getRuntimeDispatchKeySet(DK::Autograd).size() == 16);
static_assert(getRuntimeDispatchKeySet(DK::CompositeImplicitAutograd).size() == 80);
static_assert(getRuntimeDispatchKeySet(DK::CompositeImplicitAutogradNestedTensor).size() == 15);
static_assert(getRuntimeDispatchKeySet(DK::CompositeExplicitAutograd).size() == 50);
static_assert(getRuntimeDispatchKeySet(DK::CompositeExplicitAutogradNonFunctional).size() == 32);

// {ADInplaceOrView, the autograd key of b}. HIP, VE and InvalidBit map to AutogradOther.
constexpr DispatchKeySet getAutogradRelatedKeySetFromBackend(BackendComponent b) noexcept {
  switch (b) {
    case BC::HIPBit:
    case BC::VEBit:
    case BC::InvalidBit:
      return DispatchKeySet{DK::ADInplaceOrView, DK::AutogradOther};
    default:
      if (!isValidBackendComponent(b)) return DispatchKeySet{DK::ADInplaceOrView, DK::AutogradOther};
      return DispatchKeySet{DK::ADInplaceOrView,
                            toRuntimePerBackendFunctionalityKey(DK::AutogradFunctionality, b)};
  }
}

// Defined as the highest-priority key of the related set: always an autograd key.
constexpr DispatchKey getAutogradKeyFromBackend(BackendComponent b) noexcept {
  return getAutogradRelatedKeySetFromBackend(b).highestPriorityTypeId();
}

static_assert(getAutogradKeyFromBackend(BC::CPUBit) == DK::AutogradCPU);
static_assert(getAutogradKeyFromBackend(BC::HIPBit) == DK::AutogradOther);
static_assert(getAutogradKeyFromBackend(BC::MetaBit) == DK::AutogradMeta);

constexpr DispatchKeySet getAutocastRelatedKeySetFromBackend(BackendComponent b) noexcept {
  switch (b) {
    case BC::CPUBit:
      return DispatchKeySet(DK::AutocastCPU);
    case BC::XPUBit:
      return DispatchKeySet(DK::AutocastXPU);
    case BC::CUDABit:
    case BC::XLABit:
      return DispatchKeySet(DK::AutocastCUDA);
    default:
      return DispatchKeySet();
  }
}

// The backend keys whose kernels make a CIA kernel step aside for autograd key k (docs/semantics.md §2.8).
constexpr DispatchKeySet getBackendKeySetFromAutograd(DispatchKey k) noexcept {
  if (k == DK::AutogradOther) return autogradother_backends;
  if (k == DK::AutogradNestedTensor) return nested_dispatch_keyset.remove(DK::AutogradNestedTensor);
  if (toFunctionalityKey(k) != DK::AutogradFunctionality) return DispatchKeySet();
  const BackendComponent b = toBackendComponent(k);
  if (b == BC::InvalidBit || b == BC::HIPBit || b == BC::VEBit) return DispatchKeySet();
  return DispatchKeySet(toRuntimePerBackendFunctionalityKey(DK::Dense, b));
}

// One of the 50 runtime keys a CompositeExplicitAutograd kernel covers (NestedTensor* excluded).
constexpr bool isBackendDispatchKey(DispatchKey k) noexcept {
  return k != DK::Undefined && !isAliasDispatchKey(k) && k != DK::NestedTensor &&
         isValidDispatchKey(k) && backend_dispatch_keyset.has(k);
}

// highestPriorityTypeId ignoring autograd and other wrapper keys.
constexpr DispatchKey highestPriorityBackendTypeId(DispatchKeySet ks) noexcept {
  return (ks & backend_functionality_keys).highestPriorityTypeId();
}

static_assert(highestPriorityBackendTypeId(DispatchKeySet{DK::AutogradCPU, DK::CPU}) == DK::CPU);
static_assert(highestPriorityBackendTypeId(DispatchKeySet{DK::CUDA, DK::QuantizedCUDA}) ==
              DK::QuantizedCUDA);

}  // namespace dispatch
