// A fix for c10's stale-table family, loadable into an installed libtorch with LD_PRELOAD.
//
// It redefines two members of c10::impl::OperatorEntry that libtorch exports and calls through
// its PLT (so a preloaded definition replaces them at every registration, drop and fallback
// change): updateDispatchTable_, which refreshes the slots a change of kernels_[key] can move,
// and updateDispatchTableFull_. Build: fuzz/c10/fixes/build.sh (which picks FIX_* below).
//
// Which slots can a change of kernels_[K] move? Slot k reads (computeDispatchTableEntryWithDebug,
// docs/semantics.md §4.4) kernels_[k]; the alias kernels whose runtime set holds k; and, in the
// CompositeImplicitAutograd step only (so only while such a kernel exists), has_backend_kernel =
// a kernel for some key of getBackendKeySetFromAutograd(k) or for CompositeExplicitAutograd, and
// for AutogradOther the same backend set for the ambiguity test. Upstream refreshes K's runtime
// keys (+ Undefined for the Composite aliases) and, for a backend key, the autograd key of its
// backend; the has_backend_kernel reads are what it misses:
//   FIX_BACKEND_AUTOGRAD_KEYS: K a runtime key -> every autograd key A whose backend set holds K
//     (AutogradOther for Sparse/Quantized/...; AutogradNestedTensor for NestedTensor<backend>,
//     which isBackendDispatchKey excludes). FIX_ONLY_AUTOGRAD_KEY limits it to one such A.
//   FIX_COMPOSITE_EXPLICIT: K = CompositeExplicitAutograd -> the CompositeImplicitAutograd keys
//     it does not cover (the autograd and nested keys), for registering and for dropping it.
// updateDispatchTableFull_ refreshes every slot once (below).
// FIX_WHOLE_ROW refreshes every slot instead: the obvious fix, kept as the cost's upper bound.
#include <ATen/core/dispatch/OperatorEntry.h>

#include <c10/core/DispatchKeySet.h>

namespace c10::impl {

namespace {

bool isComposite(DispatchKey k) {
  return k == DispatchKey::CompositeImplicitAutograd || k == DispatchKey::CompositeExplicitAutograd ||
         k == DispatchKey::CompositeExplicitAutogradNonFunctional;
}

}  // namespace

#ifndef FIX_KEEP_UPSTREAM_FULL
// Every slot once. Upstream goes through updateDispatchTable_ key by key, which would now add the
// dependants of each key to a pass that refreshes them anyway. (FIX_KEEP_UPSTREAM_FULL keeps
// libtorch's own, to measure what the new refreshes cost without this saving.)
void OperatorEntry::updateDispatchTableFull_(const c10::Dispatcher& dispatcher) {
  updateDispatchTableEntry_(dispatcher, DispatchKey::Undefined);
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) updateDispatchTableEntry_(dispatcher, k);
}
#endif

void OperatorEntry::updateDispatchTable_(const c10::Dispatcher& dispatcher, DispatchKey key) {
#ifdef FIX_WHOLE_ROW
  (void)key;
  updateDispatchTableFull_(dispatcher);
#else
  // Upstream's part: the key itself, Undefined for the Composite aliases, a backend's autograd key.
  if (key == DispatchKey::Undefined) {
    updateDispatchTableEntry_(dispatcher, key);
    return;
  }
  for (DispatchKey k : getRuntimeDispatchKeySet(key)) updateDispatchTableEntry_(dispatcher, k);
  if (isComposite(key)) updateDispatchTableEntry_(dispatcher, DispatchKey::Undefined);
  std::optional<DispatchKey> backend_autograd;
  if (isBackendDispatchKey(key)) {
    backend_autograd = getAutogradKeyFromBackend(toBackendComponent(key));
    updateDispatchTableEntry_(dispatcher, *backend_autograd);
  }

  // The has_backend_kernel readers. Without a CompositeImplicitAutograd kernel nothing reads it.
  if (getKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd) == nullptr) return;
#ifdef FIX_BACKEND_AUTOGRAD_KEYS
  if (!isAliasDispatchKey(key)) {
    for (DispatchKey a : getRuntimeDispatchKeySet(DispatchKey::Autograd)) {
#ifdef FIX_ONLY_AUTOGRAD_KEY
      if (a != DispatchKey::FIX_ONLY_AUTOGRAD_KEY) continue;
#endif
      if (a != backend_autograd && getBackendKeySetFromAutograd(a).has(key)) updateDispatchTableEntry_(dispatcher, a);
    }
  }
#endif
#ifdef FIX_COMPOSITE_EXPLICIT
  if (key == DispatchKey::CompositeExplicitAutograd) {
    const DispatchKeySet uncovered = getRuntimeDispatchKeySet(DispatchKey::CompositeImplicitAutograd) -
                                     getRuntimeDispatchKeySet(DispatchKey::CompositeExplicitAutograd);
    for (DispatchKey k : uncovered) updateDispatchTableEntry_(dispatcher, k);
  }
#endif
#endif
}

}  // namespace c10::impl
