// Tests for DispatchKeySet (docs/semantics.md §2 of docs/semantics.md),
// modelled on c10/test/core/DispatchKeySet_test.cpp: every key (Empty, Singleton) and every pair
// of runtime keys (Doubleton). Expected key lists are computed by spec_model.h from the pair
// (functionality bits, backend bits) of section 2.4, not with the library's iterator.

#include "dispatch/dispatch_key_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/key_sets.h"
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

DispatchKeySet raw(uint64_t bits) { return DispatchKeySet(DispatchKeySet::RAW, bits); }

std::vector<int> iterate(DispatchKeySet ks) {
  std::vector<int> out;
  for (DispatchKey k : ks) out.push_back(value(k));
  return out;
}

std::vector<int> iteratePostIncrement(DispatchKeySet ks) {
  std::vector<int> out;
  for (auto it = ks.begin(); it != ks.end();) out.push_back(value(*it++));
  return out;
}

std::vector<std::string> names(const std::vector<int>& values) {
  std::vector<std::string> out;
  for (int v : values) out.emplace_back(dispatch::toString(key(v)));
  return out;
}

std::string str(DispatchKeySet ks) {
  std::ostringstream out;
  out << ks;
  return out.str();
}

// --- construction (section 2.1) -------------------------------------------------------------

TEST(DispatchKeySetTest, DefaultIsZero) {
  constexpr DispatchKeySet empty;
  static_assert(empty.raw_repr() == 0);
  EXPECT_EQ(empty.raw_repr(), 0u);
  EXPECT_TRUE(empty.empty());
}

TEST(DispatchKeySetTest, VerifiedReprExamples) {
  EXPECT_EQ(DispatchKeySet(DK::CPU).raw_repr(), 0x4001u);
  EXPECT_EQ(DispatchKeySet(DK::CUDA).raw_repr(), 0x4002u);
  EXPECT_EQ(DispatchKeySet(DK::QuantizedCPU).raw_repr(), 0x80001u);
  EXPECT_EQ(DispatchKeySet(DK::AutogradCPU).raw_repr(), 0x20'0000'0001u);
  EXPECT_EQ(DispatchKeySet(DK::FPGA).raw_repr(), 0x8000u);
  EXPECT_EQ(DispatchKeySet(DK::Dense).raw_repr(), 0x4000u);
}

TEST(DispatchKeySetTest, ReprOfEveryKey) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(DispatchKeySet(key(k.value)).raw_repr(), spec::reprOf(k)) << k.name;
  }
  // Section 2.1 constructor table, row by row.
  EXPECT_TRUE(DispatchKeySet(DK::Undefined).empty());
  EXPECT_EQ(DispatchKeySet(DK::EndOfFunctionalityKeys).raw_repr(), uint64_t{1} << 54);
  EXPECT_EQ(DispatchKeySet(DK::StartOfQuantizedBackends).raw_repr(), uint64_t{1} << 19);
  EXPECT_EQ(DispatchKeySet(DK::PythonDispatcher).raw_repr(), uint64_t{1} << 53);
  EXPECT_EQ(DispatchKeySet(DK::AutogradPrivateUse3).raw_repr(),
            (uint64_t{1} << 37) | (uint64_t{1} << 13));
  for (DK alias :
       {DK::Autograd, DK::CompositeImplicitAutograd, DK::CompositeImplicitAutogradNestedTensor,
        DK::CompositeExplicitAutograd, DK::CompositeExplicitAutogradNonFunctional}) {
    EXPECT_TRUE(DispatchKeySet(alias).empty()) << alias;
  }
  for (int v : {122, 200, 65535}) EXPECT_TRUE(DispatchKeySet(key(v)).empty()) << v;
}

TEST(DispatchKeySetTest, BackendComponentConstructor) {
  EXPECT_TRUE(DispatchKeySet(BC::InvalidBit).empty());
  for (int b = 1; b <= spec::kNumBackends; ++b) {
    EXPECT_EQ(DispatchKeySet(backend(b)).raw_repr(), uint64_t{1} << (b - 1)) << b;
  }
  EXPECT_EQ((DispatchKeySet{BC::CPUBit, BC::CUDABit, BC::PrivateUse3Bit}).raw_repr(), 0x2003u);
}

