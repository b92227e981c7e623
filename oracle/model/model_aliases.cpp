// Reference model (model_key_set.h): alias resolution (docs/semantics.md §2.8).

#include <algorithm>
#include <set>
#include <vector>

#include "oracle/model/model_key_set.h"

namespace dispatch::model {

using DK = DispatchKey;
using BC = BackendComponent;

// =============================================================================================
// Alias resolution (docs/semantics.md §2.8)
// =============================================================================================

namespace {

// Position of a runtime key in priority order (Undefined first), for sorting: its slot in the
// full table, found once per key value (a search per comparison made sorting the alias lists
// most of the cost of a key-set check).
int priorityRank(DK k) {
  static const std::vector<int> ranks = [] {
    const auto& slots = tableSlots(Flavour::Full);
    std::vector<int> r(size_t{toUnderlying(DK::EndOfAliasKeys)} + 1, static_cast<int>(slots.size()));
    for (size_t i = 0; i < slots.size(); ++i) r[toUnderlying(slots[i])] = static_cast<int>(i);
    return r;
  }();
  const size_t v = toUnderlying(k);
  return v < ranks.size() ? ranks[v] : static_cast<int>(tableSlots(Flavour::Full).size());
}

void sortByPriority(std::vector<DK>& keys) {
  std::sort(keys.begin(), keys.end(),
            [](DK a, DK b) { return priorityRank(a) < priorityRank(b); });
}

// Every instance of functionality F, on every backend except those in `skip`.
void addInstances(std::vector<DK>& keys, DK functionality, std::set<BC> skip = {}) {
  for (BC b : allBackends()) {
    if (skip.count(b) == 0) keys.push_back(perBackendInstance(functionality, b));
  }
}

// FPGA, ORT, Vulkan, Metal, CustomRNGKeyId, MkldnnCPU, SparseCsrCPU, SparseCsrCUDA: the plain
// functionalities that act as backends (docs/semantics.md §2.7 autogradother_backends minus the blocks).
const std::vector<DK> kPlainBackends = {DK::FPGA,           DK::ORT,          DK::Vulkan,
                                        DK::Metal,          DK::CustomRNGKeyId, DK::MkldnnCPU,
                                        DK::SparseCsrCPU,   DK::SparseCsrCUDA};

}  // namespace

std::vector<DispatchKey> runtimeKeysOfAlias(DispatchKey alias) {
  std::vector<DK> keys;
  switch (alias) {
    case DK::Autograd:
      // AutogradOther, Autograd x 14, AutogradNestedTensor (16).
      keys.push_back(DK::AutogradOther);
      addInstances(keys, DK::AutogradFunctionality);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeImplicitAutograd:
      // Dense/Quantized/Sparse/NestedTensor x 14, the 8 plain backends, AutogradOther,
      // Autograd x 14, AutogradNestedTensor (80).
      addInstances(keys, DK::Dense);
      addInstances(keys, DK::Quantized);
      addInstances(keys, DK::Sparse);
      addInstances(keys, DK::NestedTensor);
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      keys.push_back(DK::AutogradOther);
      addInstances(keys, DK::AutogradFunctionality);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeImplicitAutogradNestedTensor:
      // NestedTensor x 14 + AutogradNestedTensor (15).
      addInstances(keys, DK::NestedTensor);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeExplicitAutograd:
      // Dense/Quantized/Sparse x 14 + the 8 plain backends (50).
      addInstances(keys, DK::Dense);
      addInstances(keys, DK::Quantized);
      addInstances(keys, DK::Sparse);
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      break;
    case DK::CompositeExplicitAutogradNonFunctional:
      // CEA without Sparse and without anything on XLA or Lazy (12 + 12 + 8 = 32).
      addInstances(keys, DK::Dense, {BC::XLABit, BC::LazyBit});
      addInstances(keys, DK::Quantized, {BC::XLABit, BC::LazyBit});
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      break;
    default:
      // A runtime key is its own expansion; anything else expands to nothing (D8).
      if (isValidKey(alias) && isRuntimeKey(alias)) keys.push_back(alias);
      break;
  }
  sortByPriority(keys);
  return keys;
}

KeySet aliasKeySet(DispatchKey alias) {
  switch (alias) {
    case DK::Autograd: return autogradDispatchKeyset() | KeySet::allBackendBits();
    case DK::CompositeImplicitAutograd: return mathDispatchKeyset();
    case DK::CompositeImplicitAutogradNestedTensor: return nestedDispatchKeyset();
    case DK::CompositeExplicitAutograd: return backendDispatchKeyset();
    case DK::CompositeExplicitAutogradNonFunctional: return nonFunctionalBackendDispatchKeyset();
    default: return KeySet::of(alias);
  }
}

bool isIncludedInAlias(DispatchKey k, DispatchKey alias) {
  // docs/semantics.md §2.8: Undefined is never included in any alias.
  if (k == DK::Undefined) return false;
  switch (alias) {
    case DK::Autograd: return autogradDispatchKeyset().has(functionalityOf(k));
    case DK::CompositeImplicitAutograd: return mathDispatchKeyset().has(k);
    case DK::CompositeImplicitAutogradNestedTensor: return nestedDispatchKeyset().has(k);
    case DK::CompositeExplicitAutograd:
      return k != DK::NestedTensor && backendDispatchKeyset().has(k);
    case DK::CompositeExplicitAutogradNonFunctional:
      return k != DK::NestedTensor && nonFunctionalBackendDispatchKeyset().has(k);
    default: return alias == k;
  }
}

KeySet getBackendKeySetFromAutograd(DispatchKey k) {
  // docs/semantics.md §2.8 table.
  switch (k) {
    case DK::AutogradCPU: return KeySet{DK::CPU};
    case DK::AutogradCUDA: return KeySet{DK::CUDA};
    case DK::AutogradXLA: return KeySet{DK::XLA};
    case DK::AutogradLazy: return KeySet{DK::Lazy};
    case DK::AutogradMeta: return KeySet{DK::Meta};
    case DK::AutogradMPS: return KeySet{DK::MPS};
    case DK::AutogradHPU: return KeySet{DK::HPU};
    case DK::AutogradIPU: return KeySet{DK::IPU};
    case DK::AutogradXPU: return KeySet{DK::XPU};
    case DK::AutogradPrivateUse1: return KeySet{DK::PrivateUse1};
    case DK::AutogradPrivateUse2: return KeySet{DK::PrivateUse2};
    case DK::AutogradPrivateUse3: return KeySet{DK::PrivateUse3};
    case DK::AutogradNestedTensor: return KeySet{DK::NestedTensor} | KeySet::allBackendBits();
    case DK::AutogradOther: return autogradOtherBackends();
    default: return KeySet{};  // AutogradHIP, AutogradVE and every non-autograd key
  }
}

bool isBackendDispatchKey(DispatchKey k) {
  return k != DK::Undefined && !isAliasKey(k) && k != DK::NestedTensor &&
         backendDispatchKeyset().has(k);
}

KeySet autogradRelatedKeySet(BackendComponent b) {
  return KeySet{DK::ADInplaceOrView, autogradKeyOfBackend(b)};
}

KeySet autocastRelatedKeySet(BackendComponent b) {
  switch (b) {
    case BC::CPUBit: return KeySet{DK::AutocastCPU};
    case BC::XPUBit: return KeySet{DK::AutocastXPU};
    case BC::CUDABit:
    case BC::XLABit: return KeySet{DK::AutocastCUDA};
    default: return KeySet{};
  }
}

KeySet tensorKeySet(const KeySet& input, bool inference_mode) {
  // docs/semantics.md §5.5 steps 1-4.
  const BC b = input.highestBackend();
  KeySet ks = input | autocastRelatedKeySet(b);
  ks = ks - pythonKeyset();
  if (inference_mode) {
    ks = ks - (autogradDispatchKeyset() | KeySet{DK::ADInplaceOrView});
  } else {
    ks = ks | autogradRelatedKeySet(b);
  }
  return ks;
}

}  // namespace dispatch::model
