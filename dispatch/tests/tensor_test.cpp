// Tensor and the key sets of docs/semantics.md §5.5.

#include "dispatch/tensor.h"

#include <gtest/gtest.h>

#include <sstream>
#include <type_traits>

namespace dispatch {
namespace {

constexpr TensorKind kAllKinds[] = {TensorKind::Dense, TensorKind::Quantized, TensorKind::Sparse,
                                    TensorKind::Nested};

BackendComponent backendAt(int b) { return static_cast<BackendComponent>(b); }

TEST(TensorTest, UndefinedByDefault) {
  const Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_TRUE(t.key_set().empty());
  EXPECT_EQ(t.id(), 0);
  EXPECT_EQ(t, Tensor(DispatchKeySet()));
}

TEST(TensorTest, CarriesKeySetAndId) {
  const Tensor t(DispatchKeySet(DK::CPU), 7);
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.key_set(), DispatchKeySet(DK::CPU));
  EXPECT_EQ(t.id(), 7);
  EXPECT_EQ(t, Tensor(DispatchKeySet(DK::CPU), 7));
  EXPECT_NE(t, Tensor(DispatchKeySet(DK::CPU), 8));
  EXPECT_NE(t, Tensor(DispatchKeySet(DK::CUDA), 7));
}

TEST(TensorTest, CheapToCopy) {
  EXPECT_EQ(sizeof(Tensor), 16u);
  EXPECT_TRUE(std::is_trivially_copyable_v<Tensor>);
  // A key set must never silently become a tensor.
  EXPECT_FALSE((std::is_convertible_v<DispatchKeySet, Tensor>));
}

TEST(TensorTest, Prints) {
  std::ostringstream out;
  out << Tensor(DispatchKeySet(DK::CPU), 3) << ' ' << Tensor();
  EXPECT_EQ(out.str(), "Tensor(id=3, DispatchKeySet(CPU)) Tensor(undefined, id=0)");
}

// The verified table of docs/semantics.md §5.5.
TEST(TensorKeySetTest, VerifiedExamples) {
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::CPUBit),
            (DispatchKeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(TensorKind::Sparse, BC::CPUBit),
            (DispatchKeySet{DK::SparseCPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(
      tensorKeySet(TensorKind::Quantized, BC::CPUBit),
      (DispatchKeySet{DK::QuantizedCPU, DK::ADInplaceOrView, DK::AutogradCPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::MetaBit),
            (DispatchKeySet{DK::Meta, DK::ADInplaceOrView, DK::AutogradMeta}));
}

TEST(TensorKeySetTest, AutocastFollowsBackend) {
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::CUDABit),
            (DispatchKeySet{DK::CUDA, DK::ADInplaceOrView, DK::AutogradCUDA, DK::AutocastCUDA}));
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::XLABit),
            (DispatchKeySet{DK::XLA, DK::ADInplaceOrView, DK::AutogradXLA, DK::AutocastCUDA}));
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::XPUBit),
            (DispatchKeySet{DK::XPU, DK::ADInplaceOrView, DK::AutogradXPU, DK::AutocastXPU}));
}

TEST(TensorKeySetTest, HipAndVeUseAutogradOther) {
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::HIPBit),
            (DispatchKeySet{DK::HIP, DK::ADInplaceOrView, DK::AutogradOther}));
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::VEBit),
            (DispatchKeySet{DK::VE, DK::ADInplaceOrView, DK::AutogradOther}));
}

TEST(TensorKeySetTest, NestedUsesAutogradNestedTensor) {
  EXPECT_EQ(tensorKeySet(TensorKind::Nested, BC::CPUBit),
            (DispatchKeySet{DK::NestedTensorCPU, DK::ADInplaceOrView, DK::AutogradNestedTensor,
                            DK::AutocastCPU}));
  EXPECT_FALSE(tensorKeySet(TensorKind::Nested, BC::CUDABit).has(DK::AutogradCUDA));
}

TEST(TensorKeySetTest, InferenceModeDropsAutogradKeys) {
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::CPUBit, false, true),
            (DispatchKeySet{DK::CPU, DK::AutocastCPU}));
  EXPECT_EQ(tensorKeySet(TensorKind::Dense, BC::MetaBit, false, true), DispatchKeySet(DK::Meta));
  EXPECT_EQ(tensorKeySet(TensorKind::Nested, BC::CUDABit, true, true),
            (DispatchKeySet{DK::NestedTensorCUDA, DK::AutocastCUDA}));
}

TEST(TensorKeySetTest, RequiresGradDoesNotChangeKeys) {
  for (TensorKind kind : kAllKinds) {
    for (int b = 1; b <= num_backends; ++b) {
      for (bool inference : {false, true}) {
        EXPECT_EQ(tensorKeySet(kind, backendAt(b), true, inference),
                  tensorKeySet(kind, backendAt(b), false, inference))
            << toString(kind) << " " << backendAt(b);
      }
    }
  }
}

TEST(TensorKeySetTest, RejectsInvalidBackend) {
  EXPECT_THROW((void)tensorKeySet(TensorKind::Dense, BC::InvalidBit), InvalidKeyError);
  EXPECT_THROW((void)tensorKeySet(TensorKind::Dense, backendAt(num_backends + 1)),
               InvalidKeyError);
}

// Every backend x kind: one backend bit, exactly one per-backend "storage" key of the right
// kind, python keys never present, autograd keys present iff not in inference mode.
TEST(TensorKeySetTest, EveryBackendAndKind) {
  for (TensorKind kind : kAllKinds) {
    const DispatchKey functionality = functionalityOf(kind);
    for (int b = 1; b <= num_backends; ++b) {
      const BackendComponent backend = backendAt(b);
      for (bool inference : {false, true}) {
        SCOPED_TRACE(::testing::Message() << toString(kind) << " " << backend
                                          << (inference ? " inference" : ""));
        const DispatchKeySet ks = tensorKeySet(kind, backend, false, inference);
        EXPECT_EQ(ks.raw_repr() & DispatchKeySet::full_backend_mask,
                  DispatchKeySet(backend).raw_repr());
        EXPECT_EQ(ks.highestBackendKey(), backend);

        int storage_keys = 0;
        for (DispatchKey k : ks) {
          const DispatchKey f = toFunctionalityKey(k);
          if (f == DK::Dense || f == DK::Quantized || f == DK::Sparse || f == DK::NestedTensor) {
            ++storage_keys;
            EXPECT_EQ(k, toRuntimePerBackendFunctionalityKey(functionality, backend));
          }
        }
        EXPECT_EQ(storage_keys, 1);
        EXPECT_FALSE(ks.has_any(python_ks));
        EXPECT_EQ(ks.has(DK::ADInplaceOrView), !inference);
        EXPECT_EQ(ks.has_any(autograd_dispatch_keyset), !inference);
        EXPECT_TRUE(ks.has_all(getAutocastRelatedKeySetFromBackend(backend)));
        if (kind != TensorKind::Nested) {
          EXPECT_EQ(highestPriorityBackendTypeId(ks),
                    toRuntimePerBackendFunctionalityKey(functionality, backend));
        }
      }
    }
  }
}

TEST(TensorKeySetTest, MakeTensor) {
  const Tensor t = makeTensor(TensorKind::Sparse, BC::CUDABit, true, false, 42);
  EXPECT_EQ(t.id(), 42);
  EXPECT_EQ(t.key_set(), tensorKeySet(TensorKind::Sparse, BC::CUDABit));
  static_assert(makeTensor(TensorKind::Dense, BC::CPUBit).defined());
}

}  // namespace
}  // namespace dispatch
