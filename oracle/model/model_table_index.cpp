// Reference model (model_key_set.h): the flavours and the runtime table index of each
// (docs/semantics.md §3, 6.2). The flavours are data: oracle/flavour_declarations.h, generated
// from cmake/flavours.list, names every flavour's kept keys; the model maps those names with its
// own key list and never asks the library's layouts.

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "oracle/flavour_declarations.h"
#include "oracle/model/model_key_set.h"

namespace dispatch::model {

using DK = DispatchKey;
using BC = BackendComponent;

namespace {

constexpr size_t kNumFlavours = std::size(kFlavourDeclarations);
static_assert(kNumFlavours >= 1 && kFlavourDeclarations[0].name == "full" &&
                  kFlavourDeclarations[0].kept_keys == "full",
              "cmake/flavours.list declares full first");
static_assert(kNumFlavours <= 255, "Flavour::index is a uint8_t");

const FlavourDeclaration& declarationOf(Flavour f) {
  if (f.index >= kNumFlavours) {
    throw std::invalid_argument("no flavour with index " + std::to_string(f.index));
  }
  return kFlavourDeclarations[f.index];
}

// docs/semantics.md §3.2: walk the functionalities in order.
std::vector<DK> fullSlots() {
  std::vector<DK> slots = {DK::Undefined};  // slot 0
  for (DK functionality : allFunctionalities()) {
    if (isPerBackendFunctionality(functionality)) {
      for (BC b : allBackends()) slots.push_back(perBackendInstance(functionality, b));
    } else {
      slots.push_back(functionality);
    }
  }
  return slots;
}

// docs/semantics.md §6.2: a trimmed table is its declared key list, Undefined first.
std::vector<DK> trimmedSlots(const FlavourDeclaration& declaration) {
  static const std::map<std::string, DK> by_name = [] {
    std::map<std::string, DK> names = {{keyName(DK::Undefined), DK::Undefined}};
    for (DK k : allRuntimeKeys()) names.emplace(keyName(k), k);
    return names;
  }();
  std::vector<DK> slots;
  std::istringstream words{std::string(declaration.kept_keys)};
  for (std::string word; words >> word;) {
    const auto it = by_name.find(word);
    if (it == by_name.end()) {
      throw std::invalid_argument("flavour " + std::string(declaration.name) + " keeps '" + word +
                                  "', which is no runtime key of the model");
    }
    slots.push_back(it->second);
  }
  if (slots.empty() || slots.front() != DK::Undefined) {
    throw std::invalid_argument("flavour " + std::string(declaration.name) +
                                " does not keep Undefined in slot 0");
  }
  return slots;
}

int slotOf(DK k, Flavour f) {
  const auto& slots = tableSlots(f);
  const auto it = std::find(slots.begin(), slots.end(), k);
  return it == slots.end() ? -1 : static_cast<int>(it - slots.begin());
}

}  // namespace

const std::vector<Flavour>& allFlavours() {
  static const std::vector<Flavour> flavours = [] {
    std::vector<Flavour> all;
    for (size_t i = 0; i < kNumFlavours; ++i) all.push_back(Flavour{static_cast<uint8_t>(i)});
    return all;
  }();
  return flavours;
}

Flavour flavourNamed(std::string_view name) {
  for (Flavour f : allFlavours()) {
    if (declarationOf(f).name == name) return f;
  }
  throw std::invalid_argument("no flavour named '" + std::string(name) +
                              "' in the declarations (cmake/flavours.list)");
}

std::string toString(Flavour f) { return std::string(declarationOf(f).name); }

bool isTrimmed(Flavour f) { return declarationOf(f).kept_keys != "full"; }

const std::vector<DispatchKey>& tableSlots(Flavour f) {
  static const std::vector<std::vector<DK>> slots = [] {
    std::vector<std::vector<DK>> all;
    for (const auto& declaration : kFlavourDeclarations) {
      all.push_back(declaration.kept_keys == "full" ? fullSlots() : trimmedSlots(declaration));
    }
    return all;
  }();
  declarationOf(f);  // range check
  return slots[f.index];
}

int tableSize(Flavour f) { return static_cast<int>(tableSlots(f).size()); }

const std::vector<DispatchKey>& keysOfTrimmedFlavours() {
  static const std::vector<DK> keys = [] {
    std::vector<DK> all;
    for (Flavour f : allFlavours()) {
      if (!isTrimmed(f)) continue;
      for (DK k : tableSlots(f)) {
        if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
      }
    }
    return all;
  }();
  return keys;
}

int tableIndex(const KeySet& ks, Flavour f) {
  // Raw sets with a functionality bit past PythonDispatcher have no slot (D4).
  if (!ks.unknownFunctionalityValues().empty()) return -1;
  if (isTrimmed(f)) {
    // docs/semantics.md §6.2: switch on highestPriorityTypeId; every other key is -1.
    return slotOf(ks.highestPriorityTypeId(), f);
  }
  // docs/semantics.md §3.3: slot of (highest functionality, highest backend); docs/semantics.md §3.5: CPU when no backend.
  const DK functionality = ks.highestFunctionalityKey();
  if (functionality == DK::Undefined) return 0;
  if (isPerBackendFunctionality(functionality)) {
    const BC b = ks.backends().empty() ? BC::CPUBit : ks.highestBackend();
    return slotOf(perBackendInstance(functionality, b), f);
  }
  return slotOf(functionality, f);
}

int tableIndex(DispatchKey k, Flavour f) { return tableIndex(KeySet::of(k), f); }

}  // namespace dispatch::model
