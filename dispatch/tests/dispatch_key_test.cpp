// Tests for DispatchKey / BackendComponent: enum values, names, parsing and the pure helpers of
// docs/semantics.md sections 1.2 - 1.6. Expected values are
// written from the spec tables (here and in spec_model.h), never recomputed with the library.

#include "dispatch/dispatch_key.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/errors.h"
#include "spec_model.h"

namespace {

using dispatch::BackendComponent;
using dispatch::DispatchKey;
using DK = dispatch::DispatchKey;
using BC = dispatch::BackendComponent;

DispatchKey key(int v) { return static_cast<DispatchKey>(v); }
BackendComponent backend(int v) { return static_cast<BackendComponent>(v); }
int value(DispatchKey k) { return static_cast<int>(dispatch::toUnderlying(k)); }
int value(BackendComponent b) { return static_cast<int>(dispatch::toUnderlying(b)); }

// Last declared value (EndOfAliasKeys) and a few values past it.
constexpr int kLastValue = 121;
const std::vector<int> kOutOfRange = {122, 123, 127, 128, 200, 255, 256, 1000, 32767, 65535};

// Every enumerator of sections 1.3, 1.4 and 1.5 with the value the spec gives it.
const std::vector<std::pair<DispatchKey, int>> kEnumValues = {
    {DK::Undefined, 0},
    {DK::Dense, 1},
    {DK::FPGA, 2},
    {DK::ORT, 3},
    {DK::Vulkan, 4},
    {DK::Metal, 5},
    {DK::Quantized, 6},
    {DK::CustomRNGKeyId, 7},
    {DK::MkldnnCPU, 8},
    {DK::Sparse, 9},
    {DK::SparseCsrCPU, 10},
    {DK::SparseCsrCUDA, 11},
    {DK::NestedTensor, 12},
    {DK::BackendSelect, 13},
    {DK::Python, 14},
    {DK::Fake, 15},
    {DK::FuncTorchDynamicLayerBackMode, 16},
    {DK::Functionalize, 17},
    {DK::Named, 18},
    {DK::Conjugate, 19},
    {DK::Negative, 20},
    {DK::ZeroTensor, 21},
    {DK::ADInplaceOrView, 22},
    {DK::AutogradOther, 23},
    {DK::AutogradFunctionality, 24},
    {DK::AutogradNestedTensor, 25},
    {DK::Tracer, 26},
    {DK::AutocastCPU, 27},
    {DK::AutocastXPU, 28},
    {DK::AutocastCUDA, 29},
    {DK::FuncTorchBatched, 30},
    {DK::FuncTorchVmapMode, 31},
    {DK::Batched, 32},
    {DK::VmapMode, 33},
    {DK::FuncTorchGradWrapper, 34},
    {DK::DeferredInit, 35},
    {DK::PythonTLSSnapshot, 36},
    {DK::FuncTorchDynamicLayerFrontMode, 37},
    {DK::TESTING_ONLY_GenericWrapper, 38},
    {DK::TESTING_ONLY_GenericMode, 39},
    {DK::PythonDispatcher, 40},
    {DK::EndOfFunctionalityKeys, 41},
    {DK::StartOfDenseBackends, 42},
    {DK::CPU, 43},
    {DK::CUDA, 44},
    {DK::HIP, 45},
    {DK::XLA, 46},
    {DK::MPS, 47},
    {DK::IPU, 48},
    {DK::XPU, 49},
    {DK::HPU, 50},
    {DK::VE, 51},
    {DK::Lazy, 52},
    {DK::Meta, 53},
    {DK::PrivateUse1, 54},
    {DK::PrivateUse2, 55},
    {DK::PrivateUse3, 56},
    {DK::EndOfDenseBackends, 56},
    {DK::StartOfQuantizedBackends, 57},
    {DK::QuantizedCPU, 58},
    {DK::QuantizedCUDA, 59},
    {DK::QuantizedHIP, 60},
    {DK::QuantizedXLA, 61},
    {DK::QuantizedMPS, 62},
    {DK::QuantizedIPU, 63},
    {DK::QuantizedXPU, 64},
    {DK::QuantizedHPU, 65},
    {DK::QuantizedVE, 66},
    {DK::QuantizedLazy, 67},
    {DK::QuantizedMeta, 68},
    {DK::QuantizedPrivateUse1, 69},
    {DK::QuantizedPrivateUse2, 70},
    {DK::QuantizedPrivateUse3, 71},
    {DK::EndOfQuantizedBackends, 71},
    {DK::StartOfSparseBackends, 72},
    {DK::SparseCPU, 73},
    {DK::SparseCUDA, 74},
    {DK::SparseHIP, 75},
    {DK::SparseXLA, 76},
    {DK::SparseMPS, 77},
    {DK::SparseIPU, 78},
    {DK::SparseXPU, 79},
    {DK::SparseHPU, 80},
    {DK::SparseVE, 81},
    {DK::SparseLazy, 82},
    {DK::SparseMeta, 83},
    {DK::SparsePrivateUse1, 84},
    {DK::SparsePrivateUse2, 85},
    {DK::SparsePrivateUse3, 86},
    {DK::EndOfSparseBackends, 86},
    {DK::StartOfNestedTensorBackends, 87},
    {DK::NestedTensorCPU, 88},
    {DK::NestedTensorCUDA, 89},
    {DK::NestedTensorHIP, 90},
    {DK::NestedTensorXLA, 91},
    {DK::NestedTensorMPS, 92},
    {DK::NestedTensorIPU, 93},
    {DK::NestedTensorXPU, 94},
    {DK::NestedTensorHPU, 95},
    {DK::NestedTensorVE, 96},
    {DK::NestedTensorLazy, 97},
    {DK::NestedTensorMeta, 98},
    {DK::NestedTensorPrivateUse1, 99},
    {DK::NestedTensorPrivateUse2, 100},
    {DK::NestedTensorPrivateUse3, 101},
    {DK::EndOfNestedTensorBackends, 101},
    {DK::StartOfAutogradFunctionalityBackends, 102},
    {DK::AutogradCPU, 103},
    {DK::AutogradCUDA, 104},
    {DK::AutogradHIP, 105},
    {DK::AutogradXLA, 106},
    {DK::AutogradMPS, 107},
    {DK::AutogradIPU, 108},
    {DK::AutogradXPU, 109},
    {DK::AutogradHPU, 110},
    {DK::AutogradVE, 111},
    {DK::AutogradLazy, 112},
    {DK::AutogradMeta, 113},
    {DK::AutogradPrivateUse1, 114},
    {DK::AutogradPrivateUse2, 115},
    {DK::AutogradPrivateUse3, 116},
    {DK::EndOfAutogradFunctionalityBackends, 116},
    {DK::Autograd, 117},
    {DK::CompositeImplicitAutograd, 118},
    {DK::CompositeImplicitAutogradNestedTensor, 119},
    {DK::CompositeExplicitAutograd, 120},
    {DK::CompositeExplicitAutogradNonFunctional, 121},
};

TEST(DispatchKeyTest, EnumValuesMatchSpecTables) {
  for (const auto& [k, v] : kEnumValues) {
    EXPECT_EQ(value(k), v) << "enumerator expected to be " << v << " is " << k;
  }
  // Section 1.4 and 1.5 named range markers.
  EXPECT_EQ(value(DK::EndOfRuntimeBackendKeys), 116);
  EXPECT_EQ(value(DK::StartOfAliasKeys), 117);
  EXPECT_EQ(value(DK::EndOfAliasKeys), 121);
  EXPECT_EQ(value(DK::kMaxValue), 121);
}

TEST(DispatchKeyTest, EveryDeclaredValueIsListed) {
  // kEnumValues names every value 0..121 at least once (aliases like EndOf*Backends repeat one).
  std::set<int> seen;
  for (const auto& [k, v] : kEnumValues) seen.insert(v);
  EXPECT_EQ(seen.size(), 122u);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), kLastValue);
}

