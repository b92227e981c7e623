// Reference model (model_key_set.h): the runtime table index of both flavours (docs/semantics.md §3, 6.2).

#include <algorithm>
#include <set>
#include <vector>

#include "oracle/model_key_set.h"

namespace dispatch::model {

using DK = DispatchKey;
using BC = BackendComponent;

// =============================================================================================
// Table index (docs/semantics.md §3, 6.2)
// =============================================================================================

std::string toString(Flavour f) { return f == Flavour::Full ? "full" : "mobile"; }

const std::vector<DispatchKey>& tableSlots(Flavour f) {
  // docs/semantics.md §3.2: walk the functionalities in order.
  static const std::vector<DK> full = [] {
    std::vector<DK> slots = {DK::Undefined};  // slot 0
    for (DK functionality : allFunctionalities()) {
      if (isPerBackendFunctionality(functionality)) {
        for (BC b : allBackends()) slots.push_back(perBackendInstance(functionality, b));
      } else {
        slots.push_back(functionality);
      }
    }
    return slots;
  }();
  // docs/semantics.md §6.2: the trimmed mobile slot map.
  static const std::vector<DK> mobile = {DK::Undefined,       DK::CPU,
                                         DK::QuantizedCPU,    DK::SparseCPU,
                                         DK::BackendSelect,   DK::ADInplaceOrView,
                                         DK::AutogradOther,   DK::AutogradCPU};
  return f == Flavour::Full ? full : mobile;
}

int tableSize(Flavour f) { return static_cast<int>(tableSlots(f).size()); }

namespace {
int slotOf(DK k, Flavour f) {
  const auto& slots = tableSlots(f);
  const auto it = std::find(slots.begin(), slots.end(), k);
  return it == slots.end() ? -1 : static_cast<int>(it - slots.begin());
}
}  // namespace

int tableIndex(const KeySet& ks, Flavour f) {
  // Raw sets with a functionality bit past PythonDispatcher have no slot (D4).
  if (!ks.unknownFunctionalityValues().empty()) return -1;
  if (f == Flavour::Mobile) {
    // docs/semantics.md §6.2: switch on highestPriorityTypeId; every other key is -1.
    return slotOf(ks.highestPriorityTypeId(), Flavour::Mobile);
  }
  // docs/semantics.md §3.3: slot of (highest functionality, highest backend); docs/semantics.md §3.5: CPU when no backend.
  const DK functionality = ks.highestFunctionalityKey();
  if (functionality == DK::Undefined) return 0;
  if (isPerBackendFunctionality(functionality)) {
    const BC b = ks.backends().empty() ? BC::CPUBit : ks.highestBackend();
    return slotOf(perBackendInstance(functionality, b), Flavour::Full);
  }
  return slotOf(functionality, Flavour::Full);
}

int tableIndex(DispatchKey k, Flavour f) { return tableIndex(KeySet::of(k), f); }

}  // namespace dispatch::model