TEST(DispatchKeySetTest, ListConstructorIsUnion) {
  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::AutogradCPU}).raw_repr(), 0x20'0000'4001u);
  EXPECT_EQ(
      (DispatchKeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}).raw_repr(),
      0x128'0000'4001u);
  EXPECT_EQ((DispatchKeySet{DK::Undefined, DK::Autograd}).raw_repr(), 0u);
  EXPECT_EQ(DispatchKeySet(DispatchKeySet::RAW, 0x1234).raw_repr(), 0x1234u);
}

TEST(DispatchKeySetTest, Full) {
  const DispatchKeySet full(DispatchKeySet::FULL);
  EXPECT_EQ(full.raw_repr(), 0x003F'FFFF'FFFF'FFFFu);
  EXPECT_FALSE(full.has(DK::EndOfFunctionalityKeys));  // the sentinel is not in FULL
  for (const auto& k : spec::runtimeKeys()) EXPECT_TRUE(full.has(key(k.value))) << k.name;
  for (int b = 1; b <= spec::kNumBackends; ++b) EXPECT_TRUE(full.has_backend(backend(b)));
}

TEST(DispatchKeySetTest, FullIterationOrder) {
  // Section 2.6 "Verified orders", written out name by name.
  std::vector<std::string> expected;
  auto perBackend = [&](const std::string& prefix) {
    for (int b = 1; b <= spec::kNumBackends; ++b)
      expected.push_back(prefix + spec::kBackendNames[b]);
  };
  perBackend("");
  for (auto n : {"FPGA", "ORT", "Vulkan", "Metal"}) expected.emplace_back(n);
  perBackend("Quantized");
  for (auto n : {"CustomRNGKeyId", "MkldnnCPU"}) expected.emplace_back(n);
  perBackend("Sparse");
  for (auto n : {"SparseCsrCPU", "SparseCsrCUDA"}) expected.emplace_back(n);
  perBackend("NestedTensor");
  for (auto n :
       {"BackendSelect", "Python", "Fake", "FuncTorchDynamicLayerBackMode", "Functionalize",
        "Named", "Conjugate", "Negative", "ZeroTensor", "ADInplaceOrView", "AutogradOther"}) {
    expected.emplace_back(n);
  }
  perBackend("Autograd");
  for (auto n :
       {"AutogradNestedTensor", "Tracer", "AutocastCPU", "AutocastXPU", "AutocastCUDA",
        "FuncTorchBatched", "FuncTorchVmapMode", "Batched", "VmapMode", "FuncTorchGradWrapper",
        "DeferredInit", "PythonTLSSnapshot", "FuncTorchDynamicLayerFrontMode",
        "TESTING_ONLY_GenericWrapper", "TESTING_ONLY_GenericMode", "PythonDispatcher"}) {
    expected.emplace_back(n);
  }
  ASSERT_EQ(expected.size(), 105u);

  const DispatchKeySet full(DispatchKeySet::FULL);
  const auto got = iterate(full);
  EXPECT_EQ(names(got), expected);
  EXPECT_EQ(got, spec::expectedIteration(~uint64_t{0}, ~uint32_t{0}));
  EXPECT_EQ(iteratePostIncrement(full), got);
  EXPECT_EQ(full.size(), 105);
  // Ascending priority: (functionality, backend) strictly increasing.
  for (size_t i = 1; i < got.size(); ++i) {
    const auto a = key(got[i - 1]), b = key(got[i]);
    const auto fa = value(dispatch::toFunctionalityKey(a)),
               fb = value(dispatch::toFunctionalityKey(b));
    EXPECT_TRUE(fa < fb ||
                (fa == fb && dispatch::toBackendComponent(a) < dispatch::toBackendComponent(b)))
        << a << " before " << b;
  }
}

TEST(DispatchKeySetTest, FullAfter) {
  const uint64_t python_dispatcher = uint64_t{1} << 53;
  // FULL_AFTER(t) = (1 << (14 + f(t) - 1)) - 1, plus PythonDispatcher (section 2.1).
  for (int t = 1; t < spec::kNumFunctionalityKeys; ++t) {
    const DispatchKeySet after(DispatchKeySet::FULL_AFTER, key(t));
    EXPECT_EQ(after.raw_repr(), ((uint64_t{1} << (13 + t)) - 1) | python_dispatcher)
        << spec::kFunctionalityNames[t];
    for (const auto& k : spec::runtimeKeys()) {
      const bool expected = k.functionality < t || k.value == 40;
      EXPECT_EQ(after.has(key(k.value)), expected)
          << "FULL_AFTER(" << spec::kFunctionalityNames[t] << ").has(" << k.name << ")";
    }
  }
  // FULL_AFTER(AutogradCPU) == FULL_AFTER(AutogradFunctionality): keeps AutogradOther, drops
  // every Autograd<backend>.
  const DispatchKeySet after_autograd_cpu(DispatchKeySet::FULL_AFTER, DK::AutogradCPU);
  EXPECT_EQ(after_autograd_cpu,
            DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::AutogradFunctionality));
  EXPECT_TRUE(after_autograd_cpu.has(DK::AutogradOther));
  EXPECT_TRUE(after_autograd_cpu.has(DK::ADInplaceOrView));
  EXPECT_TRUE(after_autograd_cpu.has(DK::CPU));
  EXPECT_TRUE(after_autograd_cpu.has(DK::PythonDispatcher));
  for (int b = 1; b <= spec::kNumBackends; ++b) {
    EXPECT_FALSE(after_autograd_cpu.has(key(102 + b)));
  }
  EXPECT_FALSE(after_autograd_cpu.has(DK::AutogradNestedTensor));
  EXPECT_FALSE(after_autograd_cpu.has(DK::Tracer));
  // FULL_AFTER(CPU) keeps no functionality but PythonDispatcher (verified).
  const DispatchKeySet after_cpu(DispatchKeySet::FULL_AFTER, DK::CPU);
  EXPECT_EQ(after_cpu.raw_repr(), 0x3FFFu | python_dispatcher);
  EXPECT_EQ(names(iterate(after_cpu)), std::vector<std::string>{"PythonDispatcher"});
  // FULL_AFTER(PythonDispatcher) is FULL.
  EXPECT_EQ(DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::PythonDispatcher),
            DispatchKeySet(DispatchKeySet::FULL));
}