TEST(DispatchKeyTest, BackwardCompatibleAliases) {
  EXPECT_EQ(DK::CatchAll, DK::Undefined);
  EXPECT_EQ(DK::CPUTensorId, DK::CPU);
  EXPECT_EQ(DK::CUDATensorId, DK::CUDA);
  EXPECT_EQ(DK::DefaultBackend, DK::CompositeExplicitAutograd);
  EXPECT_EQ(DK::PrivateUse1_PreAutograd, DK::AutogradPrivateUse1);
  EXPECT_EQ(DK::PrivateUse2_PreAutograd, DK::AutogradPrivateUse2);
  EXPECT_EQ(DK::PrivateUse3_PreAutograd, DK::AutogradPrivateUse3);
  EXPECT_EQ(DK::Autocast, DK::AutocastCUDA);
  EXPECT_EQ(value(DK::CatchAll), 0);
  EXPECT_EQ(value(DK::CPUTensorId), 43);
  EXPECT_EQ(value(DK::CUDATensorId), 44);
  EXPECT_EQ(value(DK::DefaultBackend), 120);
  EXPECT_EQ(value(DK::PrivateUse1_PreAutograd), 114);
  EXPECT_EQ(value(DK::PrivateUse2_PreAutograd), 115);
  EXPECT_EQ(value(DK::PrivateUse3_PreAutograd), 116);
  EXPECT_EQ(value(DK::Autocast), 29);
}

