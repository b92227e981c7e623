// Key-set algebra, iteration order and priority queries of dispatch::DispatchKeySet against the
// reference model's plain-set KeySet (docs/semantics.md §2), on biased raw key sets: realistic tensors,
// mixed backends, single keys of every kind, building blocks, raw bits past the last
// functionality. Plus the pure key helpers of docs/semantics.md §1.6 and the alias tables of docs/semantics.md §2.8.

#include <sstream>

#include "dispatch/key_sets.h"
#include "dispatch/tensor.h"
#include "generators.h"
#include "oracle/actions/names.h"
#include "prop_support.h"

namespace dispatch::props {
namespace {

using model::KeySet;

DispatchKeySet real(RawKeySet ks) { return DispatchKeySet(DispatchKeySet::RAW, ks.raw); }
KeySet reference(RawKeySet ks) { return KeySet::fromRaw(ks.raw); }
std::string name(uint64_t raw) { return oracle::keySetName(raw); }

}  // namespace

DISPATCH_PROP(KeySet, RawRoundTripsThroughTheModel, 1000, 100, (RawKeySet a)) {
  RC_ASSERT(KeySet::fromRaw(a.raw).toRaw() == a.raw);
}

DISPATCH_PROP(KeySet, BinaryOperationsMatchModel, 1000, 100, (RawKeySet a, RawKeySet b)) {
  const DispatchKeySet x = real(a);
  const DispatchKeySet y = real(b);
  const KeySet mx = reference(a);
  const KeySet my = reference(b);
  RC_ASSERT(name((x | y).raw_repr()) == name((mx | my).toRaw()));
  RC_ASSERT(name((x & y).raw_repr()) == name((mx & my).toRaw()));
  RC_ASSERT(name((x ^ y).raw_repr()) == name((mx ^ my).toRaw()));
  RC_ASSERT(name((x - y).raw_repr()) == name((mx - my).toRaw()));
  RC_ASSERT(x.has_all(y) == mx.hasAll(my));
  RC_ASSERT(x.isSupersetOf(y) == mx.hasAll(my));
  RC_ASSERT(x.has_any(y) == mx.hasAny(my));
  RC_ASSERT((x == y) == (mx == my));
  // Set difference never clears a backend bit of the left side (docs/semantics.md §2.3).
  RC_ASSERT(((x - y).raw_repr() & DispatchKeySet::full_backend_mask) ==
            (x.raw_repr() & DispatchKeySet::full_backend_mask));
}

DISPATCH_PROP(KeySet, AddRemoveMatchModel, 1000, 100,
              (RawKeySet a, DispatchKey k, BackendComponent b)) {
  const DispatchKeySet x = real(a);
  const KeySet mx = reference(a);
  RC_ASSERT(name(DispatchKeySet(k).raw_repr()) == name(KeySet::of(k).toRaw()));
  RC_ASSERT(name(x.add(k).raw_repr()) == name(mx.add(k).toRaw()));
  RC_ASSERT(name(x.remove(k).raw_repr()) == name(mx.remove(k).toRaw()));
  RC_ASSERT(name(x.remove_backend(b).raw_repr()) == name(mx.removeBackend(b).toRaw()));
  RC_ASSERT(name((x | DispatchKeySet(b)).raw_repr()) == name(mx.addBackend(b).toRaw()));
  RC_ASSERT(x.has(k) == mx.has(k));
  RC_ASSERT(x.has_backend(b) == mx.hasBackend(b));
  // remove() clears only k's functionality bit: backend bits survive (docs/semantics.md §2.3).
  RC_ASSERT((x.remove(k).raw_repr() & DispatchKeySet::full_backend_mask) ==
            (x.raw_repr() & DispatchKeySet::full_backend_mask));
}

DISPATCH_PROP(KeySet, IterationOrderMatchesModel, 1000, 100, (RawKeySet a)) {
  const DispatchKeySet x = real(a);
  std::vector<DispatchKey> yielded;
  for (DispatchKey k : x) {
    yielded.push_back(k);
    RC_ASSERT(yielded.size() <= 105u);  // a runaway iterator fails here, not by timeout
  }
  const std::vector<DispatchKey> expected = reference(a).runtimeKeys();
  RC_ASSERT(yielded == expected);
  RC_ASSERT(x.size() == static_cast<int>(expected.size()));
  std::ostringstream printed;
  printed << "DispatchKeySet(";
  for (size_t i = 0; i < expected.size(); ++i) {
    printed << (i ? ", " : "") << model::keyName(expected[i]);
  }
  printed << ")";
  RC_ASSERT(toString(x) == printed.str());
  // Every key the iterator yields is a runtime key the set has.
  for (DispatchKey k : yielded) {
    RC_ASSERT(model::isRuntimeKey(k));
    RC_ASSERT(x.has(k));
  }
}

DISPATCH_PROP(KeySet, PriorityQueriesMatchModel, 1000, 100, (RawKeySet a)) {
  const DispatchKeySet x = real(a);
  const KeySet mx = reference(a);
  RC_ASSERT(x.empty() == mx.empty());
  RC_ASSERT(toUnderlying(x.highestFunctionalityKey()) == toUnderlying(mx.highestFunctionalityKey()));
  RC_ASSERT(x.highestBackendKey() == mx.highestBackend());
  RC_ASSERT(toUnderlying(x.highestPriorityTypeId()) == toUnderlying(mx.highestPriorityTypeId()));
  RC_ASSERT(static_cast<int>(x.getBackendIndex()) == mx.getBackendIndex());
  RC_ASSERT(toUnderlying(highestPriorityBackendTypeId(x)) ==
            toUnderlying(model::highestPriorityBackendTypeId(mx)));
}

// Cross-product semantics (docs/semantics.md §2.4): the union's highest key combines the
// highest functionality of either side with the highest backend of either side, so the naive
// "max of the two highest keys" is wrong ({AutogradCPU} | {CUDA} -> AutogradCUDA).
DISPATCH_PROP(KeySet, UnionPriorityIsTheCrossProduct, 1000, 100, (RawKeySet a, RawKeySet b)) {
  const DispatchKeySet x = real(a);
  const DispatchKeySet y = real(b);
  const DispatchKeySet u = x | y;
  RC_ASSERT(toUnderlying(u.highestFunctionalityKey()) ==
            std::max(toUnderlying(x.highestFunctionalityKey()),
                     toUnderlying(y.highestFunctionalityKey())));
  RC_ASSERT(toUnderlying(u.highestBackendKey()) ==
            std::max(toUnderlying(x.highestBackendKey()), toUnderlying(y.highestBackendKey())));
  const DispatchKey f = u.highestFunctionalityKey();
  if (isPerBackendFunctionalityKey(f)) {
    RC_ASSERT(u.highestPriorityTypeId() ==
              toRuntimePerBackendFunctionalityKey(f, u.highestBackendKey()));
  } else {
    RC_ASSERT(u.highestPriorityTypeId() == f);
  }
}

DISPATCH_PROP(KeySet, KeyHelpersMatchModel, 1000, 100, (DispatchKey k, BackendComponent backend)) {
  // InvalidBit too: the "no backend" answer of highestBackendKey.
  const BackendComponent b =
      *rc::gen::weightedElement<bool>({{6, true}, {1, false}}) ? backend : BackendComponent::InvalidBit;
  RC_ASSERT(toUnderlying(toFunctionalityKey(k)) == toUnderlying(model::functionalityOf(k)));
  RC_ASSERT(toBackendComponent(k) == model::backendOf(k));
  RC_ASSERT(isPerBackendFunctionalityKey(k) == model::isPerBackendFunctionality(k));
  RC_ASSERT(isAliasDispatchKey(k) == model::isAliasKey(k));
  RC_ASSERT(isRuntimeDispatchKey(k) == model::isRuntimeKey(k));
  RC_ASSERT(isValidDispatchKey(k) == model::isValidKey(k));
  for (DispatchKey f : {DispatchKey::Dense, DispatchKey::Quantized, DispatchKey::Sparse,
                        DispatchKey::NestedTensor, DispatchKey::AutogradFunctionality}) {
    RC_ASSERT(toRuntimePerBackendFunctionalityKey(f, b) == model::perBackendInstance(f, b));
  }
  RC_ASSERT(toRuntimePerBackendFunctionalityKey(k, b) == model::perBackendInstance(k, b));
  RC_ASSERT(getAutogradKeyFromBackend(b) == model::autogradKeyOfBackend(b));
  RC_ASSERT(getAutogradRelatedKeySetFromBackend(b).raw_repr() ==
            model::autogradRelatedKeySet(b).toRaw());
  RC_ASSERT(getAutocastRelatedKeySetFromBackend(b).raw_repr() ==
            model::autocastRelatedKeySet(b).toRaw());
  // A name the parser accepts names the key it came from (placeholders and the sentinel may be
  // refused, as c10's parser refuses some names).
  if (model::isValidKey(k)) {
    if (const auto parsed = tryParseDispatchKey(model::keyName(k))) RC_ASSERT(*parsed == k);
  }
}

DISPATCH_PROP(KeySet, FullAfterMatchesModel, 1000, 100, (DispatchKey t)) {
  RC_ASSERT(name(DispatchKeySet(DispatchKeySet::FULL_AFTER, t).raw_repr()) ==
            name(KeySet::fullAfter(t).toRaw()));
}

DISPATCH_PROP(KeySet, AliasResolutionMatchesModel, 1000, 100, (DispatchKey alias, DispatchKey k)) {
  RC_PRE(model::isValidKey(alias) && alias != DispatchKey::Undefined);
  RC_ASSERT(name(getRuntimeDispatchKeySet(alias).raw_repr()) ==
            name(model::aliasKeySet(alias).toRaw()));
  std::vector<DispatchKey> expanded;
  for (DispatchKey r : getRuntimeDispatchKeySet(alias)) expanded.push_back(r);
  RC_ASSERT(expanded == model::runtimeKeysOfAlias(alias));
  RC_ASSERT(runtimeDispatchKeySetHas(alias, k) ==
            (model::isIncludedInAlias(k, alias) || (k == DispatchKey::Undefined && alias == k)));
  RC_ASSERT(isIncludedInAlias(k, alias) == model::isIncludedInAlias(k, alias));
  RC_ASSERT(name(getBackendKeySetFromAutograd(k).raw_repr()) ==
            name(model::getBackendKeySetFromAutograd(k).toRaw()));
  RC_ASSERT(isBackendDispatchKey(k) == model::isBackendDispatchKey(k));
}

DISPATCH_PROP(KeySet, TensorKeySetsMatchModel, 1000, 100, (BackendComponent b, bool inference)) {
  for (TensorKind kind : {TensorKind::Dense, TensorKind::Quantized, TensorKind::Sparse}) {
    const DispatchKeySet ks = tensorKeySet(kind, b, false, inference);
    const DispatchKey storage = toRuntimePerBackendFunctionalityKey(functionalityOf(kind), b);
    RC_ASSERT(name(ks.raw_repr()) == name(model::tensorKeySet(KeySet::of(storage), inference).toRaw()));
  }
}

// Pinned example for the cross-product trap (docs/semantics.md §2.4).
TEST(KeySet, AutogradCpuUnionCudaIsAutogradCuda) {
  const DispatchKeySet u = DispatchKeySet(DispatchKey::AutogradCPU) | DispatchKeySet(DispatchKey::CUDA);
  EXPECT_EQ(u.highestPriorityTypeId(), DispatchKey::AutogradCUDA);
  EXPECT_TRUE(u.has(DispatchKey::CPU));
  EXPECT_TRUE(u.has(DispatchKey::AutogradCUDA));
}

}  // namespace dispatch::props
