// Tests for the runtime-table layouts (docs/semantics.md sections 3 and 6.2 of
// docs/semantics.md): FullLayout's offset/mask index and the trimmed
// MobileLayout slot map. Expected indices come from the spec's "slots" column and worked examples.

#include "dispatch/table_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "dispatch/key_sets.h"
#include "spec_model.h"

namespace {

using dispatch::BackendComponent;
using dispatch::DispatchKey;
using dispatch::DispatchKeySet;
using dispatch::FullLayout;
using dispatch::MobileLayout;
using DK = dispatch::DispatchKey;
using BC = dispatch::BackendComponent;

DispatchKey key(int v) { return static_cast<DispatchKey>(v); }
DispatchKeySet raw(uint64_t bits) { return DispatchKeySet(DispatchKeySet::RAW, bits); }

// Expected full-layout index of a runtime key: the "slots" column of the 1.3 table, plus the
// 0-based backend index inside a per-backend block.
int specSlot(const spec::Key& k) {
  const int first = spec::kSlotOfFunctionality[k.functionality];
  return spec::isPerBackend(k.functionality) ? first + k.backend - 1 : first;
}

// Deterministic 64-bit generator (splitmix64) for pattern sweeps.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

// --- FullLayout ---------------------------------------------------------------------------

TEST(FullLayoutTest, Size) {
  EXPECT_EQ(FullLayout::kNumEntries, 106);
  EXPECT_EQ(FullLayout::kName, "full");
}

TEST(FullLayoutTest, OffsetsAreTheSlotsColumn) {
  for (int f = 0; f < spec::kNumFunctionalityKeys; ++f) {
    const auto& entry = dispatch::detail::offsets_and_masks[static_cast<size_t>(f)];
    EXPECT_EQ(entry.offset, spec::kSlotOfFunctionality[f]) << spec::kFunctionalityNames[f];
    EXPECT_EQ(entry.mask, spec::isPerBackend(f) ? 0x3FFF : 0) << spec::kFunctionalityNames[f];
  }
  // Sanity assertion of 3.2: the last offset is num_runtime_entries - 1.
  EXPECT_EQ(dispatch::detail::offsets_and_masks[40].offset, 105);
}

TEST(FullLayoutTest, IndexOfEveryRuntimeKeyMatchesSlotsColumn) {
  for (const auto& k : spec::runtimeKeys()) {
    EXPECT_EQ(FullLayout::indexOf(key(k.value)), specSlot(k)) << k.name;
    EXPECT_EQ(FullLayout::indexOf(DispatchKeySet(key(k.value))), specSlot(k)) << k.name;
  }
  // Block boundaries, literally from the 1.3 table.
  EXPECT_EQ(FullLayout::indexOf(DK::CPU), 1);
  EXPECT_EQ(FullLayout::indexOf(DK::PrivateUse3), 14);
  EXPECT_EQ(FullLayout::indexOf(DK::FPGA), 15);
  EXPECT_EQ(FullLayout::indexOf(DK::QuantizedCPU), 19);
  EXPECT_EQ(FullLayout::indexOf(DK::QuantizedPrivateUse3), 32);
  EXPECT_EQ(FullLayout::indexOf(DK::CustomRNGKeyId), 33);
  EXPECT_EQ(FullLayout::indexOf(DK::SparseCPU), 35);
  EXPECT_EQ(FullLayout::indexOf(DK::SparsePrivateUse3), 48);
  EXPECT_EQ(FullLayout::indexOf(DK::NestedTensorCPU), 51);
  EXPECT_EQ(FullLayout::indexOf(DK::NestedTensorPrivateUse3), 64);
  EXPECT_EQ(FullLayout::indexOf(DK::BackendSelect), 65);
  EXPECT_EQ(FullLayout::indexOf(DK::AutogradOther), 75);
  EXPECT_EQ(FullLayout::indexOf(DK::AutogradCPU), 76);
  EXPECT_EQ(FullLayout::indexOf(DK::AutogradPrivateUse3), 89);
  EXPECT_EQ(FullLayout::indexOf(DK::AutogradNestedTensor), 90);
  EXPECT_EQ(FullLayout::indexOf(DK::PythonDispatcher), 105);
}

TEST(FullLayoutTest, RuntimeKeysAreInRangeAndInjective) {
  std::map<int, DispatchKey> seen;
  seen[FullLayout::indexOf(DK::Undefined)] = DK::Undefined;
  EXPECT_EQ(FullLayout::indexOf(DK::Undefined), 0);
  for (const auto& k : spec::runtimeKeys()) {
    const int idx = FullLayout::indexOf(key(k.value));
    EXPECT_GE(idx, 0) << k.name;
    EXPECT_LT(idx, 106) << k.name;
    const auto [it, inserted] = seen.emplace(idx, key(k.value));
    EXPECT_TRUE(inserted) << k.name << " shares slot " << idx << " with " << it->second;
  }
  EXPECT_EQ(seen.size(), 106u);  // 105 runtime keys + Undefined: every slot used exactly once
}

TEST(FullLayoutTest, WorkedExamples) {
  // Section 3.4 table.
  EXPECT_EQ(DispatchKeySet(DK::CPU).raw_repr(), 0x4001u);
  EXPECT_EQ(FullLayout::indexOf(raw(0x4001)), 1);

  EXPECT_EQ((DispatchKeySet{DK::CUDA, DK::CPU}).raw_repr(), 0x4003u);
  EXPECT_EQ(FullLayout::indexOf(raw(0x4003)), 2);
  EXPECT_EQ(raw(0x4003).highestPriorityTypeId(), DK::CUDA);

  EXPECT_EQ(FullLayout::indexOf(DispatchKeySet(DK::QuantizedCUDA)), 20);

  EXPECT_EQ((DispatchKeySet{DK::CPU, DK::AutogradCPU}).raw_repr(), 0x20'0000'4001u);
  EXPECT_EQ(FullLayout::indexOf(raw(0x20'0000'4001)), 76);
  EXPECT_EQ(raw(0x20'0000'4001).highestPriorityTypeId(), DK::AutogradCPU);

  EXPECT_EQ((DispatchKeySet{DK::CUDA, DK::AutogradCUDA, DK::CPU}).raw_repr(), 0x20'0000'4003u);
  EXPECT_EQ(FullLayout::indexOf(raw(0x20'0000'4003)), 77);
  EXPECT_EQ(raw(0x20'0000'4003).highestPriorityTypeId(), DK::AutogradCUDA);

  EXPECT_EQ((DispatchKeySet{DK::Meta, DK::AutogradMeta}).raw_repr(), 0x20'0000'4400u);
  EXPECT_EQ(FullLayout::indexOf(raw(0x20'0000'4400)), 86);
  EXPECT_EQ(raw(0x20'0000'4400).highestPriorityTypeId(), DK::AutogradMeta);

  const DispatchKeySet sparse_select{DK::SparseCUDA, DK::BackendSelect};
  EXPECT_EQ(FullLayout::indexOf(sparse_select), 65);
  EXPECT_EQ(sparse_select.highestPriorityTypeId(), DK::BackendSelect);

  const DispatchKeySet fpga_other{DK::FPGA, DK::AutogradOther};
  EXPECT_EQ(FullLayout::indexOf(fpga_other), 75);
  EXPECT_EQ(fpga_other.highestPriorityTypeId(), DK::AutogradOther);

  const DispatchKeySet nested{DK::NestedTensorCUDA, DK::AutogradNestedTensor};
  EXPECT_EQ(FullLayout::indexOf(nested), 90);
  EXPECT_EQ(nested.highestPriorityTypeId(), DK::AutogradNestedTensor);

  const DispatchKeySet python{DK::PythonDispatcher, DK::CPU};
  EXPECT_EQ(FullLayout::indexOf(python), 105);
  EXPECT_EQ(python.highestPriorityTypeId(), DK::PythonDispatcher);

  EXPECT_EQ(FullLayout::indexOf(DispatchKeySet()), 0);
  EXPECT_EQ(DispatchKeySet().highestPriorityTypeId(), DK::Undefined);
}

TEST(FullLayoutTest, FullCallExample) {
  const DispatchKeySet tensor{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU};
  EXPECT_EQ(tensor.raw_repr(), 0x128'0000'4001u);

  const DispatchKeySet tls_included{DK::BackendSelect, DK::ADInplaceOrView};
  const DispatchKeySet tls_excluded{DK::AutocastCPU, DK::AutocastXPU, DK::AutocastCUDA};
  EXPECT_EQ(tls_included, dispatch::default_included_set);
  EXPECT_EQ(tls_excluded, dispatch::default_excluded_set);

  const DispatchKeySet with_included = tensor | tls_included;
  EXPECT_EQ(with_included.raw_repr(), 0x128'0400'4001u);

  const DispatchKeySet after_excluded = with_included - tls_excluded;
  EXPECT_EQ(after_excluded.raw_repr(), 0x28'0400'4001u);  // bit 40 (AutocastCPU) cleared
  // Already AutogradCPU's slot before masking: AutogradFunctionality (24) outranks ADInplaceOrView
  // (22).
  EXPECT_EQ(FullLayout::indexOf(after_excluded), 76);

  // The fallthrough mask removes BackendSelect and ADInplaceOrView.
  const DispatchKeySet masked =
      after_excluded.remove(DK::BackendSelect).remove(DK::ADInplaceOrView);
  EXPECT_EQ(masked.raw_repr(), 0x20'0000'4001u);
  const DispatchKeySet fallthrough_mask =
      DispatchKeySet(DispatchKeySet::FULL) - DispatchKeySet{DK::BackendSelect, DK::ADInplaceOrView};
  EXPECT_EQ((after_excluded & fallthrough_mask), masked);
  EXPECT_EQ(FullLayout::indexOf(masked), 76);
  EXPECT_EQ(masked.highestPriorityTypeId(), DK::AutogradCPU);

  // Same call with autograd excluded lands on the CPU kernel.
  EXPECT_EQ(FullLayout::indexOf(masked - dispatch::autograd_dispatch_keyset), 1);
}

TEST(FullLayoutTest, Quirks) {
  // Section 3.5: no backend bits -> CPU slot of the block.
  EXPECT_EQ(FullLayout::indexOf(DK::Dense), 1);
  EXPECT_EQ(FullLayout::indexOf(DispatchKeySet(DK::Dense)), 1);
  EXPECT_EQ(FullLayout::indexOf(DK::AutogradFunctionality), 76);
  EXPECT_EQ(FullLayout::indexOf(DK::Quantized), 19);
  EXPECT_EQ(FullLayout::indexOf(DK::Sparse), 35);
  EXPECT_EQ(FullLayout::indexOf(DK::NestedTensor), 51);
  // ... and the placeholders (which construct the same sets).
  EXPECT_EQ(FullLayout::indexOf(DK::StartOfDenseBackends), 1);
  EXPECT_EQ(FullLayout::indexOf(DK::StartOfAutogradFunctionalityBackends), 76);
  EXPECT_EQ(dispatch::toString(DispatchKeySet(DK::AutogradFunctionality).highestPriorityTypeId()),
            "AutogradUnknown");
  // Alias keys -> slot 0.
  for (int a = spec::kFirstAlias; a <= spec::kLastAlias; ++a) {
    EXPECT_EQ(FullLayout::indexOf(key(a)), 0) << spec::kAliasNames[a - spec::kFirstAlias];
  }
  // Backend bits alone -> slot 0 (no functionality).
  EXPECT_EQ(FullLayout::indexOf(raw(0x3FFF)), 0);
  // Backend bits are ignored for plain functionalities.
  EXPECT_EQ(FullLayout::indexOf(raw(0x3FFF) | DispatchKeySet(DK::FPGA)), 15);
}

TEST(FullLayoutTest, IndexUsesHighestFunctionalityThenHighestBackend) {
  // For every (functionality f, highest backend b, lower noise) combination, the index is
  // slots(f) + (per-backend ? b - 1 : 0), independently of lower functionality bits.
  for (int f = 1; f < spec::kNumFunctionalityKeys; ++f) {
    for (int b = 0; b <= spec::kNumBackends; ++b) {
      const uint64_t backends = b == 0 ? 0 : (uint64_t{1} << b) - 1;  // b and everything below
      const uint64_t lower_functionalities = spec::functionalityBit(f) - 1 - 0x3FFF;
      for (uint64_t noise :
           {uint64_t{0}, lower_functionalities & 0x5555'5555'5555'5555u, lower_functionalities}) {
        const DispatchKeySet ks = raw(spec::functionalityBit(f) | backends | noise);
        const int expected =
            spec::kSlotOfFunctionality[f] + (spec::isPerBackend(f) && b > 0 ? b - 1 : 0);
        ASSERT_EQ(FullLayout::indexOf(ks), expected)
            << "f=" << f << " b=" << b << std::hex << " repr=0x" << ks.raw_repr();
      }
    }
  }
}

TEST(FullLayoutTest, EverySingleBit) {
  for (int i = 0; i < 64; ++i) {
    const int idx = FullLayout::indexOf(raw(uint64_t{1} << i));
    if (i < 14) {
      EXPECT_EQ(idx, 0) << "backend bit " << i;
    } else if (i < 54) {
      EXPECT_EQ(idx, spec::kSlotOfFunctionality[i - 13]) << "functionality bit " << i;
    } else {
      EXPECT_EQ(idx, -1) << "bit " << i << " is past the last functionality";
    }
  }
  // The sentinel's own bit (54) never indexes past the table.
  EXPECT_EQ(FullLayout::indexOf(DK::EndOfFunctionalityKeys), -1);
}

TEST(FullLayoutTest, RawPatternsWithHighBitsGiveMinusOne) {
  uint64_t state = 0x1234'5678'9ABC'DEF0u;
  for (int n = 0; n < 20000; ++n) {
    const uint64_t r = splitmix64(state);
    // Force at least one of bits 54..63; vary the others, including all-ones patterns.
    const uint64_t high = (r >> 54) == 0 ? (uint64_t{1} << (54 + n % 10)) : 0;
    for (uint64_t pattern :
         {r | high, (r | high) | 0x3F'FFFF'FFFF'FFFFu, (r | high) & ~uint64_t{0x3FFF},
          ((r | high) & ~uint64_t{0x3F'FFFF'FFFF'FFFF})}) {
      ASSERT_EQ(FullLayout::indexOf(raw(pattern)), -1) << std::hex << pattern;
    }
  }
  EXPECT_EQ(FullLayout::indexOf(raw(~uint64_t{0})), -1);
  for (int i = 54; i < 64; ++i) {
    EXPECT_EQ(FullLayout::indexOf(raw((uint64_t{1} << i) | 0x20'0000'4001u)), -1) << i;
  }
}

TEST(FullLayoutTest, RawPatternsWithoutHighBitsAreInRange) {
  uint64_t state = 42;
  for (int n = 0; n < 20000; ++n) {
    const uint64_t pattern = splitmix64(state) & 0x3F'FFFF'FFFF'FFFFu;
    const int idx = FullLayout::indexOf(raw(pattern));
    ASSERT_GE(idx, 0) << std::hex << pattern;
    ASSERT_LT(idx, 106) << std::hex << pattern;
    // With at least one backend bit, the slot is that of highestPriorityTypeId (hot path and
    // slow path agree).
    if ((pattern & 0x3FFF) != 0 && (pattern >> 14) != 0) {
      const DispatchKey top = raw(pattern).highestPriorityTypeId();
      ASSERT_EQ(idx, FullLayout::indexOf(top)) << std::hex << pattern << " top " << top;
    }
  }
}

// --- MobileLayout (section 6.2) -------------------------------------------------------------

TEST(MobileLayoutTest, Size) {
  EXPECT_EQ(MobileLayout::kNumEntries, 8);
  EXPECT_EQ(MobileLayout::kName, "mobile");
}

TEST(MobileLayoutTest, SlotMapOfEveryKey) {
  const std::map<DispatchKey, int> slots = {
      {DK::Undefined, 0},     {DK::CPU, 1},           {DK::QuantizedCPU, 2},
      {DK::SparseCPU, 3},     {DK::BackendSelect, 4}, {DK::ADInplaceOrView, 5},
      {DK::AutogradOther, 6}, {DK::AutogradCPU, 7},
  };
  int listed = 0;
  for (const auto& k : spec::allKeys()) {
    const auto it = slots.find(key(k.value));
    int expected = -1;
    if (it != slots.end()) {
      expected = it->second;
      ++listed;
    } else if (k.alias) {
      expected = 0;  // section 3.5: an alias constructs the empty set, i.e. Undefined's slot
    }
    EXPECT_EQ(MobileLayout::indexOf(key(k.value)), expected) << k.name;
    if (k.value != 0 && !k.alias) {
      EXPECT_EQ(MobileLayout::indexOf(DispatchKeySet(key(k.value))), expected) << k.name;
    }
  }
  EXPECT_EQ(listed, 8);
  // Named examples of 6.2.
  EXPECT_EQ(MobileLayout::indexOf(DK::CUDA), -1);
  EXPECT_EQ(MobileLayout::indexOf(DK::Named), -1);
  EXPECT_EQ(MobileLayout::indexOf(DK::Conjugate), -1);
  EXPECT_EQ(MobileLayout::indexOf(DK::AutogradCUDA), -1);
  EXPECT_EQ(MobileLayout::indexOf(DK::Python), -1);
  // Building blocks: highestPriorityTypeId is the "Unknown" placeholder -> absent.
  EXPECT_EQ(MobileLayout::indexOf(DK::Dense), -1);
  EXPECT_EQ(MobileLayout::indexOf(DK::AutogradFunctionality), -1);
}

TEST(MobileLayoutTest, CpuTensorSet) {
  const DispatchKeySet cpu_tensor{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU};
  EXPECT_EQ(MobileLayout::indexOf(cpu_tensor), 7);
  EXPECT_EQ(MobileLayout::indexOf(cpu_tensor.remove(DK::AutogradCPU)), 5);
  EXPECT_EQ(MobileLayout::indexOf(cpu_tensor.remove(DK::AutogradCPU).remove(DK::ADInplaceOrView)),
            1);
  // A CUDA tensor has no slot on trimmed mobile.
  EXPECT_EQ(MobileLayout::indexOf(DispatchKeySet{DK::CUDA, DK::ADInplaceOrView, DK::AutogradCUDA}),
            -1);
  // Mixed CPU/CUDA: highest backend is CUDA -> absent.
  EXPECT_EQ(MobileLayout::indexOf(DispatchKeySet{DK::CPU, DK::CUDA}), -1);
  EXPECT_EQ(MobileLayout::indexOf(DispatchKeySet{DK::SparseCPU, DK::BackendSelect}), 4);
  EXPECT_EQ(MobileLayout::indexOf(DispatchKeySet{DK::FPGA, DK::AutogradOther}), 6);
}

TEST(MobileLayoutTest, IndicesAlwaysInRange) {
  uint64_t state = 7;
  for (int n = 0; n < 20000; ++n) {
    const uint64_t pattern = splitmix64(state);
    for (uint64_t p : {pattern, pattern & 0x3F'FFFF'FFFF'FFFFu}) {
      const int idx = MobileLayout::indexOf(raw(p));
      ASSERT_GE(idx, -1) << std::hex << p;
      ASSERT_LT(idx, 8) << std::hex << p;
    }
  }
  for (int i = 0; i < 64; ++i) {
    const int idx = MobileLayout::indexOf(raw(uint64_t{1} << i));
    EXPECT_GE(idx, -1) << i;
    EXPECT_LT(idx, 8) << i;
  }
}

TEST(MobileLayoutTest, RawPatternsWithHighBitsGiveMinusOne) {
  // Bits 54..63 name no key. highestPriorityTypeId decodes them as DispatchKey(bit - 13), which
  // for bit 56 is the value 43 == CPU; the trimmed layout must not hand out CPU's slot for that
  // (the full layout gives -1 for the same patterns, and "< 0" means "absent", docs/semantics.md §6.4).
  for (int i = 54; i < 64; ++i) {
    EXPECT_EQ(MobileLayout::indexOf(raw(uint64_t{1} << i)), -1) << "bit " << i;
    EXPECT_EQ(MobileLayout::indexOf(raw((uint64_t{1} << i) | 0x20'0000'4001u)), -1) << "bit " << i;
    EXPECT_EQ(MobileLayout::indexOf(raw((uint64_t{1} << i) | 0x1)), -1) << "bit " << i;
  }
  uint64_t state = 99;
  for (int n = 0; n < 20000; ++n) {
    const uint64_t p = splitmix64(state) | (uint64_t{1} << (54 + n % 10));
    ASSERT_EQ(MobileLayout::indexOf(raw(p)), -1) << std::hex << p;
    ASSERT_EQ(FullLayout::indexOf(raw(p)), -1) << std::hex << p;
  }
}

TEST(MobileLayoutTest, AgreesWithFullLayoutOnTrackedKeys) {
  // On the 8 tracked keys the two layouts name the same runtime key; mobile is -1 elsewhere.
  const std::vector<DispatchKey> tracked = {
      DK::Undefined,       DK::CPU,           DK::QuantizedCPU, DK::SparseCPU, DK::BackendSelect,
      DK::ADInplaceOrView, DK::AutogradOther, DK::AutogradCPU};
  std::set<int> full_slots;
  for (size_t i = 0; i < tracked.size(); ++i) {
    EXPECT_EQ(MobileLayout::indexOf(tracked[i]), static_cast<int>(i)) << tracked[i];
    EXPECT_TRUE(full_slots.insert(FullLayout::indexOf(tracked[i])).second) << tracked[i];
  }
}

// --- Slot rows (Note [Slot Rows]): the lookup side must equal the spec formulas ---------------

// A trimmed layout keeping CUDA keys, so the per-backend fallthrough masks stay one per backend.
struct CudaLayout : dispatch::TrimmedLayout<DK::Undefined, DK::CUDA, DK::AutogradCUDA, DK::Python,
                                            DK::SparseCUDA, DK::StartOfDenseBackends> {};

template <class L>
void expectRowsMatchReference(const char* name) {
  uint64_t state = 17;
  auto check = [&](uint64_t bits) {
    const DispatchKeySet ks = raw(bits);
    const int reference = L::referenceIndexOf(ks);
    const int slot = static_cast<int>(L::slotOf(ks));
    ASSERT_EQ(slot, reference < 0 ? L::kNumEntries : reference) << name << " " << std::hex << bits;
    ASSERT_EQ(L::indexOf(ks), reference) << name << " " << std::hex << bits;
    if ((bits >> 63) == 0) {
      ASSERT_EQ(static_cast<int>(L::slotOfBelowBit63(ks)), slot) << name << " " << std::hex << bits;
    }
  };
  // Every (highest bit, highest backend) pair, with and without lower noise.
  for (int top = -1; top < 64; ++top) {
    for (int backend = -1; backend < dispatch::num_backends; ++backend) {
      uint64_t bits = top < 0 ? 0 : uint64_t{1} << top;
      if (backend >= 0) bits |= uint64_t{1} << backend;
      check(bits);
      for (int n = 0; n < 64; ++n) {
        const uint64_t below_top = top <= 0 ? 0 : (uint64_t{1} << top) - 1;
        const uint64_t below_backend = backend <= 0 ? 0 : (uint64_t{1} << backend) - 1;
        const uint64_t functionality_noise = splitmix64(state) & below_top & ~uint64_t{0x3FFF};
        check(bits | functionality_noise | (splitmix64(state) & below_backend));
      }
    }
  }
  for (int n = 0; n < 200000; ++n) check(splitmix64(state) >> (n % 64));
}

TEST(SlotRowsTest, EveryLayoutMatchesItsReferenceFormula) {
  dispatch::AllLayouts::forEach([]<class L>() { expectRowsMatchReference<L>(L::kName.data()); });
  expectRowsMatchReference<CudaLayout>("cuda");
}

TEST(SlotRowsTest, FallthroughMaskSlots) {
  EXPECT_EQ(FullLayout::kNumFallthroughMasks, 14);
  EXPECT_EQ(MobileLayout::kNumFallthroughMasks, 2);
  EXPECT_EQ(CudaLayout::kNumFallthroughMasks, 14);
  for (uint64_t backends = 0; backends < (uint64_t{1} << dispatch::num_backends); ++backends) {
    const auto highest = static_cast<uint64_t>(raw(backends).getBackendIndex());
    ASSERT_EQ(FullLayout::fallthroughMaskOf(backends), highest) << backends;
    ASSERT_EQ(CudaLayout::fallthroughMaskOf(backends), highest) << backends;
    // mobile: CPU (or none) has its own mask, every other backend shares the plain-key one.
    ASSERT_EQ(MobileLayout::fallthroughMaskOf(backends), highest == 0 ? 0u : 1u) << backends;
  }
  EXPECT_EQ(MobileLayout::fallthroughMaskOfBackend(BC::CPUBit), 0);
  EXPECT_EQ(MobileLayout::fallthroughMaskOfBackend(BC::CUDABit), 1);
  EXPECT_EQ(FullLayout::fallthroughMaskOfBackend(BC::PrivateUse3Bit), 13);
}

// --- Every trimmed flavour of cmake/flavours.list (and drawn ones) ---------------------------

TEST(TrimmedFlavoursTest, EachKeepsExactlyItsDeclaredKeys) {
  dispatch::AllLayouts::forEach([]<class L>() {
    if constexpr (!std::is_same_v<L, FullLayout>) {
      SCOPED_TRACE(std::string(L::kName));
      EXPECT_EQ(L::kSlotKeys[0], DK::Undefined);
      for (size_t i = 0; i < L::kSlotKeys.size(); ++i) {
        EXPECT_EQ(L::indexOf(L::kSlotKeys[i]), static_cast<int>(i)) << L::kSlotKeys[i];
      }
      int kept = 0;
      for (const auto& k : spec::allKeys()) {
        if (k.alias) continue;
        const int index = L::indexOf(key(k.value));
        const bool listed = std::find(L::kSlotKeys.begin(), L::kSlotKeys.end(), key(k.value)) !=
                            L::kSlotKeys.end();
        EXPECT_EQ(index >= 0, listed) << k.name;
        kept += listed ? 1 : 0;
      }
      EXPECT_EQ(kept, L::kNumEntries);
      // Two fallthrough masks when CPU is the only backend with per-backend keys, else one per
      // backend (Note [Trimmed Layout]).
      bool only_cpu = true;
      for (DK k : L::kSlotKeys) {
        if (dispatch::isInPerBackendBlock(k) && k != DK::CPU && k != DK::QuantizedCPU &&
            k != DK::SparseCPU && k != DK::NestedTensorCPU && k != DK::AutogradCPU) {
          only_cpu = false;
        }
      }
      EXPECT_EQ(L::kNumFallthroughMasks, only_cpu ? 2 : 14);
    }
  });
}

}  // namespace
