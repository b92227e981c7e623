#pragma once
// Reference model (internal): what computedEntry asks about a key, worked out once per process.
// Every fact is the value of the plain function it names (model_key_set.h), evaluated for every
// enum value up front: computedEntry asks the same questions about the same ~110 keys for every
// slot of every row, and a table lookup is the same answer at a fraction of the cost. Nothing
// here restates a rule.

#include <array>
#include <vector>

#include "oracle/model/model_key_set.h"

namespace dispatch::model {

// The alias keys in the order docs/semantics.md §4.4 consults them.
enum class AliasStep { CEANF, CEA, CIANested, CIA, Autograd, kCount };

struct KeyFacts {
  // isIncludedInAlias(k, alias) per AliasStep.
  std::array<bool, static_cast<size_t>(AliasStep::kCount)> in_alias{};
  // getBackendKeySetFromAutograd(k).runtimeKeys().
  std::vector<DispatchKey> autograd_backend_keys;
  // tableIndex(k, f) per flavour, indexed by Flavour::index.
  std::vector<int> index_of_flavour;
  // isRuntimeKey(k).
  bool runtime = false;
  // isPerBackendFunctionality(k), and then perBackendInstance(k, b) per b of allBackends().
  bool per_backend_functionality = false;
  std::vector<DispatchKey> instance_of_backend;

  bool included(AliasStep alias) const { return in_alias[static_cast<size_t>(alias)]; }
  int index(Flavour f) const { return index_of_flavour[f.index]; }
};

// The facts of a valid enum value (isValidKey(k)); throws std::out_of_range otherwise.
const KeyFacts& keyFacts(DispatchKey k);
// The same, nullptr for a value outside the enum.
const KeyFacts* findKeyFacts(DispatchKey k);
// How many enum values there are: the valid keys are exactly the values 0 .. numKeyValues() - 1.
size_t numKeyValues();

// The slots of flavour f in the order the tables are printed (docs/semantics.md §4.8): the slot
// of Undefined, then the slot of every key of allRuntimeKeys() in that order (ascending
// priority), keys without a slot skipped.
const std::vector<int>& slotsInPrintOrder(Flavour f);

}  // namespace dispatch::model
