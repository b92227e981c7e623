#include "oracle/model/model_key_facts.h"

#include <stdexcept>
#include <vector>

namespace dispatch::model {

namespace {

using DK = DispatchKey;

constexpr DK kAliasOfStep[] = {DK::CompositeExplicitAutogradNonFunctional,
                               DK::CompositeExplicitAutograd,
                               DK::CompositeImplicitAutogradNestedTensor,
                               DK::CompositeImplicitAutograd, DK::Autograd};

KeyFacts factsOf(DK k) {
  KeyFacts facts;
  for (size_t step = 0; step < facts.in_alias.size(); ++step) {
    facts.in_alias[step] = isIncludedInAlias(k, kAliasOfStep[step]);
  }
  facts.autograd_backend_keys = getBackendKeySetFromAutograd(k).runtimeKeys();
  facts.index_of_flavour.resize(allFlavours().size());
  for (const Flavour f : allFlavours()) facts.index_of_flavour[f.index] = tableIndex(k, f);
  facts.runtime = isRuntimeKey(k);
  facts.per_backend_functionality = isPerBackendFunctionality(k);
  if (facts.per_backend_functionality) {
    for (const BackendComponent b : allBackends()) {
      facts.instance_of_backend.push_back(perBackendInstance(k, b));
    }
  }
  return facts;
}

const std::vector<KeyFacts>& allFacts() {
  static const std::vector<KeyFacts> table = [] {
    std::vector<KeyFacts> all;
    for (int v = 0; isValidKey(static_cast<DK>(v)); ++v) all.push_back(factsOf(static_cast<DK>(v)));
    return all;
  }();
  return table;
}

}  // namespace

const KeyFacts& keyFacts(DispatchKey k) { return allFacts().at(static_cast<size_t>(toUnderlying(k))); }

const KeyFacts* findKeyFacts(DispatchKey k) {
  const std::vector<KeyFacts>& all = allFacts();
  const auto value = static_cast<size_t>(toUnderlying(k));
  return value < all.size() ? &all[value] : nullptr;
}

size_t numKeyValues() { return allFacts().size(); }

const std::vector<int>& slotsInPrintOrder(Flavour f) {
  static const std::vector<std::vector<int>> orders = [] {
    std::vector<std::vector<int>> all(allFlavours().size());
    for (const Flavour flavour : allFlavours()) {
      std::vector<DK> keys = {DK::Undefined};
      keys.insert(keys.end(), allRuntimeKeys().begin(), allRuntimeKeys().end());
      for (DK k : keys) {
        if (const int slot = tableIndex(k, flavour); slot >= 0) all[flavour.index].push_back(slot);
      }
    }
    return all;
  }();
  return orders.at(f.index);
}

}  // namespace dispatch::model