TEST(DispatchKeyTest, BackendComponentValues) {
  // Section 1.2.
  EXPECT_EQ(value(BC::InvalidBit), 0);
  EXPECT_EQ(value(BC::CPUBit), 1);
  EXPECT_EQ(value(BC::CUDABit), 2);
  EXPECT_EQ(value(BC::HIPBit), 3);
  EXPECT_EQ(value(BC::XLABit), 4);
  EXPECT_EQ(value(BC::MPSBit), 5);
  EXPECT_EQ(value(BC::IPUBit), 6);
  EXPECT_EQ(value(BC::XPUBit), 7);
  EXPECT_EQ(value(BC::HPUBit), 8);
  EXPECT_EQ(value(BC::VEBit), 9);
  EXPECT_EQ(value(BC::LazyBit), 10);
  EXPECT_EQ(value(BC::MetaBit), 11);
  EXPECT_EQ(value(BC::PrivateUse1Bit), 12);
  EXPECT_EQ(value(BC::PrivateUse2Bit), 13);
  EXPECT_EQ(value(BC::PrivateUse3Bit), 14);
  EXPECT_EQ(BC::EndOfBackendKeys, BC::PrivateUse3Bit);
}

TEST(DispatchKeyTest, Counts) {
  // Section 1.5 counts table.
  EXPECT_EQ(dispatch::num_backends, 14);
  EXPECT_EQ(dispatch::num_functionality_keys, 41);
  EXPECT_EQ(dispatch::num_per_backend_functionality_keys, 5);
  EXPECT_EQ(dispatch::num_runtime_entries, 106);
  EXPECT_EQ(dispatch::num_backends + dispatch::num_functionality_keys, 55);
}

TEST(DispatchKeyTest, SpecModelIsIndexedByValue) {
  // Guards the test model itself: allKeys()[v].value == v for v in 0..121.
  const auto keys = spec::allKeys();
  ASSERT_EQ(keys.size(), 122u);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(keys[i].value, static_cast<int>(i));
  EXPECT_EQ(spec::runtimeKeys().size(), 105u);
}

// --- names ---------------------------------------------------------------------------------

TEST(DispatchKeyTest, ToStringOfEveryKey) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(dispatch::toString(key(k.value)), k.name) << "value " << k.value;
  }
}

TEST(DispatchKeyTest, ToStringOfPlaceholdersAndSpotChecks) {
  EXPECT_EQ(dispatch::toString(DK::StartOfDenseBackends), "Unknown");
  EXPECT_EQ(dispatch::toString(DK::StartOfQuantizedBackends), "QuantizedUnknown");
  EXPECT_EQ(dispatch::toString(DK::StartOfSparseBackends), "SparseUnknown");
  EXPECT_EQ(dispatch::toString(DK::StartOfNestedTensorBackends), "NestedTensorUnknown");
  EXPECT_EQ(dispatch::toString(DK::StartOfAutogradFunctionalityBackends), "AutogradUnknown");
  EXPECT_EQ(dispatch::toString(DK::Undefined), "Undefined");
  EXPECT_EQ(dispatch::toString(DK::CPU), "CPU");
  EXPECT_EQ(dispatch::toString(DK::QuantizedHIP), "QuantizedHIP");
  EXPECT_EQ(dispatch::toString(DK::AutogradPrivateUse3), "AutogradPrivateUse3");
  EXPECT_EQ(dispatch::toString(DK::NestedTensorMeta), "NestedTensorMeta");
  // BC aliases print their canonical name.
  EXPECT_EQ(dispatch::toString(DK::CatchAll), "Undefined");
  EXPECT_EQ(dispatch::toString(DK::DefaultBackend), "CompositeExplicitAutograd");
  EXPECT_EQ(dispatch::toString(DK::Autocast), "AutocastCUDA");
  EXPECT_EQ(dispatch::toString(DK::PrivateUse1_PreAutograd), "AutogradPrivateUse1");
}

