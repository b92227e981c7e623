#pragma once
// The backend fallbacks PyTorch 1.13 registers at start-up (docs/semantics.md §5.3), for applications that
// want the same environment, and for the harness: registering this set on the mobile flavour is
// exactly what overflowed the trimmed fallback table (docs/semantics.md §6.3).

#include <vector>

#include "dispatch/library.h"

namespace dispatch {

// Fallthrough fallbacks: calls skip these keys unless an operator has its own kernel.
inline constexpr DispatchKey startup_fallthrough_keys[] = {
    DispatchKey::AutogradOther, DispatchKey::AutogradCPU,       DispatchKey::AutogradXPU,
    DispatchKey::AutogradCUDA,  DispatchKey::AutogradXLA,       DispatchKey::AutogradLazy,
    DispatchKey::AutogradMPS,   DispatchKey::AutogradHPU,       DispatchKey::ADInplaceOrView,
    DispatchKey::BackendSelect, DispatchKey::VmapMode,          DispatchKey::FuncTorchVmapMode,
    DispatchKey::Autocast,      DispatchKey::AutocastCPU,
};

// Real boxed fallbacks. Ours stand in for PyTorch's: Named rejects the call, the others pass it
// on to the next key (they would transform arguments first in PyTorch).
inline constexpr DispatchKey startup_boxed_fallback_keys[] = {
    DispatchKey::Named,           DispatchKey::Conjugate,
    DispatchKey::Negative,        DispatchKey::ZeroTensor,
    DispatchKey::Functionalize,   DispatchKey::Batched,
    DispatchKey::FuncTorchBatched, DispatchKey::FuncTorchDynamicLayerFrontMode,
    DispatchKey::FuncTorchDynamicLayerBackMode, DispatchKey::FuncTorchGradWrapper,
    DispatchKey::Python,          DispatchKey::PythonDispatcher,
    DispatchKey::PythonTLSSnapshot, DispatchKey::Tracer,
};

namespace detail {
template <class L>
void passThroughFallback(const BasicOperatorHandle<L>& op, DispatchKeySet ks, Stack* stack) {
  const DispatchKey key = ks.highestPriorityTypeId();
  op.redispatchBoxed((ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, key)).remove(key), stack);
}

template <class L>
void namedNotSupportedFallback(const BasicOperatorHandle<L>& op, DispatchKeySet, Stack*) {
  throw NotImplementedError(
      detail::concat(op.operatorNameString(), " is not yet supported with named tensors (dispatch key 'Named')"));
}
}  // namespace detail

// One IMPL block per key, as PyTorch's start-up code has. Keys the flavour has no slot for are
// skipped by Library::fallback. Keep the libraries alive as long as the fallbacks should be.
template <class L>
std::vector<BasicLibrary<L>> registerStartupFallbacks(BasicDispatcher<L>& dispatcher) {
  std::vector<BasicLibrary<L>> libraries;
  auto block = [&](DispatchKey key) -> BasicLibrary<L>& {
    return libraries.emplace_back(BasicLibrary<L>::Kind::IMPL, "_", key, dispatcher);
  };
  for (DispatchKey key : startup_fallthrough_keys) {
    block(key).fallback(BasicCppFunction<L>::makeFallthrough().withDebug(
        detail::concat("startup fallthrough for ", key)));
  }
  for (DispatchKey key : startup_boxed_fallback_keys) {
    auto fallback =
        key == DispatchKey::Named
            ? BasicCppFunction<L>::template makeFromBoxedFunction<&detail::namedNotSupportedFallback<L>>()
            : BasicCppFunction<L>::template makeFromBoxedFunction<&detail::passThroughFallback<L>>();
    block(key).fallback(std::move(fallback).withDebug(detail::concat("startup fallback for ", key)));
  }
  return libraries;
}

}  // namespace dispatch