// --- Empty / Singleton / Doubleton (c10 DispatchKeySet_test) ---------------------------------

TEST(DispatchKeySetTest, Empty) {
  const DispatchKeySet empty;
  for (const auto& k : spec::allKeys()) {
    if (k.value == 0) continue;  // has(Undefined) is a precondition violation in c10
    EXPECT_FALSE(empty.has(key(k.value))) << k.name;
  }
  for (int b = 0; b <= spec::kNumBackends; ++b) EXPECT_FALSE(empty.has_backend(backend(b)));
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.highestPriorityTypeId(), DK::Undefined);
  EXPECT_EQ(empty.highestFunctionalityKey(), DK::Undefined);
  EXPECT_EQ(empty.highestBackendKey(), BC::InvalidBit);
  EXPECT_EQ(empty.getBackendIndex(), 0);
  EXPECT_TRUE(empty.begin() == empty.end());
  EXPECT_EQ(*empty.begin(), DK::EndOfFunctionalityKeys);
  EXPECT_EQ(*empty.end(), DK::EndOfFunctionalityKeys);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(str(empty), "DispatchKeySet()");
}

TEST(DispatchKeySetTest, SingletonOfEveryRuntimeKey) {
  const auto runtime = spec::runtimeKeys();
  for (const auto& k : runtime) {
    const DispatchKeySet ks(key(k.value));
    EXPECT_FALSE(ks.empty()) << k.name;
    EXPECT_TRUE(ks.has(key(k.value))) << k.name;
    for (const auto& other : runtime) {
      if (other.value != k.value) {
        EXPECT_FALSE(ks.has(key(other.value))) << k.name << " " << other.name;
      }
    }
    EXPECT_EQ(ks.highestPriorityTypeId(), key(k.value)) << k.name;
    EXPECT_EQ(value(ks.highestFunctionalityKey()), k.functionality) << k.name;
    EXPECT_EQ(ks.highestBackendKey(), backend(k.backend)) << k.name;
    EXPECT_EQ(iterate(ks), std::vector<int>{k.value}) << k.name;
    EXPECT_EQ(iteratePostIncrement(ks), std::vector<int>{k.value}) << k.name;
    EXPECT_EQ(ks.size(), 1) << k.name;
    EXPECT_EQ(str(ks), "DispatchKeySet(" + k.name + ")");
    // add/remove round trip; remove clears only the functionality bit.
    EXPECT_EQ(DispatchKeySet().add(key(k.value)), ks) << k.name;
    EXPECT_EQ(ks.remove(key(k.value)).raw_repr(), spec::backendBit(k.backend)) << k.name;
    EXPECT_TRUE(ks.remove(key(k.value)).begin() == ks.remove(key(k.value)).end()) << k.name;
  }
}