TEST(DispatchKeyTest, ToStringOutOfRange) {
  for (int v : kOutOfRange) {
    EXPECT_EQ(dispatch::toString(key(v)), "UNKNOWN_TENSOR_TYPE_ID") << v;
  }
  for (int v : {15, 16, 100, 255}) {
    EXPECT_EQ(dispatch::toString(backend(v)), "UNKNOWN_BACKEND_BIT") << v;
  }
}

TEST(DispatchKeyTest, BackendComponentToString) {
  EXPECT_EQ(dispatch::toString(BC::InvalidBit), "InvalidBit");
  for (int b = 1; b <= spec::kNumBackends; ++b) {
    EXPECT_EQ(dispatch::toString(backend(b)), std::string(spec::kBackendNames[b]) + "Bit");
  }
}

TEST(DispatchKeyTest, StreamOperatorsPrintToString) {
  for (int v = 0; v <= kLastValue; ++v) {
    std::ostringstream out;
    out << key(v);
    EXPECT_EQ(out.str(), dispatch::toString(key(v)));
  }
  std::ostringstream out;
  out << DK::AutogradCUDA << "|" << BC::MetaBit << "|" << key(500);
  EXPECT_EQ(out.str(), "AutogradCUDA|MetaBit|UNKNOWN_TENSOR_TYPE_ID");
}

TEST(DispatchKeyTest, ParseRoundTripsEveryKey) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(dispatch::parseDispatchKey(k.name), key(k.value)) << k.name;
    auto parsed = dispatch::tryParseDispatchKey(k.name);
    ASSERT_TRUE(parsed.has_value()) << k.name;
    EXPECT_EQ(*parsed, key(k.value));
  }
  for (int v = 0; v <= kLastValue; ++v) {
    EXPECT_EQ(dispatch::parseDispatchKey(dispatch::toString(key(v))), key(v)) << v;
  }
}

TEST(DispatchKeyTest, ParseBackwardCompatibleNames) {
  EXPECT_EQ(dispatch::parseDispatchKey("CatchAll"), DK::Undefined);
  EXPECT_EQ(dispatch::parseDispatchKey("CPUTensorId"), DK::CPU);
  EXPECT_EQ(dispatch::parseDispatchKey("CUDATensorId"), DK::CUDA);
  EXPECT_EQ(dispatch::parseDispatchKey("DefaultBackend"), DK::CompositeExplicitAutograd);
  EXPECT_EQ(dispatch::parseDispatchKey("PrivateUse1_PreAutograd"), DK::AutogradPrivateUse1);
  EXPECT_EQ(dispatch::parseDispatchKey("PrivateUse2_PreAutograd"), DK::AutogradPrivateUse2);
  EXPECT_EQ(dispatch::parseDispatchKey("PrivateUse3_PreAutograd"), DK::AutogradPrivateUse3);
  EXPECT_EQ(dispatch::parseDispatchKey("Autocast"), DK::AutocastCUDA);
}

