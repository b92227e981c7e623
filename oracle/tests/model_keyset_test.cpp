// Unit tests of the reference model's keys, key sets, alias resolution and table index.
// Every expectation is a verified example of the spec (sections 1-3, 5.5, 6.2), so a failure
// here means the MODEL is wrong, not the library.

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/model/model.h"

namespace dispatch::model {
namespace {

// The trimmed table of docs/semantics.md §6.2, as cmake/flavours.list declares it.
Flavour mobileFlavour() { return flavourNamed("mobile"); }

using DK = DispatchKey;
using BC = BackendComponent;

std::vector<std::string> names(const std::vector<DK>& keys) {
  std::vector<std::string> out;
  for (DK k : keys) out.push_back(keyName(k));
  return out;
}

// Names of F's instances on every backend, CPU first: prefix + backend name.
std::vector<std::string> instanceNames(const std::string& prefix) {
  std::vector<std::string> out;
  for (const char* b : {"CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy",
                        "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3"}) {
    out.push_back(prefix + b);
  }
  return out;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// ---- 1. keys -------------------------------------------------------------------------------

TEST(ModelKeys, CountsAndClassification) {
  EXPECT_EQ(allBackends().size(), 14u);
  EXPECT_EQ(allFunctionalities().size(), 40u);
  EXPECT_EQ(perBackendFunctionalities().size(), 5u);
  EXPECT_EQ(aliasKeys().size(), 5u);
  EXPECT_EQ(allRuntimeKeys().size(), 105u);  // docs/semantics.md §1.5
  EXPECT_EQ(allFunctionalities().front(), DK::Dense);
  EXPECT_EQ(allFunctionalities().back(), DK::PythonDispatcher);

  EXPECT_TRUE(isRuntimeKey(DK::FPGA));
  EXPECT_TRUE(isRuntimeKey(DK::CPU));
  EXPECT_TRUE(isRuntimeKey(DK::AutogradPrivateUse3));
  EXPECT_TRUE(isRuntimeKey(DK::PythonDispatcher));
  EXPECT_FALSE(isRuntimeKey(DK::Undefined));
  EXPECT_FALSE(isRuntimeKey(DK::Dense));
  EXPECT_FALSE(isRuntimeKey(DK::AutogradFunctionality));
  EXPECT_FALSE(isRuntimeKey(DK::StartOfDenseBackends));
  EXPECT_FALSE(isRuntimeKey(DK::EndOfFunctionalityKeys));
  EXPECT_FALSE(isRuntimeKey(DK::Autograd));
  EXPECT_TRUE(isPlaceholder(DK::StartOfAutogradFunctionalityBackends));
  EXPECT_TRUE(isAliasKey(DK::CompositeExplicitAutogradNonFunctional));
  EXPECT_FALSE(isAliasKey(DK::AutogradOther));
  EXPECT_FALSE(isValidKey(static_cast<DK>(122)));

  int runtime = 0;
  for (int v = 0; v <= 121; ++v) runtime += isRuntimeKey(static_cast<DK>(v)) ? 1 : 0;
  EXPECT_EQ(runtime, 105);
}

TEST(ModelKeys, BlockArithmetic) {
  // docs/semantics.md §1.4: (key - StartOf<F>Backends) == backend value in every block.
  for (DK f : perBackendFunctionalities()) {
    for (BC b : allBackends()) {
      const DK k = perBackendInstance(f, b);
      EXPECT_TRUE(isPerBackendInstance(k)) << keyName(k);
      EXPECT_EQ(functionalityOf(k), f) << keyName(k);
      EXPECT_EQ(backendOf(k), b) << keyName(k);
    }
    EXPECT_TRUE(isPlaceholder(perBackendInstance(f, BC::InvalidBit)));
  }
  EXPECT_EQ(perBackendInstance(DK::Quantized, BC::CUDABit), DK::QuantizedCUDA);
  EXPECT_EQ(perBackendInstance(DK::FPGA, BC::CPUBit), DK::Undefined);
  EXPECT_EQ(functionalityOf(DK::SparseMeta), DK::Sparse);
  EXPECT_EQ(functionalityOf(DK::FPGA), DK::FPGA);
  EXPECT_EQ(functionalityOf(DK::EndOfFunctionalityKeys), DK::EndOfFunctionalityKeys);
  EXPECT_EQ(functionalityOf(DK::Autograd), DK::Undefined);
  EXPECT_EQ(backendOf(DK::FPGA), BC::InvalidBit);
  EXPECT_EQ(backendOf(DK::StartOfQuantizedBackends), BC::InvalidBit);
  EXPECT_EQ(keyName(DK::StartOfDenseBackends), "Unknown");
  EXPECT_EQ(keyName(DK::StartOfAutogradFunctionalityBackends), "AutogradUnknown");
  // docs/semantics.md §1.4 values.
  EXPECT_EQ(toUnderlying(DK::CPU), 43);
  EXPECT_EQ(toUnderlying(DK::QuantizedCPU), 58);
  EXPECT_EQ(toUnderlying(DK::SparseCPU), 73);
  EXPECT_EQ(toUnderlying(DK::NestedTensorCPU), 88);
  EXPECT_EQ(toUnderlying(DK::AutogradCPU), 103);
  EXPECT_EQ(toUnderlying(DK::PythonDispatcher), 40);
}

TEST(ModelKeys, AutogradKeyOfBackend) {
  // docs/semantics.md §1.6 table.
  EXPECT_EQ(autogradKeyOfBackend(BC::CPUBit), DK::AutogradCPU);
  EXPECT_EQ(autogradKeyOfBackend(BC::CUDABit), DK::AutogradCUDA);
  EXPECT_EQ(autogradKeyOfBackend(BC::XLABit), DK::AutogradXLA);
  EXPECT_EQ(autogradKeyOfBackend(BC::MPSBit), DK::AutogradMPS);
  EXPECT_EQ(autogradKeyOfBackend(BC::IPUBit), DK::AutogradIPU);
  EXPECT_EQ(autogradKeyOfBackend(BC::XPUBit), DK::AutogradXPU);
  EXPECT_EQ(autogradKeyOfBackend(BC::HPUBit), DK::AutogradHPU);
  EXPECT_EQ(autogradKeyOfBackend(BC::LazyBit), DK::AutogradLazy);
  EXPECT_EQ(autogradKeyOfBackend(BC::MetaBit), DK::AutogradMeta);
  EXPECT_EQ(autogradKeyOfBackend(BC::PrivateUse1Bit), DK::AutogradPrivateUse1);
  EXPECT_EQ(autogradKeyOfBackend(BC::PrivateUse2Bit), DK::AutogradPrivateUse2);
  EXPECT_EQ(autogradKeyOfBackend(BC::PrivateUse3Bit), DK::AutogradPrivateUse3);
  EXPECT_EQ(autogradKeyOfBackend(BC::HIPBit), DK::AutogradOther);
  EXPECT_EQ(autogradKeyOfBackend(BC::VEBit), DK::AutogradOther);
  EXPECT_EQ(autogradKeyOfBackend(BC::InvalidBit), DK::AutogradOther);
}

// ---- 2.1 representation --------------------------------------------------------------------

TEST(ModelKeySet, VerifiedReprs) {
  EXPECT_EQ(KeySet::of(DK::CPU).toRaw(), 0x4001u);
  EXPECT_EQ(KeySet::of(DK::CUDA).toRaw(), 0x4002u);
  EXPECT_EQ(KeySet::of(DK::QuantizedCPU).toRaw(), 0x80001u);
  EXPECT_EQ(KeySet::of(DK::AutogradCPU).toRaw(), 0x20'0000'0001u);
  EXPECT_EQ(KeySet::of(DK::FPGA).toRaw(), 0x8000u);
  EXPECT_EQ(KeySet::of(DK::Dense).toRaw(), 0x4000u);
  EXPECT_EQ(KeySet::of(DK::StartOfDenseBackends).toRaw(), 0x4000u);  // placeholder: no backend
  EXPECT_EQ(KeySet::of(DK::EndOfFunctionalityKeys).toRaw(), uint64_t{1} << 54);
  EXPECT_TRUE(KeySet::of(DK::Undefined).empty());
  for (DK alias : aliasKeys()) EXPECT_TRUE(KeySet::of(alias).empty()) << keyName(alias);
  EXPECT_TRUE(KeySet::of(static_cast<DK>(200)).empty());
  EXPECT_EQ(KeySet::ofBackend(BC::CUDABit).toRaw(), 0x2u);
  EXPECT_TRUE(KeySet::ofBackend(BC::InvalidBit).empty());
  EXPECT_EQ((KeySet{DK::CPU, DK::AutogradCUDA, DK::CUDA}).toRaw(), 0x20'0000'4003u);
}

TEST(ModelKeySet, FullAndFullAfter) {
  EXPECT_EQ(KeySet::full().toRaw(), 0x003F'FFFF'FFFF'FFFFu);
  EXPECT_FALSE(KeySet::full().hasAll(KeySet::of(DK::EndOfFunctionalityKeys)));
  EXPECT_EQ(KeySet::fullAfter(DK::AutogradCPU), KeySet::fullAfter(DK::AutogradFunctionality));
  EXPECT_TRUE(KeySet::fullAfter(DK::AutogradCPU).has(DK::AutogradOther));
  EXPECT_FALSE(KeySet::fullAfter(DK::AutogradCPU).has(DK::AutogradCPU));
  EXPECT_FALSE(KeySet::fullAfter(DK::AutogradCPU).has(DK::AutogradPrivateUse3));
  EXPECT_TRUE(KeySet::fullAfter(DK::AutogradCPU).has(DK::PythonDispatcher));
  // FULL_AFTER(CPU) keeps no functionality except PythonDispatcher.
  const KeySet after_cpu = KeySet::fullAfter(DK::CPU);
  EXPECT_EQ(after_cpu.functionalities(), std::set<DK>{DK::PythonDispatcher});
  EXPECT_EQ(after_cpu.backends().size(), 14u);
}

TEST(ModelKeySet, RawRoundTrip) {
  for (uint64_t raw : {uint64_t{0}, uint64_t{0x4001}, uint64_t{0x20'0000'4003},
                       uint64_t{0x003F'FFFF'FFFF'FFFF}, ~uint64_t{0}, uint64_t{1} << 63,
                       uint64_t{0x1FF'BFFF}, uint64_t{0xDEAD'BEEF'CAFE'F00D}}) {
    EXPECT_EQ(KeySet::fromRaw(raw).toRaw(), raw) << std::hex << raw;
  }
  const KeySet all = KeySet::fromRaw(~uint64_t{0});
  EXPECT_EQ(all.backends().size(), 14u);
  EXPECT_EQ(all.functionalities().size(), 40u);
  EXPECT_EQ(all.unknownFunctionalityValues(), (std::set<int>{41, 42, 43, 44, 45, 46, 47, 48,
                                                             49, 50}));
}

// ---- 2.2 - 2.4 membership, algebra, cross product ------------------------------------------

TEST(ModelKeySet, Membership) {
  const KeySet autograd_cpu{DK::AutogradCPU};
  EXPECT_TRUE(autograd_cpu.has(DK::AutogradCPU));
  EXPECT_FALSE(autograd_cpu.has(DK::CPU));       // Dense missing
  EXPECT_TRUE(autograd_cpu.hasAny(KeySet{DK::CPU}));  // via the CPU backend (docs/semantics.md §2.2 warning)
  EXPECT_TRUE(autograd_cpu.has(DK::AutogradFunctionality));
  EXPECT_TRUE(autograd_cpu.hasBackend(BC::CPUBit));
  EXPECT_FALSE(autograd_cpu.has(DK::Undefined));   // D3
  EXPECT_FALSE(autograd_cpu.has(DK::Autograd));    // D3
  EXPECT_TRUE(KeySet().empty());
  EXPECT_TRUE((KeySet{DK::CPU, DK::FPGA}).hasAll(KeySet{DK::FPGA}));
}

TEST(ModelKeySet, VerifiedAlgebraExample) {
  // docs/semantics.md §2.3: start from {CPU, AutogradCUDA, CUDA}, repr 0x2000004003.
  const KeySet s = KeySet::fromRaw(0x20'0000'4003);
  EXPECT_EQ(s, (KeySet{DK::CPU, DK::AutogradCUDA, DK::CUDA}));
  EXPECT_EQ(s.remove(DK::AutogradCUDA), (KeySet{DK::CPU, DK::CUDA}));
  EXPECT_EQ(s.remove(DK::AutogradCUDA).toRaw(), 0x4003u);
  EXPECT_EQ(s.remove(DK::CPU), (KeySet{DK::AutogradCPU, DK::AutogradCUDA}));
  EXPECT_EQ(s - KeySet{DK::CUDA}, s.remove(DK::CPU));
  EXPECT_EQ(s.removeBackend(BC::CUDABit), (KeySet{DK::CPU, DK::AutogradCPU}));
}

TEST(ModelKeySet, AlgebraMatchesBitwise) {
  const uint64_t a = 0x20'0400'4003, b = 0x08'0000'4401;
  const KeySet A = KeySet::fromRaw(a), B = KeySet::fromRaw(b);
  EXPECT_EQ((A | B).toRaw(), a | b);
  EXPECT_EQ((A & B).toRaw(), a & b);
  EXPECT_EQ((A ^ B).toRaw(), a ^ b);
  EXPECT_EQ((A - B).toRaw(), a & (0x3FFFu | ~b));
  EXPECT_EQ(A.add(DK::Named).toRaw(), a | (uint64_t{1} << 31));
}

TEST(ModelKeySet, CrossProduct) {
  // docs/semantics.md §2.4: these three are the same set.
  const KeySet x{DK::AutogradCUDA, DK::CPU};
  const KeySet y{DK::CUDA, DK::AutogradCPU};
  const KeySet z = KeySet{DK::AutogradFunctionality, DK::Dense} |
                   KeySet::ofBackends({BC::CUDABit, BC::CPUBit});
  EXPECT_EQ(x, y);
  EXPECT_EQ(y, z);
  EXPECT_EQ(names(x.runtimeKeys()),
            (std::vector<std::string>{"CPU", "CUDA", "AutogradCPU", "AutogradCUDA"}));
}

// ---- 2.5 priority queries ------------------------------------------------------------------

TEST(ModelKeySet, PriorityQueries) {
  EXPECT_EQ(KeySet().highestFunctionalityKey(), DK::Undefined);
  EXPECT_EQ(KeySet().highestPriorityTypeId(), DK::Undefined);
  EXPECT_EQ(KeySet().highestBackend(), BC::InvalidBit);
  EXPECT_EQ(KeySet::ofBackend(BC::CUDABit).highestPriorityTypeId(), DK::Undefined);
  EXPECT_EQ((KeySet{DK::Dense}).highestPriorityTypeId(), DK::StartOfDenseBackends);
  EXPECT_EQ(keyName((KeySet{DK::AutogradFunctionality}).highestPriorityTypeId()),
            "AutogradUnknown");
  // Harness note 16: {AutogradCPU} | {CUDA} has AutogradCUDA as its highest key.
  EXPECT_EQ((KeySet{DK::AutogradCPU} | KeySet{DK::CUDA}).highestPriorityTypeId(),
            DK::AutogradCUDA);
  EXPECT_EQ((KeySet{DK::PythonDispatcher, DK::CPU}).highestPriorityTypeId(),
            DK::PythonDispatcher);
  EXPECT_EQ((KeySet{DK::Meta, DK::AutogradMeta}).highestPriorityTypeId(), DK::AutogradMeta);
  EXPECT_EQ((KeySet{DK::CPU}).getBackendIndex(), 0);
  EXPECT_EQ(KeySet().getBackendIndex(), 0);
  EXPECT_EQ((KeySet{DK::CUDA, DK::CPU}).getBackendIndex(), 1);
  EXPECT_EQ((KeySet{DK::PrivateUse3}).getBackendIndex(), 13);
  EXPECT_EQ((KeySet{DK::AutogradMeta}).getBackendIndex(), 10);
  // highestPriorityBackendTypeId verified examples.
  EXPECT_EQ(highestPriorityBackendTypeId(KeySet{DK::AutogradCPU, DK::CPU}), DK::CPU);
  EXPECT_EQ(highestPriorityBackendTypeId(KeySet{DK::Functionalize, DK::SparseCUDA}),
            DK::SparseCUDA);
  EXPECT_EQ(highestPriorityBackendTypeId(KeySet{DK::CUDA, DK::QuantizedCUDA}),
            DK::QuantizedCUDA);
}

TEST(ModelKeySet, UnknownFunctionalityValues) {
  // D4: raw bits 54..63.
  const KeySet sentinel = KeySet::fromRaw(uint64_t{1} << 54);
  EXPECT_EQ(sentinel, KeySet::of(DK::EndOfFunctionalityKeys));
  EXPECT_EQ(sentinel.unknownFunctionalityValues(), std::set<int>{41});
  EXPECT_TRUE(sentinel.runtimeKeys().empty());
  EXPECT_EQ(sentinel.highestFunctionalityKey(), DK::EndOfFunctionalityKeys);
  EXPECT_EQ(tableIndex(sentinel, Flavour::Full), -1);
  EXPECT_EQ(tableIndex(sentinel, mobileFlavour()), -1);
  EXPECT_EQ(tableIndex(DK::EndOfFunctionalityKeys, Flavour::Full), -1);  // D5
  const KeySet high = KeySet::fromRaw((uint64_t{1} << 63) | 0x4001);
  EXPECT_EQ(names(high.runtimeKeys()), std::vector<std::string>{"CPU"});
  EXPECT_EQ(toUnderlying(high.highestFunctionalityKey()), 50);
  EXPECT_EQ(toString(high), "{CPU, unknown#50}");
  EXPECT_TRUE((high - KeySet::fromRaw(uint64_t{1} << 63)).unknownFunctionalityValues().empty());
  EXPECT_TRUE(sentinel.remove(DK::EndOfFunctionalityKeys).empty());
}

// ---- 2.6 iteration -------------------------------------------------------------------------

TEST(ModelKeySet, VerifiedIterationOrder) {
  const KeySet s = KeySet::ofBackends({BC::CPUBit, BC::CUDABit}) |
                   KeySet{DK::Dense, DK::FPGA, DK::AutogradFunctionality};
  EXPECT_EQ(names(s.runtimeKeys()), (std::vector<std::string>{"CPU", "CUDA", "FPGA",
                                                              "AutogradCPU", "AutogradCUDA"}));
  EXPECT_TRUE((KeySet{DK::Dense, DK::AutogradFunctionality}).runtimeKeys().empty());
  EXPECT_TRUE(KeySet::allBackendBits().runtimeKeys().empty());
}

TEST(ModelKeySet, FullIterationOrder) {
  // docs/semantics.md §2.6, the 105 keys of FULL written out.
  std::vector<std::string> expected = instanceNames("");
  append(expected, {"FPGA", "ORT", "Vulkan", "Metal"});
  append(expected, instanceNames("Quantized"));
  append(expected, {"CustomRNGKeyId", "MkldnnCPU"});
  append(expected, instanceNames("Sparse"));
  append(expected, {"SparseCsrCPU", "SparseCsrCUDA"});
  append(expected, instanceNames("NestedTensor"));
  append(expected, {"BackendSelect", "Python", "Fake", "FuncTorchDynamicLayerBackMode",
                    "Functionalize", "Named", "Conjugate", "Negative", "ZeroTensor",
                    "ADInplaceOrView", "AutogradOther"});
  append(expected, instanceNames("Autograd"));
  append(expected, {"AutogradNestedTensor", "Tracer", "AutocastCPU", "AutocastXPU",
                    "AutocastCUDA", "FuncTorchBatched", "FuncTorchVmapMode", "Batched",
                    "VmapMode", "FuncTorchGradWrapper", "DeferredInit", "PythonTLSSnapshot",
                    "FuncTorchDynamicLayerFrontMode", "TESTING_ONLY_GenericWrapper",
                    "TESTING_ONLY_GenericMode", "PythonDispatcher"});
  ASSERT_EQ(expected.size(), 105u);
  EXPECT_EQ(names(KeySet::full().runtimeKeys()), expected);
  EXPECT_EQ(names(allRuntimeKeys()), expected);
}

TEST(ModelKeySet, Printing) {
  EXPECT_EQ(toString(KeySet{}), "{}");
  EXPECT_EQ(toString(KeySet{DK::AutogradCPU, DK::CPU}), "{CPU, AutogradCPU}");
  EXPECT_EQ(toString(KeySet{DK::Dense}), "{Dense}");
  EXPECT_EQ(toString(KeySet::ofBackends({BC::CPUBit, BC::CUDABit})), "{CPUBit, CUDABit}");
  EXPECT_EQ(toString(KeySet{DK::FPGA} | KeySet::ofBackend(BC::CPUBit)), "{FPGA, CPUBit}");
  EXPECT_EQ(toDebugString(KeySet{DK::CPU}), "{CPU} (raw 0x4001)");
}

// ---- 2.7 predefined sets -------------------------------------------------------------------

TEST(ModelKeySet, PredefinedSetReprs) {
  EXPECT_EQ(autogradDispatchKeyset().toRaw(), 0x70'0000'0000u);
  EXPECT_EQ(defaultIncludedSet().toRaw(), 0x8'0400'0000u);
  EXPECT_EQ(defaultExcludedSet().toRaw(), 0x700'0000'0000u);
  EXPECT_EQ(autogradOtherBackends().toRaw(), 0x1FF'BFFFu);
  EXPECT_EQ(autogradOtherBackends().runtimeKeys().size(), 36u);
  EXPECT_EQ((KeySet{DK::Dense, DK::Quantized, DK::Sparse} | KeySet::allBackendBits()).toRaw(),
            0x48'7FFFu);
  EXPECT_FALSE(autogradOtherBackends().has(DK::CPU));  // no Dense
  EXPECT_TRUE(autogradOtherBackends().has(DK::QuantizedHIP));
}

// ---- 2.8 alias resolution ------------------------------------------------------------------

TEST(ModelAlias, RuntimeKeyCounts) {
  EXPECT_EQ(runtimeKeysOfAlias(DK::Autograd).size(), 16u);
  EXPECT_EQ(runtimeKeysOfAlias(DK::CompositeImplicitAutograd).size(), 80u);
  EXPECT_EQ(runtimeKeysOfAlias(DK::CompositeImplicitAutogradNestedTensor).size(), 15u);
  EXPECT_EQ(runtimeKeysOfAlias(DK::CompositeExplicitAutograd).size(), 50u);
  EXPECT_EQ(runtimeKeysOfAlias(DK::CompositeExplicitAutogradNonFunctional).size(), 32u);
  EXPECT_EQ(runtimeKeysOfAlias(DK::CPU), std::vector<DK>{DK::CPU});
  EXPECT_TRUE(runtimeKeysOfAlias(DK::Dense).empty());
  EXPECT_TRUE(runtimeKeysOfAlias(DK::Undefined).empty());
  EXPECT_TRUE(runtimeKeysOfAlias(DK::StartOfSparseBackends).empty());
  EXPECT_EQ(names(runtimeKeysOfAlias(DK::Autograd)).front(), "AutogradOther");
  EXPECT_EQ(names(runtimeKeysOfAlias(DK::Autograd)).back(), "AutogradNestedTensor");
}

TEST(ModelAlias, ExplicitListsAgreeWithSetsAndInclusion) {
  // Three independent statements of docs/semantics.md §2.8 agree over FULL ("verified" in the spec).
  for (DK alias : aliasKeys()) {
    const std::vector<DK> explicit_keys = runtimeKeysOfAlias(alias);
    EXPECT_EQ(explicit_keys, aliasKeySet(alias).runtimeKeys()) << keyName(alias);
    std::vector<DK> included;
    for (DK k : allRuntimeKeys()) {
      if (isIncludedInAlias(k, alias)) included.push_back(k);
    }
    EXPECT_EQ(explicit_keys, included) << keyName(alias);
    EXPECT_FALSE(isIncludedInAlias(DK::Undefined, alias));
  }
}

TEST(ModelAlias, SpecificMemberships) {
  const DK CEANF = DK::CompositeExplicitAutogradNonFunctional;
  EXPECT_FALSE(isIncludedInAlias(DK::SparseCPU, CEANF));
  EXPECT_FALSE(isIncludedInAlias(DK::XLA, CEANF));
  EXPECT_FALSE(isIncludedInAlias(DK::QuantizedLazy, CEANF));
  EXPECT_TRUE(isIncludedInAlias(DK::QuantizedCUDA, CEANF));
  EXPECT_TRUE(isIncludedInAlias(DK::FPGA, CEANF));
  EXPECT_FALSE(isIncludedInAlias(DK::NestedTensorCPU, DK::CompositeExplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DK::NestedTensorCPU, DK::CompositeImplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DK::AutogradHIP, DK::Autograd));
  EXPECT_FALSE(isIncludedInAlias(DK::ADInplaceOrView, DK::CompositeImplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DK::CPU, DK::CPU));
  EXPECT_FALSE(isIncludedInAlias(DK::CPU, DK::CUDA));
}

TEST(ModelAlias, BackendKeySetFromAutograd) {
  EXPECT_EQ(getBackendKeySetFromAutograd(DK::AutogradCPU), KeySet{DK::CPU});
  EXPECT_EQ(getBackendKeySetFromAutograd(DK::AutogradMeta), KeySet{DK::Meta});
  EXPECT_EQ(getBackendKeySetFromAutograd(DK::AutogradPrivateUse2), KeySet{DK::PrivateUse2});
  EXPECT_TRUE(getBackendKeySetFromAutograd(DK::AutogradHIP).empty());
  EXPECT_TRUE(getBackendKeySetFromAutograd(DK::AutogradVE).empty());
  EXPECT_EQ(getBackendKeySetFromAutograd(DK::AutogradNestedTensor).runtimeKeys().size(), 14u);
  EXPECT_EQ(getBackendKeySetFromAutograd(DK::AutogradOther), autogradOtherBackends());
  EXPECT_TRUE(getBackendKeySetFromAutograd(DK::CPU).empty());
  EXPECT_TRUE(getBackendKeySetFromAutograd(DK::Tracer).empty());
}

TEST(ModelAlias, IsBackendDispatchKey) {
  std::vector<DK> backends;
  for (DK k : allRuntimeKeys()) {
    if (isBackendDispatchKey(k)) backends.push_back(k);
  }
  EXPECT_EQ(backends, runtimeKeysOfAlias(DK::CompositeExplicitAutograd));
  EXPECT_FALSE(isBackendDispatchKey(DK::NestedTensorCPU));
  EXPECT_FALSE(isBackendDispatchKey(DK::NestedTensor));
  EXPECT_FALSE(isBackendDispatchKey(DK::Undefined));
  EXPECT_FALSE(isBackendDispatchKey(DK::CompositeExplicitAutograd));
}

// ---- 5.5 tensor key sets -------------------------------------------------------------------

TEST(ModelTensorKeySet, VerifiedExamples) {
  EXPECT_EQ(tensorKeySet(KeySet{DK::CPU}),
            (KeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::CPU}).toRaw(), 0x128'0000'4001u);  // docs/semantics.md §3.4
  EXPECT_EQ(tensorKeySet(KeySet{DK::SparseCPU}),
            (KeySet{DK::SparseCPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::QuantizedCPU}),
            (KeySet{DK::QuantizedCPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::Meta}),
            (KeySet{DK::Meta, DK::ADInplaceOrView, DK::AutogradMeta}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::FPGA}),
            (KeySet{DK::FPGA, DK::ADInplaceOrView, DK::AutogradOther}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::CUDA}, /*inference_mode=*/true),
            (KeySet{DK::CUDA, DK::AutocastCUDA}));
  EXPECT_EQ(tensorKeySet(KeySet{DK::CPU, DK::Python}), tensorKeySet(KeySet{DK::CPU}));
}

// ---- 3 table index -------------------------------------------------------------------------

TEST(ModelIndex, Sizes) {
  EXPECT_EQ(tableSize(Flavour::Full), 106);
  EXPECT_EQ(tableSize(mobileFlavour()), 8);
  // The functionality walk equals Undefined + FULL iteration (two independent statements).
  std::vector<DK> expected = {DK::Undefined};
  expected.insert(expected.end(), allRuntimeKeys().begin(), allRuntimeKeys().end());
  EXPECT_EQ(tableSlots(Flavour::Full), expected);
}

TEST(ModelIndex, FunctionalityOffsets) {
  // docs/semantics.md §1.3 "slots" column: first slot of functionality 1..40.
  const int first_slot[41] = {0,  1,  15, 16, 17, 18, 19, 33, 34, 35, 49,  50,  51, 65,
                              66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,  90,  91, 92,
                              93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105};
  for (int f = 1; f <= 40; ++f) {
    const DK key = static_cast<DK>(f);
    const DK first = isPerBackendFunctionality(key) ? perBackendInstance(key, BC::CPUBit) : key;
    EXPECT_EQ(tableIndex(first, Flavour::Full), first_slot[f]) << keyName(key);
  }
  EXPECT_EQ(tableIndex(DK::NestedTensorPrivateUse3, Flavour::Full), 64);
  EXPECT_EQ(tableIndex(DK::AutogradPrivateUse3, Flavour::Full), 89);
}

TEST(ModelIndex, VerifiedExamples) {
  // docs/semantics.md §3.4 table: key set, index, highestPriorityTypeId.
  struct Row {
    KeySet ks;
    int index;
    DK type_id;
  };
  const std::vector<Row> rows = {
      {KeySet::fromRaw(0x4001), 1, DK::CPU},
      {KeySet::fromRaw(0x4003), 2, DK::CUDA},
      {KeySet{DK::QuantizedCUDA}, 20, DK::QuantizedCUDA},
      {KeySet::fromRaw(0x20'0000'4001), 76, DK::AutogradCPU},
      {KeySet::fromRaw(0x20'0000'4003), 77, DK::AutogradCUDA},
      {KeySet::fromRaw(0x20'0000'4400), 86, DK::AutogradMeta},
      {KeySet{DK::SparseCUDA, DK::BackendSelect}, 65, DK::BackendSelect},
      {KeySet{DK::FPGA, DK::AutogradOther}, 75, DK::AutogradOther},
      {KeySet{DK::NestedTensorCUDA, DK::AutogradNestedTensor}, 90, DK::AutogradNestedTensor},
      {KeySet{DK::PythonDispatcher, DK::CPU}, 105, DK::PythonDispatcher},
      {KeySet{}, 0, DK::Undefined},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(tableIndex(r.ks, Flavour::Full), r.index) << toDebugString(r.ks);
    EXPECT_EQ(r.ks.highestPriorityTypeId(), r.type_id) << toDebugString(r.ks);
  }
  EXPECT_EQ(KeySet::fromRaw(0x20'0000'4400), (KeySet{DK::Meta, DK::AutogradMeta}));
}

TEST(ModelIndex, Quirks) {
  // docs/semantics.md §3.5.
  EXPECT_EQ(tableIndex(KeySet{DK::Dense}, Flavour::Full), 1);
  EXPECT_EQ(tableIndex(KeySet{DK::AutogradFunctionality}, Flavour::Full), 76);
  for (DK alias : aliasKeys()) EXPECT_EQ(tableIndex(alias, Flavour::Full), 0) << keyName(alias);
  EXPECT_EQ(tableIndex(DK::Undefined, Flavour::Full), 0);
  // Every runtime key maps to its own slot.
  for (DK k : allRuntimeKeys()) {
    const int idx = tableIndex(k, Flavour::Full);
    ASSERT_GE(idx, 0) << keyName(k);
    EXPECT_EQ(tableSlots(Flavour::Full)[static_cast<size_t>(idx)], k);
  }
}

TEST(ModelIndex, MobileSlotMap) {
  // docs/semantics.md §6.2.
  EXPECT_EQ(names(tableSlots(mobileFlavour())),
            (std::vector<std::string>{"Undefined", "CPU", "QuantizedCPU", "SparseCPU",
                                      "BackendSelect", "ADInplaceOrView", "AutogradOther",
                                      "AutogradCPU"}));
  EXPECT_EQ(tableIndex(KeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU}, mobileFlavour()), 7);
  EXPECT_EQ(tableIndex(KeySet{}, mobileFlavour()), 0);
  EXPECT_EQ(tableIndex(DK::QuantizedCPU, mobileFlavour()), 2);
  EXPECT_EQ(tableIndex(DK::ADInplaceOrView, mobileFlavour()), 5);
  for (DK k : {DK::CUDA, DK::Named, DK::Conjugate, DK::AutogradCUDA, DK::Python,
               DK::PythonDispatcher, DK::NestedTensorCPU}) {
    EXPECT_EQ(tableIndex(k, mobileFlavour()), -1) << keyName(k);
  }
  EXPECT_EQ(tableIndex(KeySet{DK::Dense}, mobileFlavour()), -1);  // D15: "Unknown"
  EXPECT_EQ(tableIndex(DK::Autograd, mobileFlavour()), 0);       // alias: empty set
  int present = 0;
  for (DK k : allRuntimeKeys()) present += tableIndex(k, mobileFlavour()) >= 0 ? 1 : 0;
  EXPECT_EQ(present, 7);
}

TEST(ModelFlavours, EveryDeclarationIsATable) {
  ASSERT_GE(allFlavours().size(), 4u);  // full, mobile, lite, mobile_gpu at least
  EXPECT_EQ(allFlavours().front(), Flavour::Full);
  EXPECT_FALSE(isTrimmed(Flavour::Full));
  for (Flavour f : allFlavours()) {
    SCOPED_TRACE(toString(f));
    EXPECT_EQ(flavourNamed(toString(f)), f);
    const auto& slots = tableSlots(f);
    ASSERT_FALSE(slots.empty());
    EXPECT_EQ(slots.front(), DK::Undefined);
    EXPECT_EQ(tableSize(f), static_cast<int>(slots.size()));
    for (size_t i = 0; i < slots.size(); ++i) EXPECT_EQ(tableIndex(slots[i], f), static_cast<int>(i));
    EXPECT_EQ(tableIndex(KeySet{}, f), 0);
  }
  EXPECT_EQ(names(tableSlots(flavourNamed("lite"))),
            (std::vector<std::string>{"Undefined", "CPU", "QuantizedCPU", "BackendSelect",
                                      "ADInplaceOrView", "AutogradCPU"}));
  // No AutogradOther in lite: a HIP tensor's autograd key has no slot there.
  EXPECT_EQ(tableIndex(KeySet{DK::HIP, DK::ADInplaceOrView, DK::AutogradOther}, flavourNamed("lite")), -1);
  EXPECT_EQ(tableIndex(DK::Vulkan, flavourNamed("mobile_gpu")), 2);
  EXPECT_THROW(flavourNamed("no_such_flavour"), std::invalid_argument);
}

}  // namespace
}  // namespace dispatch::model