TEST(DispatchKeySetTest, DoubletonOfEveryPairOfRuntimeKeys) {
  const auto runtime = spec::runtimeKeys();
  ASSERT_EQ(runtime.size(), 105u);
  int pairs = 0;
  for (size_t i = 0; i < runtime.size(); ++i) {
    for (size_t j = i + 1; j < runtime.size(); ++j) {
      const auto& a = runtime[i];
      const auto& b = runtime[j];
      const DispatchKeySet ks{key(a.value), key(b.value)};
      ++pairs;
      // The model: (functionality set, backend set), section 2.4.
      const uint64_t F = (uint64_t{1} << a.functionality) | (uint64_t{1} << b.functionality);
      const uint32_t B = (a.backend ? 1u << a.backend : 0u) | (b.backend ? 1u << b.backend : 0u);
      const std::vector<int> expected = spec::expectedIteration(F, B);

      EXPECT_EQ(ks.raw_repr(), spec::reprOf(a) | spec::reprOf(b)) << a.name << "," << b.name;
      EXPECT_EQ(ks, DispatchKeySet(key(a.value)) | DispatchKeySet(key(b.value)));
      EXPECT_EQ(ks, DispatchKeySet(key(b.value)).add(key(a.value)));
      ASSERT_TRUE(ks.has(key(a.value))) << a.name << "," << b.name;
      ASSERT_TRUE(ks.has(key(b.value))) << a.name << "," << b.name;
      const std::vector<int> got = iterate(ks);
      ASSERT_EQ(got, expected) << a.name << "," << b.name << ": got " << str(ks);
      // Membership agrees with iteration over every runtime key.
      for (const auto& c : runtime) {
        const bool in = std::find(expected.begin(), expected.end(), c.value) != expected.end();
        ASSERT_EQ(ks.has(key(c.value)), in) << a.name << "," << b.name << " has " << c.name;
      }
      ASSERT_EQ(value(ks.highestPriorityTypeId()), expected.back()) << a.name << "," << b.name;
      ASSERT_EQ(ks.size(), static_cast<int>(expected.size()));
    }
  }
  EXPECT_EQ(pairs, 105 * 104 / 2);
}