TEST(DispatchKeyTest, ParseUnknownNameThrows) {
  const std::vector<std::string> bad = {
      "",
      "cpu",   // names are case-sensitive
      "CPU ",  // no trimming
      " CPU",
      "CPUBit",  // a BackendComponent name is not a DispatchKey name
      "InvalidBit",
      "UNKNOWN_TENSOR_TYPE_ID",
      "FuncTorchBatchedDecomposition",  // only exists from 2.0 on (section 1.5)
      "MLC",                            // a pre-1.12 backend (section 1.7)
      "AutogradMLC",
      "_QuantizedHIP",  // the old underscore spelling (section 1.7)
      "Meta2",
      "NotAKey"};
  for (const auto& name : bad) {
    EXPECT_FALSE(dispatch::tryParseDispatchKey(name).has_value()) << name;
    try {
      (void)dispatch::parseDispatchKey(name);
      ADD_FAILURE() << "no exception for '" << name << "'";
    } catch (const dispatch::InvalidKeyError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("could not parse dispatch key"), std::string::npos) << what;
      EXPECT_NE(what.find(name), std::string::npos) << what;
    }
  }
  EXPECT_THROW((void)dispatch::parseDispatchKey("NotAKey"), dispatch::Error);
}

// --- pure helpers (section 1.6) -------------------------------------------------------------

TEST(DispatchKeyTest, ToFunctionalityKeyOfEveryKey) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(dispatch::toFunctionalityKey(key(k.value)), key(k.functionality)) << k.name;
  }
  // The sentinel is "k <= EndOfFunctionalityKeys": itself.
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::EndOfFunctionalityKeys), DK::EndOfFunctionalityKeys);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::CPU), DK::Dense);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::StartOfDenseBackends), DK::Dense);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::EndOfSparseBackends), DK::Sparse);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::NestedTensorXLA), DK::NestedTensor);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::AutogradMeta), DK::AutogradFunctionality);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::Autograd), DK::Undefined);
  EXPECT_EQ(dispatch::toFunctionalityKey(DK::CompositeImplicitAutograd), DK::Undefined);
  for (int v : kOutOfRange) EXPECT_EQ(dispatch::toFunctionalityKey(key(v)), DK::Undefined) << v;
}

TEST(DispatchKeyTest, ToBackendComponentOfEveryKey) {
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(dispatch::toBackendComponent(key(k.value)), backend(k.backend)) << k.name;
  }
  EXPECT_EQ(dispatch::toBackendComponent(DK::CPU), BC::CPUBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::QuantizedCUDA), BC::CUDABit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::AutogradMeta), BC::MetaBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::SparsePrivateUse3), BC::PrivateUse3Bit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::FPGA), BC::InvalidBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::Dense), BC::InvalidBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::MkldnnCPU), BC::InvalidBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::StartOfAutogradFunctionalityBackends), BC::InvalidBit);
  EXPECT_EQ(dispatch::toBackendComponent(DK::Autograd), BC::InvalidBit);
  for (int v : kOutOfRange) EXPECT_EQ(dispatch::toBackendComponent(key(v)), BC::InvalidBit) << v;
}

TEST(DispatchKeyTest, ToRuntimePerBackendFunctionalityKeyOverEveryPair) {
  for (int f = 0; f <= spec::kNumFunctionalityKeys; ++f) {
    for (int b = 0; b <= spec::kNumBackends; ++b) {
      const DispatchKey got = dispatch::toRuntimePerBackendFunctionalityKey(key(f), backend(b));
      const int expected = spec::isPerBackend(f) ? spec::keyValue(f, b) : 0;
      EXPECT_EQ(value(got), expected) << "f=" << f << " b=" << b;
    }
  }
  // Inverse of (toFunctionalityKey, toBackendComponent) on every per-backend block member.
  for (const auto& k : spec::allKeys()) {
    if (!spec::isPerBackend(k.functionality) || k.value <= spec::kNumFunctionalityKeys) continue;
    EXPECT_EQ(
        dispatch::toRuntimePerBackendFunctionalityKey(dispatch::toFunctionalityKey(key(k.value)),
                                                      dispatch::toBackendComponent(key(k.value))),
        key(k.value))
        << k.name;
  }
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::Dense, BC::InvalidBit),
            DK::StartOfDenseBackends);
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::AutogradFunctionality, BC::XLABit),
            DK::AutogradXLA);
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::NestedTensor, BC::CUDABit),
            DK::NestedTensorCUDA);
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::FPGA, BC::CPUBit), DK::Undefined);
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::CPU, BC::CPUBit), DK::Undefined);
  EXPECT_EQ(dispatch::toRuntimePerBackendFunctionalityKey(DK::Autograd, BC::CPUBit), DK::Undefined);
}

