// Reference model: the start-up fallbacks PyTorch 1.13 installs (docs/semantics.md §5.3), as
// library fallbacks on a ModelDispatcher.

#include "oracle/model/model_dispatcher.h"

namespace dispatch::model {

using DK = DispatchKey;

std::vector<RegistrationId> registerStartupFallbacks(ModelDispatcher& d) {
  const std::vector<DK> fallthrough_keys = {
      DK::AutogradOther, DK::AutogradCPU,     DK::AutogradXPU,  DK::AutogradCUDA,
      DK::AutogradXLA,   DK::AutogradLazy,    DK::AutogradMPS,  DK::AutogradHPU,
      DK::ADInplaceOrView, DK::BackendSelect, DK::VmapMode,     DK::FuncTorchVmapMode,
      DK::AutocastCUDA,  DK::AutocastCPU};
  const std::vector<DK> boxed_keys = {
      DK::Named,          DK::Conjugate,        DK::Negative,
      DK::ZeroTensor,     DK::Functionalize,    DK::Batched,
      DK::FuncTorchBatched, DK::FuncTorchDynamicLayerFrontMode,
      DK::FuncTorchDynamicLayerBackMode, DK::FuncTorchGradWrapper,
      DK::Python,         DK::PythonDispatcher, DK::PythonTLSSnapshot,
      DK::Tracer};
  std::vector<RegistrationId> ids;
  for (DK k : fallthrough_keys) {
    const RegistrationResult r = d.fallbackLibrary(k, keyName(k) + "_fallthrough", true);
    if (r.ok()) ids.push_back(*r.id);
  }
  for (DK k : boxed_keys) {
    const RegistrationResult r = d.fallbackLibrary(k, keyName(k) + "_fallback", false);
    if (r.ok()) ids.push_back(*r.id);
  }
  return ids;
}

}  // namespace dispatch::model