TEST(DispatchKeySetTest, DoubletonCrossProductExamples) {
  // Section 2.4: these three are the same set, with the four cross keys.
  const DispatchKeySet a{DK::AutogradCUDA, DK::CPU};
  const DispatchKeySet b{DK::CUDA, DK::AutogradCPU};
  const DispatchKeySet c = DispatchKeySet{DK::AutogradFunctionality, DK::Dense} |
                           DispatchKeySet{BC::CUDABit, BC::CPUBit};
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(str(a), "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)");
  // Synthesis item 16: {AutogradCPU} | {CUDA} has AutogradCUDA as its highest key, not the
  // "max" of AutogradCPU and CUDA.
  const DispatchKeySet d = DispatchKeySet(DK::AutogradCPU) | DispatchKeySet(DK::CUDA);
  EXPECT_EQ(d.highestPriorityTypeId(), DK::AutogradCUDA);
  EXPECT_TRUE(d.has(DK::CPU));
  // Different functionalities and backends, plain mixed in.
  const DispatchKeySet e{DK::QuantizedXLA, DK::SparseMeta, DK::FPGA};
  EXPECT_EQ(str(e), "DispatchKeySet(FPGA, QuantizedXLA, QuantizedMeta, SparseXLA, SparseMeta)");
}

// --- printing and iteration (section 2.6) ----------------------------------------------------

TEST(DispatchKeySetTest, PrintingLowestPriorityFirst) {
  EXPECT_EQ(str(DispatchKeySet{DK::AutogradCPU, DK::CPU}), "DispatchKeySet(CPU, AutogradCPU)");
  EXPECT_EQ(dispatch::toString(DispatchKeySet{DK::AutogradCPU, DK::CPU}),
            "DispatchKeySet(CPU, AutogradCPU)");
  EXPECT_EQ(str(DispatchKeySet{DK::PythonDispatcher, DK::FPGA, DK::BackendSelect}),
            "DispatchKeySet(FPGA, BackendSelect, PythonDispatcher)");
}

TEST(DispatchKeySetTest, VerifiedIterationOrder) {
  const DispatchKeySet ks = DispatchKeySet{BC::CPUBit, BC::CUDABit} |
                            DispatchKeySet{DK::Dense, DK::FPGA, DK::AutogradFunctionality};
  EXPECT_EQ(names(iterate(ks)),
            (std::vector<std::string>{"CPU", "CUDA", "FPGA", "AutogradCPU", "AutogradCUDA"}));
  EXPECT_EQ(str(ks), "DispatchKeySet(CPU, CUDA, FPGA, AutogradCPU, AutogradCUDA)");
}

TEST(DispatchKeySetTest, BuildingBlocksOnlyIterateEmpty) {
  const std::vector<DispatchKeySet> sets = {
      DispatchKeySet(DK::Dense),
      DispatchKeySet(DK::AutogradFunctionality),
      DispatchKeySet{DK::Dense, DK::Quantized, DK::Sparse, DK::NestedTensor,
                     DK::AutogradFunctionality},
      DispatchKeySet(BC::CPUBit),
      DispatchKeySet(BC::PrivateUse3Bit),
      raw(0x3FFF),  // every backend bit
      DispatchKeySet(DK::StartOfDenseBackends),
      DispatchKeySet(DK::StartOfAutogradFunctionalityBackends),
      DispatchKeySet(DK::EndOfFunctionalityKeys),  // the sentinel bit is never iterated
      raw(~uint64_t{0} << 54),                     // bits past the last functionality
  };
  for (const auto& ks : sets) {
    EXPECT_TRUE(ks.begin() == ks.end()) << std::hex << ks.raw_repr();
    EXPECT_EQ(*ks.begin(), DK::EndOfFunctionalityKeys) << std::hex << ks.raw_repr();
    EXPECT_EQ(*ks.end(), DK::EndOfFunctionalityKeys);
    EXPECT_EQ(ks.size(), 0);
    EXPECT_EQ(str(ks), "DispatchKeySet()");
  }
}

TEST(DispatchKeySetTest, IterationIgnoresBitsPastLastFunctionality) {
  const DispatchKeySet ks = raw((uint64_t{1} << 63) | (uint64_t{1} << 54) | 0x4001);
  EXPECT_EQ(names(iterate(ks)), std::vector<std::string>{"CPU"});
  EXPECT_EQ(iterate(raw(~uint64_t{0})), iterate(DispatchKeySet(DispatchKeySet::FULL)));
}