TEST(DispatchKeyTest, IsPerBackendFunctionalityKey) {
  const std::set<int> expected = {1, 6, 9, 12,
                                  24};  // Dense Quantized Sparse NestedTensor AutogradF.
  for (int v = 0; v <= kLastValue; ++v) {
    EXPECT_EQ(dispatch::isPerBackendFunctionalityKey(key(v)), expected.count(v) == 1)
        << dispatch::toString(key(v));
  }
  for (int v : kOutOfRange) EXPECT_FALSE(dispatch::isPerBackendFunctionalityKey(key(v)));
  EXPECT_TRUE(dispatch::isPerBackendFunctionalityKey(DK::NestedTensor));
  EXPECT_FALSE(dispatch::isPerBackendFunctionalityKey(DK::CPU));
  EXPECT_FALSE(dispatch::isPerBackendFunctionalityKey(DK::AutogradOther));
}

TEST(DispatchKeyTest, IsAliasDispatchKey) {
  for (int v = 0; v <= kLastValue; ++v) {
    EXPECT_EQ(dispatch::isAliasDispatchKey(key(v)), v >= 117 && v <= 121)
        << dispatch::toString(key(v));
  }
  for (int v : kOutOfRange) EXPECT_FALSE(dispatch::isAliasDispatchKey(key(v))) << v;
  EXPECT_TRUE(dispatch::isAliasDispatchKey(DK::DefaultBackend));
  EXPECT_FALSE(dispatch::isAliasDispatchKey(DK::AutogradOther));
  EXPECT_FALSE(dispatch::isAliasDispatchKey(DK::AutogradCPU));
}

TEST(DispatchKeyTest, IsRuntimeDispatchKey) {
  int count = 0;
  for (const auto& k : spec::allKeys()) {
    EXPECT_EQ(dispatch::isRuntimeDispatchKey(key(k.value)), k.runtime) << k.name;
    count += dispatch::isRuntimeDispatchKey(key(k.value)) ? 1 : 0;
  }
  EXPECT_EQ(count, 105);  // 35 plain functionalities + 5 x 14 per-backend instances
  for (int v : kOutOfRange) EXPECT_FALSE(dispatch::isRuntimeDispatchKey(key(v))) << v;
  EXPECT_FALSE(dispatch::isRuntimeDispatchKey(DK::Undefined));
  EXPECT_FALSE(dispatch::isRuntimeDispatchKey(DK::Dense));
  EXPECT_FALSE(dispatch::isRuntimeDispatchKey(DK::EndOfFunctionalityKeys));
  EXPECT_FALSE(dispatch::isRuntimeDispatchKey(DK::StartOfQuantizedBackends));
  EXPECT_FALSE(dispatch::isRuntimeDispatchKey(DK::CompositeExplicitAutograd));
  EXPECT_TRUE(dispatch::isRuntimeDispatchKey(DK::PythonDispatcher));
  EXPECT_TRUE(dispatch::isRuntimeDispatchKey(DK::AutogradHIP));
}

TEST(DispatchKeyTest, CheckValidDispatchKey) {
  for (int v = 0; v <= kLastValue; ++v) {
    EXPECT_NO_THROW(dispatch::checkValidDispatchKey(key(v), "test")) << v;
    EXPECT_TRUE(dispatch::isValidDispatchKey(key(v))) << v;
  }
  for (int v : kOutOfRange) {
    EXPECT_FALSE(dispatch::isValidDispatchKey(key(v))) << v;
    try {
      dispatch::checkValidDispatchKey(key(v), "registerKernel");
      ADD_FAILURE() << "no exception for " << v;
    } catch (const dispatch::InvalidKeyError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("registerKernel"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(v)), std::string::npos) << what;
    }
  }
}

TEST(DispatchKeyTest, IsValidBackendComponent) {
  for (int b = 0; b <= 14; ++b) EXPECT_TRUE(dispatch::isValidBackendComponent(backend(b))) << b;
  for (int b : {15, 16, 64, 255}) EXPECT_FALSE(dispatch::isValidBackendComponent(backend(b))) << b;
}

}  // namespace
