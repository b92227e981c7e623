#pragma once
// Which slots of a row a kernel (de)registration can move: the dependency rules of the
// incremental refresh (Note [Table Equals Recomputation] in operator_entry.h). Each rule names
// the step of docs/semantics.md §4.4 that reads the changed kernel list; the same rules, stated
// for c10, are docs/upstream/README.md "Which slots a change can move". Private to the library's
// sources.
//
// A fallback change needs no rule here: it moves only its own slot (updateFallback).

#include <array>
#include <vector>

#include "operator_entry_internal.h"

namespace dispatch::detail {

// Whether adding or removing a kernel on list key `changed` (a runtime or alias key; a
// catch-all is stored under CompositeImplicitAutograd) can move the slot of table key k,
// whatever else the operator holds. The one dependency that exists only while other kernels
// do (CompositeExplicitAutograd through has_backend_kernel) is readsCeaThroughCia.
constexpr bool kernelListCanMove(DispatchKey changed, DispatchKey k) noexcept {
  // Step 1: k's own kernel list.
  if (changed == k) return true;
  // Steps 2, 3, 5, 6 and 7: the kernel of an alias, for the runtime keys it covers (§2.8).
  if (isAliasDispatchKey(changed) && isIncludedInAlias(k, changed)) return true;
  // Steps 2, 3 and 6: Undefined counts as a member of the three Composite aliases.
  if (k == DispatchKey::Undefined &&
      (changed == DispatchKey::CompositeExplicitAutogradNonFunctional ||
       changed == DispatchKey::CompositeExplicitAutograd ||
       changed == DispatchKey::CompositeImplicitAutograd)) {
    return true;
  }
  // Steps 4 and 6: has_backend_kernel of autograd key k, and AutogradOther's ambiguity test
  // (§4.6), read the runtime keys of getBackendKeySetFromAutograd(k): Dense<b> for
  // Autograd<b>, autogradother_backends (Sparse, Quantized, FPGA, ...) for AutogradOther, every
  // NestedTensor<b> for AutogradNestedTensor. Alias kernels do not count there.
  if (!isAliasDispatchKey(changed) && getBackendKeySetFromAutograd(k).has(changed)) return true;
  return false;
}

// Step 4: has_backend_kernel is also true whenever a CompositeExplicitAutograd kernel exists,
// and step 6 reads it for Undefined and every key CompositeImplicitAutograd covers, but only
// while a CompositeImplicitAutograd kernel exists. Beyond CEA's own keys (kernelListCanMove)
// that adds the autograd and NestedTensor keys.
constexpr bool readsCeaThroughCia(DispatchKey k) noexcept {
  return k == DispatchKey::Undefined ||
         isIncludedInAlias(k, DispatchKey::CompositeImplicitAutograd);
}

// The rules above as slot lists of layout L, computed once per layout.
template <class L>
class SlotDependencies {
 public:
  static const SlotDependencies& get() {
    static const SlotDependencies dependencies;
    return dependencies;
  }
  // The slots a kernel (de)registration on list key `changed` can move.
  const std::vector<SlotKey>& movedBy(DispatchKey changed) const {
    return moved_by_[toUnderlying(changed)];
  }
  // The slots a CompositeExplicitAutograd (de)registration moves besides movedBy(CEA) while a
  // CompositeImplicitAutograd kernel exists.
  const std::vector<SlotKey>& movedByCeaBesideCia() const { return moved_by_cea_beside_cia_; }

 private:
  SlotDependencies() {
    for (uint16_t value = 0; value <= toUnderlying(DispatchKey::EndOfAliasKeys); ++value) {
      const auto changed = static_cast<DispatchKey>(value);
      if (!isRuntimeDispatchKey(changed) && !isAliasDispatchKey(changed)) continue;
      for (const SlotKey& slot : slotKeys<L>()) {
        if (kernelListCanMove(changed, slot.key)) moved_by_[value].push_back(slot);
      }
    }
    for (const SlotKey& slot : slotKeys<L>()) {
      if (readsCeaThroughCia(slot.key) &&
          !kernelListCanMove(DispatchKey::CompositeExplicitAutograd, slot.key)) {
        moved_by_cea_beside_cia_.push_back(slot);
      }
    }
  }

  std::array<std::vector<SlotKey>, toUnderlying(DispatchKey::EndOfAliasKeys) + 1> moved_by_;
  std::vector<SlotKey> moved_by_cea_beside_cia_;
};

}  // namespace dispatch::detail