TEST(DispatchKeySetTest, IteratorIncrementPastEndStaysAtEnd) {
  const DispatchKeySet ks(DK::CPU);
  auto it = ks.begin();
  EXPECT_EQ(*it, DK::CPU);
  auto old = it++;
  EXPECT_EQ(*old, DK::CPU);
  EXPECT_TRUE(it == ks.end());
  ++it;
  EXPECT_TRUE(it == ks.end());
  EXPECT_EQ(*it, DK::EndOfFunctionalityKeys);
}

// --- membership and algebra (sections 2.2, 2.3) ----------------------------------------------

TEST(DispatchKeySetTest, HasNeedsBothBits) {
  const DispatchKeySet ks = DispatchKeySet(DK::Dense) | DispatchKeySet(BC::CUDABit);
  EXPECT_TRUE(ks.has(DK::CUDA));
  EXPECT_FALSE(ks.has(DK::CPU));
  EXPECT_TRUE(ks.has(DK::Dense));
  EXPECT_FALSE(DispatchKeySet(DK::Dense).has(DK::CPU));
  EXPECT_FALSE(DispatchKeySet(BC::CPUBit).has(DK::CPU));
  EXPECT_TRUE(ks.has_backend(BC::CUDABit));
  EXPECT_FALSE(ks.has_backend(BC::CPUBit));
  EXPECT_FALSE(ks.has_backend(BC::InvalidBit));
}

TEST(DispatchKeySetTest, RemoveDifferenceRemoveBackendVerifiedExample) {
  const DispatchKeySet start{DK::CPU, DK::AutogradCUDA, DK::CUDA};
  EXPECT_EQ(start.raw_repr(), 0x20'0000'4003u);

  const DispatchKeySet r1 = start.remove(DK::AutogradCUDA);
  EXPECT_EQ(r1.raw_repr(), 0x4003u);
  EXPECT_EQ(r1, (DispatchKeySet{DK::CPU, DK::CUDA}));

  const DispatchKeySet r2 = start.remove(DK::CPU);
  EXPECT_EQ(r2, (DispatchKeySet{DK::AutogradCPU, DK::AutogradCUDA}));
  EXPECT_EQ(r2.raw_repr(), 0x20'0000'0003u);
  EXPECT_FALSE(r2.has(DK::CUDA));  // Dense is gone for all backends

  const DispatchKeySet r3 = start - DispatchKeySet(DK::CUDA);
  EXPECT_EQ(r3, r2);

  const DispatchKeySet r4 = start.remove_backend(BC::CUDABit);
  EXPECT_EQ(r4, (DispatchKeySet{DK::CPU, DK::AutogradCPU}));
  EXPECT_EQ(r4.raw_repr(), 0x20'0000'4001u);
}

TEST(DispatchKeySetTest, DifferenceAndRemoveNeverClearBackendBits) {
  const DispatchKeySet full(DispatchKeySet::FULL);
  EXPECT_EQ((full - full).raw_repr(), 0x3FFFu);
  for (const auto& k : spec::allKeys()) {
    const DispatchKeySet removed = full.remove(key(k.value));
    EXPECT_EQ(removed.raw_repr() & 0x3FFF, 0x3FFFu) << k.name;
    EXPECT_EQ(removed.raw_repr(), full.raw_repr() & ~(spec::reprOf(k) & ~uint64_t{0x3FFF}))
        << k.name;
  }
  EXPECT_EQ(DispatchKeySet(BC::CPUBit).remove(DK::CPU).raw_repr(), 0x1u);
  EXPECT_EQ(DispatchKeySet(DK::CPU).remove_backend(BC::CPUBit).raw_repr(), 0x4000u);
  EXPECT_EQ(DispatchKeySet(DK::CPU).remove_backend(BC::InvalidBit).raw_repr(), 0x4001u);
}

