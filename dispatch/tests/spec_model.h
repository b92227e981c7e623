#pragma once
// A test-only model of the PyTorch 1.13.1 key space, written from the tables of
// docs/semantics.md sections 1.2 - 1.5. It deliberately uses none of
// the library's helpers (no key_table.h macros, no toFunctionalityKey, ...): every expectation
// the tests derive from it is an independent re-statement of the spec, so a wrong library value
// makes a test fail instead of agreeing with itself.

#include <cstdint>
#include <string>
#include <vector>

namespace spec {

// Section 1.2: BackendComponent value b (1..14) owns key-set bit b - 1.
inline constexpr int kNumBackends = 14;
inline const char* const kBackendNames[kNumBackends + 1] = {
    nullptr,  // InvalidBit
    "CPU",   "CUDA", "HIP",  "XLA",  "MPS",         "IPU",         "XPU",
    "HPU",   "VE",   "Lazy", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3"};

// Section 1.3: functionality value f (1..40) owns key-set bit 13 + f; 41 is the sentinel.
inline constexpr int kNumFunctionalityKeys = 41;
inline const char* const kFunctionalityNames[kNumFunctionalityKeys + 1] = {
    "Undefined",                       // 0
    "Dense",                           // 1
    "FPGA",                            // 2
    "ORT",                             // 3
    "Vulkan",                          // 4
    "Metal",                           // 5
    "Quantized",                       // 6
    "CustomRNGKeyId",                  // 7
    "MkldnnCPU",                       // 8
    "Sparse",                          // 9
    "SparseCsrCPU",                    // 10
    "SparseCsrCUDA",                   // 11
    "NestedTensor",                    // 12
    "BackendSelect",                   // 13
    "Python",                          // 14
    "Fake",                            // 15
    "FuncTorchDynamicLayerBackMode",   // 16
    "Functionalize",                   // 17
    "Named",                           // 18
    "Conjugate",                       // 19
    "Negative",                        // 20
    "ZeroTensor",                      // 21
    "ADInplaceOrView",                 // 22
    "AutogradOther",                   // 23
    "AutogradFunctionality",           // 24
    "AutogradNestedTensor",            // 25
    "Tracer",                          // 26
    "AutocastCPU",                     // 27
    "AutocastXPU",                     // 28
    "AutocastCUDA",                    // 29
    "FuncTorchBatched",                // 30
    "FuncTorchVmapMode",               // 31
    "Batched",                         // 32
    "VmapMode",                        // 33
    "FuncTorchGradWrapper",            // 34
    "DeferredInit",                    // 35
    "PythonTLSSnapshot",               // 36
    "FuncTorchDynamicLayerFrontMode",  // 37
    "TESTING_ONLY_GenericWrapper",     // 38
    "TESTING_ONLY_GenericMode",        // 39
    "PythonDispatcher",                // 40
    "EndOfFunctionalityKeys",          // 41 (sentinel)
};

// The "slots" column of the 1.3 table: first runtime-table slot of each functionality value.
inline constexpr int kSlotOfFunctionality[kNumFunctionalityKeys] = {
    0,  1,  15, 16, 17, 18, 19, 33, 34, 35, 49, 50, 51, 65, 66,  67,  68,  69,  70,  71, 72,
    73, 74, 75, 76, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105};

// Section 1.4: the per-backend functionalities, their runtime-key name prefix, and the value of
// their StartOf<F>Backends placeholder.
struct PerBackendBlock {
  int functionality;
  const char* prefix;
  const char* placeholder_name;
  int start;
};
inline constexpr PerBackendBlock kBlocks[] = {
    {1, "", "Unknown", 42},
    {6, "Quantized", "QuantizedUnknown", 57},
    {9, "Sparse", "SparseUnknown", 72},
    {12, "NestedTensor", "NestedTensorUnknown", 87},
    {24, "Autograd", "AutogradUnknown", 102},
};

inline constexpr bool isPerBackend(int f) {
  for (const auto& b : kBlocks)
    if (b.functionality == f) return true;
  return false;
}

// Section 1.5: alias keys 117 .. 121.
inline constexpr int kFirstAlias = 117;
inline constexpr int kLastAlias = 121;
inline const char* const kAliasNames[] = {
    "Autograd", "CompositeImplicitAutograd", "CompositeImplicitAutogradNestedTensor",
    "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"};

// Everything the spec says about one enum value.
struct Key {
  int value;
  std::string name;
  int functionality;  // value of toFunctionalityKey; 0 (Undefined) for aliases
  int backend;        // BackendComponent value of toBackendComponent; 0 = InvalidBit
  bool runtime;       // plain functionality or per-backend instance (has a slot, is iterated)
  bool alias;
};

inline std::vector<Key> allKeys() {
  std::vector<Key> keys;
  for (int f = 0; f <= kNumFunctionalityKeys; ++f) {
    const bool runtime = f != 0 && f != kNumFunctionalityKeys && !isPerBackend(f);
    keys.push_back({f, kFunctionalityNames[f], f, 0, runtime, false});
  }
  for (const auto& blk : kBlocks) {
    keys.push_back({blk.start, blk.placeholder_name, blk.functionality, 0, false, false});
    for (int b = 1; b <= kNumBackends; ++b) {
      keys.push_back({blk.start + b, std::string(blk.prefix) + kBackendNames[b], blk.functionality,
                      b, true, false});
    }
  }
  for (int a = kFirstAlias; a <= kLastAlias; ++a) {
    keys.push_back({a, kAliasNames[a - kFirstAlias], 0, 0, false, true});
  }
  return keys;  // index == value (checked by the tests)
}

inline std::vector<Key> runtimeKeys() {
  std::vector<Key> out;
  for (auto& k : allKeys())
    if (k.runtime) out.push_back(k);
  return out;
}

// Value of the runtime key (functionality f, backend b): section 1.4 block arithmetic.
inline int keyValue(int f, int b) {
  if (!isPerBackend(f)) return f;
  for (const auto& blk : kBlocks)
    if (blk.functionality == f) return blk.start + b;
  return -1;
}

// Section 2.1 bit positions.
inline constexpr uint64_t functionalityBit(int f) { return uint64_t{1} << (13 + f); }
inline constexpr uint64_t backendBit(int b) { return b == 0 ? 0 : uint64_t{1} << (b - 1); }

// The repr of the singleton set of a spec key (section 2.1 constructor table).
inline uint64_t reprOf(const Key& k) {
  if (k.alias || k.value == 0) return 0;
  return functionalityBit(k.functionality) | backendBit(k.backend);
}

// Section 2.4 / 2.6: the runtime keys of the set (functionality bits F, backend bits B), in
// iteration order: functionalities ascending; a per-backend one expands to every backend in B,
// ascending. F and B are bit masks indexed by value (bit f for functionality f, bit b for
// backend b).
inline std::vector<int> expectedIteration(uint64_t F, uint32_t B) {
  std::vector<int> out;
  for (int f = 1; f < kNumFunctionalityKeys; ++f) {
    if (!(F >> f & 1)) continue;
    if (!isPerBackend(f)) {
      out.push_back(f);
      continue;
    }
    for (int b = 1; b <= kNumBackends; ++b)
      if (B >> b & 1) out.push_back(keyValue(f, b));
  }
  return out;
}

}  // namespace spec
