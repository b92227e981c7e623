// Tests for the predefined key sets (docs/semantics.md §2.7), alias resolution (2.8) and the backend ->
// autograd / autocast mappings (1.6, 2.8) of docs/semantics.md.
// Memberships are written from the spec's prose lists via spec_model.h, not via the library sets.

#include "dispatch/key_sets.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "spec_model.h"

namespace {

using dispatch::BackendComponent;
using dispatch::DispatchKey;
using dispatch::DispatchKeySet;
using DK = dispatch::DispatchKey;
using BC = dispatch::BackendComponent;

DispatchKey key(int v) { return static_cast<DispatchKey>(v); }
BackendComponent backend(int v) { return static_cast<BackendComponent>(v); }
int value(DispatchKey k) { return static_cast<int>(dispatch::toUnderlying(k)); }

std::vector<std::string> names(DispatchKeySet ks) {
  std::vector<std::string> out;
  for (DispatchKey k : ks) out.emplace_back(dispatch::toString(k));
  return out;
}

constexpr uint64_t bit(int i) { return uint64_t{1} << i; }
constexpr uint64_t kAllBackends = 0x3FFF;
constexpr uint64_t kPythonDispatcherBit = bit(53);

// Functionality values from the 1.3 table.
constexpr int kDense = 1, kFPGA = 2, kORT = 3, kVulkan = 4, kMetal = 5, kQuantized = 6,
              kCustomRNGKeyId = 7, kMkldnnCPU = 8, kSparse = 9, kSparseCsrCPU = 10,
              kSparseCsrCUDA = 11, kNestedTensor = 12, kAutogradOther = 23,
              kAutogradFunctionality = 24, kAutogradNestedTensor = 25;
// Backend values from the 1.2 table.
constexpr int kCPU = 1, kCUDA = 2, kHIP = 3, kXLA = 4, kXPU = 7, kVE = 9, kLazy = 10;

const std::set<int> kPlainBackends = {kFPGA,           kORT,       kVulkan,       kMetal,
                                      kCustomRNGKeyId, kMkldnnCPU, kSparseCsrCPU, kSparseCsrCUDA};

bool in(const std::set<int>& s, int v) { return s.count(v) == 1; }

// Section 2.8 "resolves to" column, as predicates on a runtime key of the spec model.
bool specAutograd(const spec::Key& k) {
  return in({kAutogradOther, kAutogradFunctionality, kAutogradNestedTensor}, k.functionality);
}
bool specCEA(const spec::Key& k) {
  return in({kDense, kQuantized, kSparse}, k.functionality) || in(kPlainBackends, k.value);
}
bool specCIA(const spec::Key& k) {
  return specCEA(k) || specAutograd(k) || k.functionality == kNestedTensor;
}
bool specCIANested(const spec::Key& k) {
  return k.functionality == kNestedTensor || k.value == kAutogradNestedTensor;
}
// "the CEA set without Sparse* and without anything on the XLA or Lazy backends"; SparseCsr*
// stay (they are plain functionalities: only the Sparse functionality bit is removed).
bool specCEANF(const spec::Key& k) {
  return specCEA(k) && k.functionality != kSparse && k.backend != kXLA && k.backend != kLazy;
}

struct AliasCase {
  DispatchKey alias;
  bool (*expected)(const spec::Key&);
  int count;
};
const std::vector<AliasCase> kAliasCases = {
    {DK::Autograd, specAutograd, 16},
    {DK::CompositeImplicitAutograd, specCIA, 80},
    {DK::CompositeImplicitAutogradNestedTensor, specCIANested, 15},
    {DK::CompositeExplicitAutograd, specCEA, 50},
    {DK::CompositeExplicitAutogradNonFunctional, specCEANF, 32},
};

// --- predefined sets (section 2.7) ----------------------------------------------------------

TEST(KeySetsTest, VerifiedPredefinedReprs) {
  EXPECT_EQ(dispatch::autograd_dispatch_keyset.raw_repr(), 0x70'0000'0000u);
  EXPECT_EQ(dispatch::default_included_set.raw_repr(), 0x8'0400'0000u);
  EXPECT_EQ(dispatch::default_excluded_set.raw_repr(), 0x700'0000'0000u);
  EXPECT_EQ(dispatch::autogradother_backends.raw_repr(), 0x1FF'BFFFu);
  EXPECT_EQ(dispatch::backend_functionality_keys.raw_repr(), 0x48'7FFFu);
}

TEST(KeySetsTest, OtherPredefinedSetsFromBitTable) {
  // Bits from the 1.3 table: bit = 13 + functionality value.
  EXPECT_EQ(dispatch::autocast_dispatch_keyset.raw_repr(), bit(40) | bit(41) | bit(42));
  EXPECT_EQ(dispatch::autograd_dispatch_keyset_with_ADInplaceOrView.raw_repr(),
            0x70'0000'0000u | bit(35));
  EXPECT_EQ(dispatch::python_ks.raw_repr(), bit(27) | bit(49));
  EXPECT_EQ(dispatch::sparse_ks.raw_repr(), bit(22));
  EXPECT_EQ(dispatch::sparse_csr_ks.raw_repr(), bit(23) | bit(24));
  EXPECT_EQ(dispatch::mkldnn_ks.raw_repr(), bit(21));
  EXPECT_EQ(dispatch::backend_bitset_mask.raw_repr(), kAllBackends);
  EXPECT_EQ(dispatch::all_backends_keyset.raw_repr(), kAllBackends);
  EXPECT_EQ(dispatch::functorch_transforms_ks.raw_repr(),
            bit(43) | bit(44) | bit(45) | bit(46) | bit(47));
  // FULL_AFTER(t): backends + every functionality below t + PythonDispatcher.
  EXPECT_EQ(dispatch::after_autograd_keyset.raw_repr(), (bit(36) - 1) | kPythonDispatcherBit);
  EXPECT_EQ(dispatch::after_ADInplaceOrView_keyset.raw_repr(),
            (bit(35) - 1) | kPythonDispatcherBit);
  EXPECT_EQ(dispatch::after_func_keyset.raw_repr(), (bit(30) - 1) | kPythonDispatcherBit);
  EXPECT_FALSE(dispatch::after_func_keyset.has(DK::ADInplaceOrView));
  EXPECT_TRUE(dispatch::after_autograd_keyset.has(DK::ADInplaceOrView));
  EXPECT_FALSE(dispatch::after_autograd_keyset.has(DK::AutogradOther));
  EXPECT_TRUE(dispatch::after_ADInplaceOrView_keyset.has(DK::ZeroTensor));
  EXPECT_FALSE(dispatch::after_ADInplaceOrView_keyset.has(DK::ADInplaceOrView));
}

TEST(KeySetsTest, PredefinedSetContents) {
  EXPECT_EQ(
      dispatch::autograd_dispatch_keyset,
      (DispatchKeySet{DK::AutogradFunctionality, DK::AutogradOther, DK::AutogradNestedTensor}));
  // No backend bits on purpose: subtracting it leaves the backend intact.
  EXPECT_EQ(dispatch::autograd_dispatch_keyset.raw_repr() & kAllBackends, 0u);
  const DispatchKeySet tensor{DK::CPU, DK::AutogradCPU};
  EXPECT_EQ(tensor - dispatch::autograd_dispatch_keyset, DispatchKeySet(DK::CPU));
  EXPECT_EQ(names(dispatch::default_included_set),
            (std::vector<std::string>{"BackendSelect", "ADInplaceOrView"}));
  EXPECT_EQ(names(dispatch::default_excluded_set),
            (std::vector<std::string>{"AutocastCPU", "AutocastXPU", "AutocastCUDA"}));
  EXPECT_EQ(dispatch::autocast_dispatch_keyset, dispatch::default_excluded_set);
  EXPECT_EQ(names(dispatch::python_ks), (std::vector<std::string>{"Python", "PythonTLSSnapshot"}));
  EXPECT_EQ(names(dispatch::functorch_transforms_ks),
            (std::vector<std::string>{"FuncTorchBatched", "FuncTorchVmapMode", "Batched",
                                      "VmapMode", "FuncTorchGradWrapper"}));
}

TEST(KeySetsTest, AutogradOtherBackendsIteration) {
  // Section 2.7: 36 runtime keys in this order.
  std::vector<std::string> expected = {"FPGA", "ORT", "Vulkan", "Metal"};
  for (int b = 1; b <= spec::kNumBackends; ++b)
    expected.push_back(std::string("Quantized") + spec::kBackendNames[b]);
  expected.emplace_back("CustomRNGKeyId");
  expected.emplace_back("MkldnnCPU");
  for (int b = 1; b <= spec::kNumBackends; ++b)
    expected.push_back(std::string("Sparse") + spec::kBackendNames[b]);
  expected.emplace_back("SparseCsrCPU");
  expected.emplace_back("SparseCsrCUDA");
  ASSERT_EQ(expected.size(), 36u);
  EXPECT_EQ(names(dispatch::autogradother_backends), expected);
  // HIP and VE have backend bits of their own: no Dense instance is in the set.
  EXPECT_FALSE(dispatch::autogradother_backends.has(DK::HIP));
  EXPECT_FALSE(dispatch::autogradother_backends.has(DK::VE));
  EXPECT_FALSE(dispatch::autogradother_backends.has(DK::CPU));
  EXPECT_TRUE(dispatch::autogradother_backends.has(DK::SparseHIP));
}

// --- alias resolution (section 2.8) ---------------------------------------------------------

TEST(KeySetsTest, RuntimeDispatchKeySetCounts) {
  for (const auto& c : kAliasCases) {
    EXPECT_EQ(dispatch::getRuntimeDispatchKeySet(c.alias).size(), c.count) << c.alias;
  }
}

TEST(KeySetsTest, RuntimeDispatchKeySetMembership) {
  for (const auto& c : kAliasCases) {
    const DispatchKeySet resolved = dispatch::getRuntimeDispatchKeySet(c.alias);
    int expected_count = 0;
    for (const auto& k : spec::runtimeKeys()) {
      const bool expected = c.expected(k);
      expected_count += expected ? 1 : 0;
      EXPECT_EQ(resolved.has(key(k.value)), expected) << c.alias << " / " << k.name;
      EXPECT_EQ(dispatch::runtimeDispatchKeySetHas(c.alias, key(k.value)), expected)
          << c.alias << " / " << k.name;
      EXPECT_EQ(dispatch::isIncludedInAlias(key(k.value), c.alias), expected)
          << c.alias << " / " << k.name;
    }
    EXPECT_EQ(expected_count, c.count) << c.alias;  // the model agrees with the spec's counts
    // Iteration yields exactly the members, each once.
    std::set<int> iterated;
    for (DispatchKey k : resolved) {
      EXPECT_TRUE(iterated.insert(value(k)).second) << k;
      EXPECT_TRUE(c.expected(spec::allKeys()[static_cast<size_t>(value(k))]))
          << c.alias << " / " << k;
    }
    EXPECT_EQ(static_cast<int>(iterated.size()), c.count) << c.alias;
  }
}

TEST(KeySetsTest, AliasSpotChecks) {
  using dispatch::isIncludedInAlias;
  EXPECT_TRUE(isIncludedInAlias(DK::AutogradOther, DK::Autograd));
  EXPECT_TRUE(isIncludedInAlias(DK::AutogradHIP, DK::Autograd));
  EXPECT_FALSE(isIncludedInAlias(DK::ADInplaceOrView, DK::Autograd));
  EXPECT_TRUE(isIncludedInAlias(DK::NestedTensorCPU, DK::CompositeImplicitAutograd));
  EXPECT_FALSE(isIncludedInAlias(DK::NestedTensorCPU, DK::CompositeExplicitAutograd));
  EXPECT_FALSE(isIncludedInAlias(DK::BackendSelect, DK::CompositeImplicitAutograd));
  EXPECT_FALSE(isIncludedInAlias(DK::Python, DK::CompositeImplicitAutograd));
  EXPECT_TRUE(
      isIncludedInAlias(DK::AutogradNestedTensor, DK::CompositeImplicitAutogradNestedTensor));
  EXPECT_FALSE(isIncludedInAlias(DK::AutogradCPU, DK::CompositeImplicitAutogradNestedTensor));
  EXPECT_TRUE(isIncludedInAlias(DK::SparseCsrCPU, DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_FALSE(isIncludedInAlias(DK::SparseCPU, DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_FALSE(isIncludedInAlias(DK::XLA, DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_FALSE(isIncludedInAlias(DK::QuantizedLazy, DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_TRUE(isIncludedInAlias(DK::QuantizedCUDA, DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_TRUE(isIncludedInAlias(DK::Meta, DK::CompositeExplicitAutogradNonFunctional));
  // The NestedTensor functionality key itself is excluded from CEA/CEANF by name.
  EXPECT_FALSE(dispatch::runtimeDispatchKeySetHas(DK::CompositeExplicitAutograd, DK::NestedTensor));
  EXPECT_FALSE(dispatch::runtimeDispatchKeySetHas(DK::CompositeExplicitAutogradNonFunctional,
                                                  DK::NestedTensor));
}

TEST(KeySetsTest, NonAliasResolvesToItself) {
  const auto runtime = spec::runtimeKeys();
  for (const auto& k : runtime) {
    EXPECT_EQ(dispatch::getRuntimeDispatchKeySet(key(k.value)), DispatchKeySet(key(k.value)))
        << k.name;
    for (const auto& other : runtime) {
      EXPECT_EQ(dispatch::runtimeDispatchKeySetHas(key(k.value), key(other.value)),
                k.value == other.value)
          << k.name << " / " << other.name;
      EXPECT_EQ(dispatch::isIncludedInAlias(key(other.value), key(k.value)), k.value == other.value)
          << k.name << " / " << other.name;
    }
  }
}

TEST(KeySetsTest, UndefinedIsNeverIncluded) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_FALSE(dispatch::isIncludedInAlias(DK::Undefined, key(k.value))) << k.name;
  }
  for (const auto& c : kAliasCases) {
    EXPECT_FALSE(dispatch::getRuntimeDispatchKeySet(c.alias).has(DK::Undefined)) << c.alias;
  }
}

TEST(KeySetsTest, GetBackendKeySetFromAutograd) {
  // AutogradX -> {X}, except HIP and VE (empty).
  for (int b = 1; b <= spec::kNumBackends; ++b) {
    const DispatchKey autograd_key = key(102 + b);
    const DispatchKeySet got = dispatch::getBackendKeySetFromAutograd(autograd_key);
    if (b == kHIP || b == kVE) {
      EXPECT_TRUE(got.empty()) << autograd_key;
    } else {
      EXPECT_EQ(got, DispatchKeySet(key(42 + b))) << autograd_key;
      EXPECT_EQ(names(got), std::vector<std::string>{spec::kBackendNames[b]}) << autograd_key;
    }
  }
  EXPECT_EQ(dispatch::getBackendKeySetFromAutograd(DK::AutogradXLA), DispatchKeySet(DK::XLA));
  EXPECT_EQ(dispatch::getBackendKeySetFromAutograd(DK::AutogradMeta), DispatchKeySet(DK::Meta));
  EXPECT_TRUE(dispatch::getBackendKeySetFromAutograd(DK::AutogradHIP).empty());
  EXPECT_TRUE(dispatch::getBackendKeySetFromAutograd(DK::AutogradVE).empty());

  // AutogradNestedTensor -> all NestedTensor instances.
  std::vector<std::string> nested;
  for (int b = 1; b <= spec::kNumBackends; ++b)
    nested.push_back(std::string("NestedTensor") + spec::kBackendNames[b]);
  EXPECT_EQ(names(dispatch::getBackendKeySetFromAutograd(DK::AutogradNestedTensor)), nested);

  // AutogradOther -> autogradother_backends.
  EXPECT_EQ(dispatch::getBackendKeySetFromAutograd(DK::AutogradOther).raw_repr(), 0x1FF'BFFFu);

  // Any non-autograd key -> empty.
  for (const auto& k : spec::allKeys()) {
    if (k.functionality == kAutogradFunctionality || k.value == kAutogradOther ||
        k.value == kAutogradNestedTensor) {
      continue;
    }
    EXPECT_TRUE(dispatch::getBackendKeySetFromAutograd(key(k.value)).empty()) << k.name;
  }
  EXPECT_TRUE(dispatch::getBackendKeySetFromAutograd(DK::AutogradFunctionality).empty());
  EXPECT_TRUE(
      dispatch::getBackendKeySetFromAutograd(DK::StartOfAutogradFunctionalityBackends).empty());
}

TEST(KeySetsTest, IsBackendDispatchKey) {
  int count = 0;
  for (const auto& k : spec::runtimeKeys()) {
    EXPECT_EQ(dispatch::isBackendDispatchKey(key(k.value)), specCEA(k)) << k.name;
    count += dispatch::isBackendDispatchKey(key(k.value)) ? 1 : 0;
  }
  EXPECT_EQ(count, 50);
  EXPECT_FALSE(dispatch::isBackendDispatchKey(DK::Undefined));
  EXPECT_FALSE(dispatch::isBackendDispatchKey(DK::NestedTensor));
  EXPECT_FALSE(dispatch::isBackendDispatchKey(DK::NestedTensorCPU));
  EXPECT_FALSE(dispatch::isBackendDispatchKey(DK::AutogradCPU));
  EXPECT_FALSE(dispatch::isBackendDispatchKey(DK::AutogradOther));
  for (int a = spec::kFirstAlias; a <= spec::kLastAlias; ++a) {
    EXPECT_FALSE(dispatch::isBackendDispatchKey(key(a)));
  }
  EXPECT_FALSE(dispatch::isBackendDispatchKey(key(500)));
  EXPECT_TRUE(dispatch::isBackendDispatchKey(DK::CPU));
  EXPECT_TRUE(dispatch::isBackendDispatchKey(DK::HIP));
  EXPECT_TRUE(dispatch::isBackendDispatchKey(DK::SparseCsrCUDA));
}

TEST(KeySetsTest, GetAutogradKeyFromBackend) {
  // Section 1.6 table.
  const std::vector<std::pair<BackendComponent, DispatchKey>> table = {
      {BC::InvalidBit, DK::AutogradOther},
      {BC::CPUBit, DK::AutogradCPU},
      {BC::CUDABit, DK::AutogradCUDA},
      {BC::HIPBit, DK::AutogradOther},
      {BC::XLABit, DK::AutogradXLA},
      {BC::MPSBit, DK::AutogradMPS},
      {BC::IPUBit, DK::AutogradIPU},
      {BC::XPUBit, DK::AutogradXPU},
      {BC::HPUBit, DK::AutogradHPU},
      {BC::VEBit, DK::AutogradOther},
      {BC::LazyBit, DK::AutogradLazy},
      {BC::MetaBit, DK::AutogradMeta},
      {BC::PrivateUse1Bit, DK::AutogradPrivateUse1},
      {BC::PrivateUse2Bit, DK::AutogradPrivateUse2},
      {BC::PrivateUse3Bit, DK::AutogradPrivateUse3},
  };
  ASSERT_EQ(table.size(), 15u);
  for (const auto& [b, k] : table) {
    EXPECT_EQ(dispatch::getAutogradKeyFromBackend(b), k) << b;
    EXPECT_EQ(dispatch::getAutogradRelatedKeySetFromBackend(b),
              (DispatchKeySet{DK::ADInplaceOrView, k}))
        << b;
  }
}

TEST(KeySetsTest, GetAutocastRelatedKeySetFromBackend) {
  for (int b = 0; b <= spec::kNumBackends; ++b) {
    const DispatchKeySet got = dispatch::getAutocastRelatedKeySetFromBackend(backend(b));
    DispatchKeySet expected;
    if (b == kCPU) expected = DispatchKeySet(DK::AutocastCPU);
    if (b == kXPU) expected = DispatchKeySet(DK::AutocastXPU);
    if (b == kCUDA || b == kXLA) expected = DispatchKeySet(DK::AutocastCUDA);
    EXPECT_EQ(got, expected) << backend(b);
  }
}

}  // namespace