TEST(DispatchKeySetTest, BitwiseOperators) {
  const DispatchKeySet a = raw(0xF0F0);
  const DispatchKeySet b = raw(0xFF00);
  EXPECT_EQ((a | b).raw_repr(), 0xFFF0u);
  EXPECT_EQ((a & b).raw_repr(), 0xF000u);
  EXPECT_EQ((a ^ b).raw_repr(), 0x0FF0u);
  // Difference keeps a's backend bits (12, 13) and clears only functionality bits 14, 15.
  EXPECT_EQ((a - b).raw_repr(), 0x30F0u);
  DispatchKeySet c = a;
  c |= b;
  EXPECT_EQ(c.raw_repr(), 0xFFF0u);
  c &= raw(0x00F0);
  EXPECT_EQ(c.raw_repr(), 0x00F0u);
  EXPECT_EQ(a.add(b), a | b);
}

TEST(DispatchKeySetTest, HasAllHasAny) {
  const DispatchKeySet cpu_autograd{DK::CPU, DK::AutogradCPU};
  EXPECT_TRUE(cpu_autograd.has_all(DispatchKeySet(DK::CPU)));
  EXPECT_TRUE(cpu_autograd.has_all(DispatchKeySet(DK::AutogradCPU)));
  EXPECT_TRUE(cpu_autograd.has_all(cpu_autograd));
  EXPECT_TRUE(cpu_autograd.has_all(DispatchKeySet()));
  EXPECT_FALSE(cpu_autograd.has_all(DispatchKeySet(DK::CUDA)));
  EXPECT_FALSE(cpu_autograd.has_all(DispatchKeySet{DK::CPU, DK::FPGA}));
  EXPECT_TRUE(cpu_autograd.isSupersetOf(DispatchKeySet(DK::CPU)));
  EXPECT_FALSE(DispatchKeySet(DK::CPU).isSupersetOf(cpu_autograd));
  EXPECT_TRUE(DispatchKeySet(DispatchKeySet::FULL).has_all(cpu_autograd));

  EXPECT_TRUE(cpu_autograd.has_any(dispatch::autograd_dispatch_keyset));
  EXPECT_FALSE(DispatchKeySet(DK::CPU).has_any(dispatch::autograd_dispatch_keyset));
  EXPECT_TRUE(
      cpu_autograd.has_any(DispatchKeySet{DK::FPGA, DK::AutogradOther, DK::AutogradFunctionality}));
  EXPECT_FALSE(cpu_autograd.has_any(DispatchKeySet{DK::FPGA, DK::BackendSelect}));
  EXPECT_FALSE(cpu_autograd.has_any(DispatchKeySet()));
  EXPECT_TRUE(cpu_autograd.has_any(DispatchKeySet(BC::CPUBit)));
  // The documented pitfall (section 2.2): a set mixing backend and per-backend functionality bits
  // is a precondition violation, and the bitwise answer is meaningless.
  EXPECT_TRUE(DispatchKeySet(DK::AutogradCPU).has_any(DispatchKeySet(DK::CPU)));
}

// --- priority queries (section 2.5) ----------------------------------------------------------

TEST(DispatchKeySetTest, IndexOfHighestBit) {
  EXPECT_EQ(DispatchKeySet::indexOfHighestBit(0), 0);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(DispatchKeySet::indexOfHighestBit(uint64_t{1} << i), i + 1);
    EXPECT_EQ(DispatchKeySet::indexOfHighestBit((uint64_t{1} << i) | 1), i + 1);
  }
}

TEST(DispatchKeySetTest, PriorityQueries) {
  // No backend bits: highestPriorityTypeId gives the block's "Unknown" placeholder.
  EXPECT_EQ(DispatchKeySet(DK::Dense).highestPriorityTypeId(), DK::StartOfDenseBackends);
  EXPECT_EQ(dispatch::toString(DispatchKeySet(DK::Dense).highestPriorityTypeId()), "Unknown");
  EXPECT_EQ(dispatch::toString(DispatchKeySet(DK::AutogradFunctionality).highestPriorityTypeId()),
            "AutogradUnknown");
  EXPECT_EQ(DispatchKeySet(DK::Dense).highestBackendKey(), BC::InvalidBit);
  // Only backend bits: no functionality.
  EXPECT_EQ(DispatchKeySet(BC::CUDABit).highestFunctionalityKey(), DK::Undefined);
  EXPECT_EQ(DispatchKeySet(BC::CUDABit).highestPriorityTypeId(), DK::Undefined);
  EXPECT_EQ(DispatchKeySet(BC::CUDABit).highestBackendKey(), BC::CUDABit);
  // Mixed device: CUDA beats CPU; the functionality decides first.
  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::CUDA}).highestPriorityTypeId(), DK::CUDA);
  EXPECT_EQ((DispatchKeySet{DK::CUDA, DK::AutogradCPU}).highestPriorityTypeId(), DK::AutogradCUDA);
  EXPECT_EQ((DispatchKeySet{DK::SparseCUDA, DK::BackendSelect}).highestPriorityTypeId(),
            DK::BackendSelect);
  EXPECT_EQ((DispatchKeySet{DK::PythonDispatcher, DK::CPU}).highestPriorityTypeId(),
            DK::PythonDispatcher);
  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::PrivateUse1}).highestBackendKey(), BC::PrivateUse1Bit);
  EXPECT_EQ((DispatchKeySet{DK::FPGA, DK::AutogradOther}).highestFunctionalityKey(),
            DK::AutogradOther);
  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::AutogradCPU}).highestFunctionalityKey(),
            DK::AutogradFunctionality);
  // Every functionality bit on its own, with all backends present.
  for (int f = 1; f < spec::kNumFunctionalityKeys; ++f) {
    const DispatchKeySet ks = raw(spec::functionalityBit(f) | 0x3FFF);
    EXPECT_EQ(value(ks.highestFunctionalityKey()), f);
    EXPECT_EQ(value(ks.highestPriorityTypeId()), spec::keyValue(f, 14));
    EXPECT_EQ(ks.highestBackendKey(), BC::PrivateUse3Bit);
  }
}

TEST(DispatchKeySetTest, HighestPriorityBackendTypeId) {
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(DispatchKeySet{DK::AutogradCPU, DK::CPU}),
            DK::CPU);
  EXPECT_EQ(
      dispatch::highestPriorityBackendTypeId(DispatchKeySet{DK::Functionalize, DK::SparseCUDA}),
      DK::SparseCUDA);
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(DispatchKeySet{DK::CUDA, DK::QuantizedCUDA}),
            DK::QuantizedCUDA);
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(
                DispatchKeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}),
            DK::CPU);
  // Masking leaves only the CPU backend bit: no functionality, so Undefined.
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(DispatchKeySet{DK::AutogradCPU}), DK::Undefined);
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(DispatchKeySet{DK::FPGA}), DK::Undefined);
  EXPECT_EQ(dispatch::highestPriorityBackendTypeId(DispatchKeySet()), DK::Undefined);
}

TEST(DispatchKeySetTest, GetBackendIndex) {
  EXPECT_EQ(DispatchKeySet().getBackendIndex(), 0);
  EXPECT_EQ(DispatchKeySet(DK::FPGA).getBackendIndex(), 0);
  EXPECT_EQ(DispatchKeySet(DK::CPU).getBackendIndex(), 0);
  EXPECT_EQ(DispatchKeySet(DK::CUDA).getBackendIndex(), 1);
  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::CUDA}).getBackendIndex(), 1);
  EXPECT_EQ(DispatchKeySet(DK::AutogradMeta).getBackendIndex(), 10);
  EXPECT_EQ(DispatchKeySet(DK::PrivateUse3).getBackendIndex(), 13);
  EXPECT_EQ(DispatchKeySet(DispatchKeySet::FULL).getBackendIndex(), 13);
  for (int b = 1; b <= spec::kNumBackends; ++b) {
    EXPECT_EQ(DispatchKeySet(backend(b)).getBackendIndex(), b - 1) << b;
    // Lower backends do not matter.
    EXPECT_EQ(raw((uint64_t{1} << b) - 1).getBackendIndex(), b - 1) << b;
  }
}

}  // namespace
