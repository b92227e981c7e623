// OperatorEntry: the precedence of docs/semantics.md §4.4, its exceptions (4.4, 4.6, 4.7), the order
// independence we promise instead of 1.13.1's stale entries (4.5), kernel stacks (4.3) and the
// trimmed mobile table (6.2). Every expected table is written from the spec with the key lists of
// dispatcher_test_support.h, never recomputed with library functions.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {

struct OperatorEntryTestPeer {
  template <class L>
  static std::atomic<uint64_t>& fallthroughMask(const BasicOperatorEntry<L>& entry,
                                                BackendComponent b) {
    auto& mutable_entry = const_cast<BasicOperatorEntry<L>&>(entry);
    return mutable_entry
        .non_fallthrough_per_backend_[static_cast<size_t>(L::fallthroughMaskOfBackend(b))];
  }
  template <class L>
  static std::atomic<const BasicAnnotatedKernel<L>*>& slot(const BasicOperatorEntry<L>& entry,
                                                           int index) {
    return const_cast<BasicOperatorEntry<L>&>(entry).table_[static_cast<size_t>(index)];
  }
  template <class L>
  static EntryTag& tag(const BasicOperatorEntry<L>& entry, int index) {
    return const_cast<BasicOperatorEntry<L>&>(entry).tags_[static_cast<size_t>(index)];
  }
};

namespace {

using namespace test_support;

template <class L>
class OperatorEntryTest : public ::testing::Test {
 protected:
  using Dispatcher = BasicDispatcher<L>;
  using KernelFunction = BasicKernelFunction<L>;

  BasicOperatorHandle<L> op(const std::string& name = "test::op") const {
    auto found = d.findOp(OperatorName{name, ""});
    if (!found) throw std::runtime_error("test bug: no operator " + name);
    return *found;
  }
  RegistrationHandle impl(std::optional<DispatchKey> k, const std::string& debug, int64_t ret,
                          const std::string& name = "test::op") {
    return implInt(d, name, k, debug, ret);
  }
  RegistrationHandle fallback(DispatchKey k, const std::string& debug, int64_t ret) {
    return d.registerFallback(k, boxedInt<L>(ret), debug);
  }
  RegistrationHandle fallthroughFallback(DispatchKey k, const std::string& debug) {
    return d.registerFallback(k, KernelFunction::makeFallthrough(), debug);
  }
  int64_t call(const Tensor& t, const std::string& name = "test::op") const {
    return op(name).template typed<IntSig>().call(t);
  }
  std::string computed(const std::string& key, const std::string& name = "test::op") const {
    return entryOf(op(name).dumpComputedTable(), key);
  }
  // The recomputed entry of `key` is `expected` where the flavour keeps the key; a key without a
  // slot is never listed.
  void expectComputed(const std::string& key, const std::string& expected,
                      const std::string& name = "test::op") const {
    const std::string actual = computed(key, name);
    if (!hasSlot<L>(key)) {
      EXPECT_EQ(actual, "") << key << " has no slot in " << L::kName;
    } else {
      EXPECT_TRUE(valueMatches(expected, actual)) << key << ": " << actual << " vs " << expected;
    }
  }

  Dispatcher d;
  RegistrationHandle def_ = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
};
TYPED_TEST_SUITE(OperatorEntryTest, TestedLayouts, LayoutName);

constexpr const char* kMath = "cia [math kernel]";
constexpr const char* kAmbiguous = "* [ambiguous autogradother]";

// --- 4.4 step by step ----------------------------------------------------------------------------

TYPED_TEST(OperatorEntryTest, NoKernelsNoFallbacksIsMissingEverywhere) {
  expectTables(this->op(), Expect{});
  EXPECT_EQ(this->op().dumpComputedTable(), "");
  EXPECT_EQ(this->op().dumpDispatchTable(), "");
  EXPECT_TRUE(this->op().listAllDispatchKeys().empty());
  EXPECT_FALSE(this->op().hasComputedKernelForDispatchKey(DK::CPU));
}

TYPED_TEST(OperatorEntryTest, Step1DirectKernel) {
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  expectTables(this->op(), Expect().one("CPU", "cpu [kernel]"));
  EXPECT_EQ(this->op().listAllDispatchKeys(), std::vector<DispatchKey>{DK::CPU});
  EXPECT_TRUE(this->op().hasComputedKernelForDispatchKey(DK::CPU));
  EXPECT_TRUE(this->op().hasKernelForDispatchKey(DK::CPU));
  EXPECT_FALSE(this->op().hasKernelForDispatchKey(DK::CompositeImplicitAutograd));
}

TYPED_TEST(OperatorEntryTest, Step1DirectKernelBeatsEveryAlias) {
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  auto ceanf = this->impl(DK::CompositeExplicitAutogradNonFunctional, "ceanf", 2);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto ag = this->impl(DK::Autograd, "ag", 5);
  // CPU: its own kernel. Other CEANF keys: CEANF; the rest of CEA: CEA. Undefined: CEANF (step
  // 2 comes first). CEA exists, so CIA is off everywhere (has_backend_kernel); the autograd keys
  // get the Autograd kernel (step 7); NestedTensor<X> is covered by none of them: missing.
  expectTables(this->op(), Expect()
                               .set(autogradKeys(), "ag [autograd kernel]")
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .set(ceanfKeys(), "ceanf [default backend kernel]")
                               .one("Undefined", "ceanf [default backend kernel]")
                               .one("CPU", "cpu [kernel]"));
}

TYPED_TEST(OperatorEntryTest, Step2CompositeExplicitAutogradNonFunctional) {
  auto ceanf = this->impl(DK::CompositeExplicitAutogradNonFunctional, "ceanf", 2);
  expectTables(this->op(), Expect()
                               .set(ceanfKeys(), "ceanf [default backend kernel]")
                               .one("Undefined", "ceanf [default backend kernel]"));
  if constexpr (isFull<TypeParam>()) {
    // Not on the XLA / Lazy backends and not Sparse (docs/semantics.md §2.8): 32 keys.
    this->expectComputed("XLA", "");
    this->expectComputed("QuantizedLazy", "");
    this->expectComputed("SparseCPU", "");
    this->expectComputed("CUDA", "ceanf [default backend kernel]");
    EXPECT_EQ(ceanfKeys().size(), 32u);
  }
}

TYPED_TEST(OperatorEntryTest, Step2CEANFBeatsCEA) {
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  auto ceanf = this->impl(DK::CompositeExplicitAutogradNonFunctional, "ceanf", 2);
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .set(ceanfKeys(), "ceanf [default backend kernel]")
                               .one("Undefined", "ceanf [default backend kernel]"));
}

TYPED_TEST(OperatorEntryTest, Step3CompositeExplicitAutograd) {
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]"));
  EXPECT_EQ(ceaKeys().size(), 50u);
}

TYPED_TEST(OperatorEntryTest, Step4CEANFDoesNotSwitchOffCIA) {
  // has_backend_kernel counts CEA only; a CEANF kernel leaves CIA on for the keys it lacks.
  auto ceanf = this->impl(DK::CompositeExplicitAutogradNonFunctional, "ceanf", 2);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .set(ceanfKeys(), "ceanf [default backend kernel]")
                               .one("Undefined", "ceanf [default backend kernel]"));
}

TYPED_TEST(OperatorEntryTest, Step5CompositeImplicitAutogradNestedTensor) {
  auto nested = this->impl(DK::CompositeImplicitAutogradNestedTensor, "nested", 6);
  // NestedTensor x 14 and AutogradNestedTensor; never Undefined.
  expectTables(this->op(), Expect().set(ciaNestedKeys(), "nested [nested kernel]"));
  EXPECT_EQ(ciaNestedKeys().size(), 15u);
  if (slotted<TypeParam>(ciaNestedKeys()).empty()) {
    EXPECT_EQ(this->op().dumpComputedTable(), "");
  }
}

TYPED_TEST(OperatorEntryTest, Step5NestedBeatsCIA) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto nested = this->impl(DK::CompositeImplicitAutogradNestedTensor, "nested", 6);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .set(ciaNestedKeys(), "nested [nested kernel]"));
}

TYPED_TEST(OperatorEntryTest, Step6CompositeImplicitAutogradIsTheMathKernel) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  expectTables(this->op(), Expect().set(ciaKeys(), kMath).one("Undefined", kMath));
  EXPECT_EQ(ciaKeys().size(), 80u);
  // A CPU tensor reaches AutogradCPU, which holds the math kernel.
  EXPECT_EQ(this->call(cpuTensor()), 4);
}

TYPED_TEST(OperatorEntryTest, Step7AutogradAlias) {
  auto ag = this->impl(DK::Autograd, "ag", 5);
  expectTables(this->op(), Expect().set(autogradKeys(), "ag [autograd kernel]"));
  EXPECT_EQ(autogradKeys().size(), 16u);
}

TYPED_TEST(OperatorEntryTest, Step6CIAOutranksAutograd) {
  auto ag = this->impl(DK::Autograd, "ag", 5);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  expectTables(this->op(), Expect().set(ciaKeys(), kMath).one("Undefined", kMath));
}

TYPED_TEST(OperatorEntryTest, Step7AutogradFillsTheAutogradKeyOfABackendWithAKernel) {
  auto ag = this->impl(DK::Autograd, "ag", 5);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("CPU", "cpu [kernel]")
                               .one("AutogradCPU", "ag [autograd kernel]"));
}

TYPED_TEST(OperatorEntryTest, Step8BackendFallback) {
  auto fb = this->fallback(DK::CPU, "fb_cpu", 7);
  auto ft = this->fallthroughFallback(DK::AutogradCPU, "ft_autogradcpu");
  expectTables(this->op(),
               Expect()
                   .one("CPU", "fb_cpu [backend fallback]")
                   .one("AutogradCPU", "fallthrough ft_autogradcpu [backend fallback]"));
}

TYPED_TEST(OperatorEntryTest, Step8EveryAliasStepBeatsTheFallback) {
  auto fb_cpu = this->fallback(DK::CPU, "fb_cpu", 7);
  auto fb_agcpu = this->fallback(DK::AutogradCPU, "fb_agcpu", 8);
  auto fb_bs = this->fallback(DK::BackendSelect, "fb_bs", 9);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("BackendSelect", "fb_bs [backend fallback]"));
  cia.release();
  auto ag = this->impl(DK::Autograd, "ag", 5);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]")
                               .set(autogradKeys(), "ag [autograd kernel]")
                               .one("BackendSelect", "fb_bs [backend fallback]"));
}

TYPED_TEST(OperatorEntryTest, Step9FallbackGoneMeansMissing) {
  auto fb = this->fallback(DK::CPU, "fb_cpu", 7);
  expectTables(this->op(), Expect().one("CPU", "fb_cpu [backend fallback]"));
  fb.release();
  expectTables(this->op(), Expect());
}

// --- has_backend_kernel exceptions (4.4) ---------------------------------------------------------

TYPED_TEST(OperatorEntryTest, CIAStepsAsideForTheAutogradKeyOfABackendWithAKernel) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  // AutogradCPU: no CIA, no Autograd kernel, no fallback: missing. AutogradOther keeps CIA (CPU
  // is not an AutogradOther backend).
  const Expect base =
      Expect().set(ciaKeys(), kMath).one("Undefined", kMath).one("CPU", "cpu [kernel]");
  expectTables(this->op(), Expect(base).eraseOne("AutogradCPU"));
  this->expectComputed("AutogradOther", kMath);
  // With the usual fallthrough the slot keeps it, so a call drops through to CPU.
  auto ft = this->fallthroughFallback(DK::AutogradCPU, "ft");
  expectTables(this->op(), Expect(base).one("AutogradCPU", "fallthrough ft [backend fallback]"));
}

TYPED_TEST(OperatorEntryTest, CEASwitchesOffCIAForEveryKey) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  // Only the CEA keys and Undefined; the autograd keys, NestedTensor<X> and
  // AutogradNestedTensor are missing (verified 1.13.1 behaviour, docs/semantics.md §4.4).
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]"));
  if constexpr (isFull<TypeParam>()) {
    this->expectComputed("NestedTensorCPU", "");
    this->expectComputed("AutogradNestedTensor", "");
    this->expectComputed("AutogradCUDA", "");
  }
}

TYPED_TEST(OperatorEntryTest, CEAAndCIAKeysNotCoveredFallToAutograd) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  auto ag = this->impl(DK::Autograd, "ag", 5);
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]")
                               .set(autogradKeys(), "ag [autograd kernel]"));
}

TYPED_TEST(OperatorEntryTest, AutogradHIPAndVEIgnoreTheirBackendKernels) {
  // getBackendKeySetFromAutograd(AutogradHIP) is empty (docs/semantics.md §2.8): a HIP kernel does not make
  // CIA step aside on AutogradHIP, and HIP is not an AutogradOther backend either.
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto hip = this->impl(DK::HIP, "hip", 10);
  auto ve = this->impl(DK::VE, "ve", 11);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("HIP", "hip [kernel]")
                               .one("VE", "ve [kernel]"));
}

// --- 4.6 the ambiguous AutogradOther entry -------------------------------------------------------

TYPED_TEST(OperatorEntryTest, CIAPlusFPGAVerifiedTable) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto fpga = this->impl(DK::FPGA, "fpga", 12);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("FPGA", "fpga [kernel]")
                               .one("AutogradOther", kAmbiguous));
  // The rows of the verified table, one by one.
  this->expectComputed("Undefined", kMath);
  this->expectComputed("CPU", kMath);
  this->expectComputed("AutogradCPU", kMath);
  this->expectComputed("AutogradOther", kAmbiguous);
  if constexpr (isFull<TypeParam>()) {
    for (const char* k : {"CUDA", "XLA", "AutogradCUDA", "AutogradXLA"}) {
      EXPECT_EQ(this->computed(k), kMath) << k;
    }
    this->expectComputed("FPGA", "fpga [kernel]");
  }
}

TYPED_TEST(OperatorEntryTest, EveryAutogradOtherBackendMakesAutogradOtherAmbiguous) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  // The 36 runtime keys of autogradother_backends (docs/semantics.md §2.7), and keys outside it.
  Names members = concatNames({{"FPGA", "ORT", "Vulkan", "Metal"},
                               perBackend("Quantized"),
                               {"CustomRNGKeyId", "MkldnnCPU"},
                               perBackend("Sparse"),
                               {"SparseCsrCPU", "SparseCsrCUDA"}});
  ASSERT_EQ(members.size(), 36u);
  for (const auto& key : fullRuntimeKeys()) {
    const bool member = std::find(members.begin(), members.end(), key.name) != members.end();
    auto h = this->impl(keyOfValue(key.value), "k", 13);
    const std::string entry = this->computed("AutogradOther");
    if (!hasSlot<TypeParam>("AutogradOther")) {
      EXPECT_EQ(entry, "") << key.name;
    } else if (member) {
      EXPECT_TRUE(valueMatches(kAmbiguous, entry)) << key.name << ": " << entry;
    } else if (key.name != "AutogradOther") {
      EXPECT_EQ(entry, kMath) << key.name;
    } else {
      EXPECT_EQ(entry, "k [kernel]");
    }
    EXPECT_NO_THROW(this->op().checkInvariants()) << key.name;
  }
  expectTables(this->op(), Expect().set(ciaKeys(), kMath).one("Undefined", kMath));
}

TYPED_TEST(OperatorEntryTest, CEADoesNotLiftTheAmbiguityOnlyDroppingCIADoes) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto fpga = this->impl(DK::FPGA, "fpga", 12);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]")
                               .one("FPGA", "fpga [kernel]")
                               .one("AutogradOther", kAmbiguous));
  cia.release();
  expectTables(this->op(), Expect()
                               .set(ceaKeys(), "cea [default backend kernel]")
                               .one("Undefined", "cea [default backend kernel]")
                               .one("FPGA", "fpga [kernel]"));
}

// --- 4.7 Quantized + CIA -------------------------------------------------------------------------

TYPED_TEST(OperatorEntryTest, QuantizedPlusCIA) {
  auto fallthroughs = usualFallthroughs(this->d);
  const Tensor q = tensor(TensorKind::Quantized, BC::CPUBit);
  {  // Row 1: CIA + QuantizedCPU.
    auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
    auto qcpu = this->impl(DK::QuantizedCPU, "qcpu", 14);
    this->expectComputed("AutogradCPU", kMath);
    this->expectComputed("AutogradOther", kAmbiguous);
    this->expectComputed("QuantizedCPU", "qcpu [kernel]");
    EXPECT_EQ(this->call(q), 4) << "the CIA kernel runs for a quantized CPU tensor";
    {
      AutoDispatchBelowAutograd below;
      EXPECT_EQ(this->call(q), 14) << "below autograd the Quantized kernel is reached";
    }
    EXPECT_NO_THROW(this->d.checkInvariants());
  }
  {  // Row 2: CIA + CPU + QuantizedCPU.
    auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
    auto cpu = this->impl(DK::CPU, "cpu", 1);
    auto qcpu = this->impl(DK::QuantizedCPU, "qcpu", 14);
    this->expectComputed("AutogradCPU", "fallthrough autograd_ft [backend fallback]");
    this->expectComputed("AutogradOther", kAmbiguous);
    EXPECT_EQ(this->call(q), 14);
    EXPECT_EQ(this->call(cpuTensor()), 1);
  }
  {  // Row 3: CEA + QuantizedCPU.
    auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
    auto qcpu = this->impl(DK::QuantizedCPU, "qcpu", 14);
    this->expectComputed("AutogradCPU", "fallthrough autograd_ft [backend fallback]");
    this->expectComputed("AutogradOther", "fallthrough autograd_ft [backend fallback]");
    EXPECT_EQ(this->call(q), 14);
    EXPECT_EQ(this->call(cpuTensor()), 3);
  }
  EXPECT_NO_THROW(this->d.checkInvariants());
}

// --- 4.5 order dependence: never stale here ------------------------------------------------------

TYPED_TEST(OperatorEntryTest, CIAThenSparseCPUIsNotStale) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto sparse = this->impl(DK::SparseCPU, "sparse", 15);
  const Expect expected = Expect()
                              .set(ciaKeys(), kMath)
                              .one("Undefined", kMath)
                              .one("SparseCPU", "sparse [kernel]")
                              .one("AutogradOther", kAmbiguous);
  expectTables(this->op(), expected);  // includes checkInvariants
  if (hasSlot<TypeParam>("AutogradOther")) {
    EXPECT_TRUE(valueMatches(kAmbiguous, entryOf(this->op().dumpDispatchTable(), "AutogradOther")));
  }

  // The opposite order gives the same row.
  auto def2 = this->d.registerDef(parseSchema("test::op2(Tensor self) -> int"), "def_op2");
  auto sparse2 = this->impl(DK::SparseCPU, "sparse", 15, "test::op2");
  auto cia2 = this->impl(DK::CompositeImplicitAutograd, "cia", 4, "test::op2");
  EXPECT_EQ(this->op("test::op2").dumpDispatchTable(), this->op().dumpDispatchTable());

  // And dropping the Sparse kernel makes AutogradOther the math kernel again.
  sparse.release();
  expectTables(this->op(), Expect().set(ciaKeys(), kMath).one("Undefined", kMath));
}

TYPED_TEST(OperatorEntryTest, CIAThenQuantizedCPUIsNotStale) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto q = this->impl(DK::QuantizedCPU, "q", 14);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("QuantizedCPU", "q [kernel]")
                               .one("AutogradOther", kAmbiguous));
  EXPECT_NO_THROW(this->d.checkInvariants());
}

TYPED_TEST(OperatorEntryTest, CIAThenNestedTensorCPUIsNotStale) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto nested = this->impl(DK::NestedTensorCPU, "nested_cpu", 16);
  // AutogradNestedTensor: CIA steps aside (a NestedTensor kernel exists), nothing else: missing.
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("NestedTensorCPU", "nested_cpu [kernel]")
                               .eraseOne("AutogradNestedTensor"));
  if constexpr (isFull<TypeParam>()) {
    EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "AutogradNestedTensor"), "");
  }
}

TYPED_TEST(OperatorEntryTest, CIAThenCPUFPGAMetaAgreeWithRecomputation) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  auto fpga = this->impl(DK::FPGA, "fpga", 12);
  auto meta = this->impl(DK::Meta, "meta", 17);
  expectTables(this->op(), Expect()
                               .set(ciaKeys(), kMath)
                               .one("Undefined", kMath)
                               .one("CPU", "cpu [kernel]")
                               .one("FPGA", "fpga [kernel]")
                               .one("Meta", "meta [kernel]")
                               .one("AutogradOther", kAmbiguous)
                               .eraseOne("AutogradCPU")
                               .eraseOne("AutogradMeta"));
}

// --- 4.3 kernel stacks ---------------------------------------------------------------------------

// The kernel lines of dumpState ("<key>[...]: <debug> :: ..."), in order.
std::vector<std::string> kernelLines(const std::string& state) {
  std::vector<std::string> out;
  std::istringstream in(state);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("name: ", 0) == 0 || line.rfind("schema: ", 0) == 0 ||
        line.rfind("debug: ", 0) == 0) {
      continue;
    }
    out.push_back(line.substr(0, line.find(" :: ")));
  }
  return out;
}

TYPED_TEST(OperatorEntryTest, KernelStackLastRegistrationWinsAndDeregistrationRestores) {
  auto fallthroughs = usualFallthroughs(this->d);
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto cpu1 = this->impl(DK::CPU, "cpu1", 1);
  auto cpu2 = this->impl(DK::CPU, "cpu2", 2);
  this->expectComputed("CPU", "cpu2 [kernel]");
  EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "CPU"), "cpu2 [kernel]");
  EXPECT_EQ(this->call(cpuTensor()), 2);
  EXPECT_EQ(kernelLines(this->op().dumpState()),
            (std::vector<std::string>{"CPU: cpu2", "CPU (inactive): cpu1",
                                      "CompositeImplicitAutograd[alias]: cia"}));
  cpu2.release();
  this->expectComputed("CPU", "cpu1 [kernel]");
  EXPECT_EQ(this->call(cpuTensor()), 1);
  cpu1.release();
  this->expectComputed("CPU", kMath);
  this->expectComputed("AutogradCPU", kMath);
  EXPECT_EQ(this->call(cpuTensor()), 4);
  EXPECT_EQ(kernelLines(this->op().dumpState()),
            std::vector<std::string>{"CompositeImplicitAutograd[alias]: cia"});
  EXPECT_NO_THROW(this->d.checkInvariants());
}

TYPED_TEST(OperatorEntryTest, KernelStackRemovalFromTheMiddle) {
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu1 = this->impl(DK::CPU, "cpu1", 1);
  auto cpu2 = this->impl(DK::CPU, "cpu2", 2);
  auto cpu3 = this->impl(DK::CPU, "cpu3", 3);
  cpu2.release();
  this->expectComputed("CPU", "cpu3 [kernel]");
  EXPECT_EQ(this->call(cpuTensor()), 3);
  EXPECT_EQ(kernelLines(this->op().dumpState()),
            (std::vector<std::string>{"CPU: cpu3", "CPU (inactive): cpu1"}));
  cpu3.release();
  this->expectComputed("CPU", "cpu1 [kernel]");
  EXPECT_EQ(this->call(cpuTensor()), 1);
  cpu1.release();
  this->expectComputed("CPU", "");
  EXPECT_TRUE(kernelLines(this->op().dumpState()).empty());
  EXPECT_FALSE(this->op().hasKernelForDispatchKey(DK::CPU));
  EXPECT_NO_THROW(this->d.checkInvariants());
}

TYPED_TEST(OperatorEntryTest, KernelStackReleaseOrderDoesNotMatter) {
  // Deregistration commutes: the oldest first, then the newest.
  auto a = this->impl(DK::CPU, "a", 1);
  auto b = this->impl(DK::CPU, "b", 2);
  auto c = this->impl(DK::CPU, "c", 3);
  a.release();
  this->expectComputed("CPU", "c [kernel]");
  c.release();
  this->expectComputed("CPU", "b [kernel]");
  EXPECT_EQ(kernelLines(this->op().dumpState()), std::vector<std::string>{"CPU: b"});
  b.release();
  expectTables(this->op(), Expect());
}

TYPED_TEST(OperatorEntryTest, CatchAllIsCompositeImplicitAutograd) {
  auto catch_all = this->impl(std::nullopt, "catchall", 20);
  expectTables(
      this->op(),
      Expect().set(ciaKeys(), "catchall [math kernel]").one("Undefined", "catchall [math kernel]"));
  EXPECT_TRUE(this->op().hasKernelForDispatchKey(DK::CompositeImplicitAutograd));
  EXPECT_EQ(kernelLines(this->op().dumpState()),
            std::vector<std::string>{"CompositeImplicitAutograd[alias]: catchall"});
  // A catch-all and an explicit CIA kernel share one stack.
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  EXPECT_EQ(kernelLines(this->op().dumpState()),
            (std::vector<std::string>{"CompositeImplicitAutograd[alias]: cia",
                                      "CompositeImplicitAutograd[alias] (inactive): catchall"}));
  this->expectComputed("Undefined", kMath);
  cia.release();
  this->expectComputed("Undefined", "catchall [math kernel]");
  catch_all.release();
  expectTables(this->op(), Expect());
  EXPECT_FALSE(this->op().hasKernelForDispatchKey(DK::CompositeImplicitAutograd));
}

TYPED_TEST(OperatorEntryTest, DumpStateListsKernelsInEnumOrderAndNeverFallbacks) {
  auto fb = this->fallback(DK::CPU, "the_fallback", 7);
  auto ag = this->impl(DK::Autograd, "ag", 5);
  auto agcpu = this->impl(DK::AutogradCPU, "agcpu", 6);
  auto cea = this->impl(DK::CompositeExplicitAutograd, "cea", 3);
  auto q = this->impl(DK::QuantizedCPU, "q", 14);
  auto bs = this->impl(DK::BackendSelect, "bs", 9);
  const std::string state = this->op().dumpState();
  EXPECT_EQ(
      kernelLines(state),
      (std::vector<std::string>{"BackendSelect: bs", "QuantizedCPU: q", "AutogradCPU: agcpu",
                                "Autograd[alias]: ag", "CompositeExplicitAutograd[alias]: cea"}));
  EXPECT_EQ(state.find("the_fallback"), std::string::npos) << state;
  EXPECT_NE(state.find("name: test::op\n"), std::string::npos) << state;
  EXPECT_NE(state.find("def_op"), std::string::npos) << state;
}

// --- 6.2 mobile ----------------------------------------------------------------------------------

TYPED_TEST(OperatorEntryTest, KeysWithoutSlotsNeverAppear) {
  auto cia = this->impl(DK::CompositeImplicitAutograd, "cia", 4);
  auto ag = this->impl(DK::Autograd, "ag", 5);
  auto cuda = this->impl(DK::CUDA, "cuda", 21);
  auto agcuda = this->impl(DK::AutogradCUDA, "agcuda", 22);
  auto named = this->impl(DK::Named, "named", 23);
  auto ft = this->fallthroughFallback(DK::AutogradCPU, "ft");
  const Expect expected = Expect()
                              .set(ciaKeys(), kMath)
                              .one("Undefined", kMath)
                              .one("CUDA", "cuda [kernel]")
                              .one("AutogradCUDA", "agcuda [kernel]")
                              .one("Named", "named [kernel]");
  expectTables(this->op(), expected);
  std::vector<std::string> listed;
  for (DispatchKey k : this->op().listAllDispatchKeys()) listed.emplace_back(toString(k));
  if constexpr (!isFull<TypeParam>()) {
    // The kept keys among the CIA keys and Named, in slot order (mobile: CPU, QuantizedCPU,
    // SparseCPU, AutogradOther, AutogradCPU).
    const Names cia_or_named = concatNames({ciaKeys(), {"Named"}});
    std::vector<std::string> kept;
    for (DispatchKey k : TypeParam::kSlotKeys) {
      const std::string name(toString(k));
      if (std::find(cia_or_named.begin(), cia_or_named.end(), name) != cia_or_named.end()) {
        kept.push_back(name);
      }
    }
    EXPECT_EQ(listed, kept);
    EXPECT_EQ(this->op().hasComputedKernelForDispatchKey(DK::CUDA), hasSlot<TypeParam>("CUDA"));
    EXPECT_EQ(this->op().hasComputedKernelForDispatchKey(DK::Named), hasSlot<TypeParam>("Named"));
  } else {
    EXPECT_EQ(listed.size(), 81u);  // 80 CIA keys + Named
    EXPECT_TRUE(this->op().hasComputedKernelForDispatchKey(DK::CUDA));
    EXPECT_TRUE(this->op().hasComputedKernelForDispatchKey(DK::Named));
  }
  // The canonical state keeps every registration, slot or not.
  EXPECT_EQ(
      kernelLines(this->op().dumpState()),
      (std::vector<std::string>{"Named: named", "CUDA: cuda", "AutogradCUDA: agcuda",
                                "Autograd[alias]: ag", "CompositeImplicitAutograd[alias]: cia"}));
}

TEST(MobileOperatorEntryTest, BackendFallbackNotRegisteredForAbsentKeys) {
  EXPECT_EQ(toString(EntryTag::MissingInFlavour), "backend fallback not registered on mobile");
  mobile::Dispatcher d;
  auto def = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto op = *d.findOp(OperatorName{"test::op", ""});
  const FallbackTable<MobileLayout> no_fallbacks{};
  for (DispatchKey k : {DK::CUDA, DK::Named, DK::AutogradCUDA, DK::NestedTensorCPU}) {
    const auto entry = op.entry().computeDispatchTableEntry(no_fallbacks, k);
    EXPECT_EQ(entry.kernel, nullptr) << toString(k);
    EXPECT_EQ(entry.tag, EntryTag::MissingInFlavour) << toString(k);
  }
  for (DispatchKey k : {DK::CPU, DK::AutogradCPU, DK::BackendSelect}) {
    EXPECT_EQ(op.entry().computeDispatchTableEntry(no_fallbacks, k).tag, EntryTag::Missing)
        << toString(k);
  }
  // On the full flavour the same keys are plain "missing".
  full::Dispatcher fd;
  auto fdef = fd.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto fop = *fd.findOp(OperatorName{"test::op", ""});
  const FallbackTable<FullLayout> full_no_fallbacks{};
  EXPECT_EQ(fop.entry().computeDispatchTableEntry(full_no_fallbacks, DK::CUDA).tag,
            EntryTag::Missing);
}

TEST(MobileOperatorEntryTest, TableStringsOfTheSameRegistrationsDifferOnlyByAbsentKeys) {
  full::Dispatcher fd;
  mobile::Dispatcher md;
  auto fdef = fd.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto mdef = md.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto f1 = implInt(fd, "test::op", DK::CompositeImplicitAutograd, "cia", 4);
  auto m1 = implInt(md, "test::op", DK::CompositeImplicitAutograd, "cia", 4);
  auto f2 = implInt(fd, "test::op", DK::SparseCPU, "sparse", 15);
  auto m2 = implInt(md, "test::op", DK::SparseCPU, "sparse", 15);
  const std::string mobile_dump = md.findOp(OperatorName{"test::op", ""})->dumpComputedTable();
  const Table full_table =
      parseDump(fd.findOp(OperatorName{"test::op", ""})->dumpComputedTable(), "full");
  Table restricted;
  for (const auto& [k, v] : full_table) {
    if (hasSlot<MobileLayout>(k)) restricted.emplace(k, v);
  }
  EXPECT_TRUE(tableMatches(parseDump(mobile_dump, "mobile"), restricted));
  // Undefined, CPU, QuantizedCPU, SparseCPU, AutogradOther, AutogradCPU.
  EXPECT_EQ(parseDump(mobile_dump, "mobile").size(), 6u);
}

// Sanitizer and fuzz builds compare the row with its full recomputation after every registration
// (DISPATCH_CHECK_TABLE_REFRESH, Note [Table Equals Recomputation]): a slot the refresh left
// wrong (here a tag corrupted through the peer, outside what a CPU kernel refreshes) fails the
// registration loudly, naming the operator and the change. Release builds skip the check.
TYPED_TEST(OperatorEntryTest, RegistrationsCheckTheRefreshedRowInCheckBuilds) {
  using L = TypeParam;
  const auto& entry = this->op().entry();
  EntryTag& tag = OperatorEntryTestPeer::tag(entry, L::indexOf(DK::ADInplaceOrView));
  const EntryTag saved = tag;
  tag = EntryTag::MathKernel;
#if DISPATCH_CHECK_TABLE_REFRESH
  try {
    auto cpu = this->impl(DK::CPU, "cpu", 1);
    ADD_FAILURE() << "registering with a wrong row did not throw";
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test::op: after registering a kernel for CPU, the refreshed row differs "
                        "from its full recomputation"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("the table entry for ADInplaceOrView"), std::string::npos) << what;
  }
#else
  EXPECT_NO_THROW(auto cpu = this->impl(DK::CPU, "cpu", 1));
#endif
  tag = saved;
  EXPECT_NO_THROW(this->d.checkInvariants());
}

// checkInvariants() cross-checks the fallthrough mask of EVERY backend against the table: a mask
// corrupted for any one backend, the first (CPU) and the last included, must be reported.
TYPED_TEST(OperatorEntryTest, CheckInvariantsSeesACorruptedFallthroughMaskOfEveryBackend) {
  const auto& entry = this->op().entry();
  EXPECT_NO_THROW(this->d.checkInvariants());
  for (int b = 1; b <= num_backends; ++b) {
    auto& mask = OperatorEntryTestPeer::fallthroughMask(entry, static_cast<BackendComponent>(b));
    const uint64_t saved = mask.load();
    // ADInplaceOrView (a slot in every flavour, checked for every backend) has no fallthrough
    // here: a mask without its bit claims it has.
    mask.store(saved & ~DispatchKeySet(DispatchKey::ADInplaceOrView).raw_repr());
    EXPECT_THROW(this->d.checkInvariants(), InternalError) << "backend " << b;
    mask.store(saved);
  }
  EXPECT_NO_THROW(this->d.checkInvariants());
}

// checkInvariants() reads the table once and checks each backend's fallthrough mask as one
// bit-set comparison. It must still see every corruption a key-by-key walk sees: each slot's
// kernel, each slot's tag, and, for every backend, each mask bit of a key with a slot (plain keys
// and that backend's per-backend keys), cleared or set, with fallthroughs in the table (plain
// and per-backend ones). The keys are enumerated here, independently of the check.
TYPED_TEST(OperatorEntryTest, CheckInvariantsSeesEveryCorruptedSlotTagAndMaskBit) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu = this->impl(DK::CPU, "cpu", 1);
  const auto& entry = this->op().entry();
  ASSERT_NO_THROW(this->d.checkInvariants());
  const auto* missing = &BasicOperatorEntry<L>::missingKernel();
  const auto* cpu_kernel = OperatorEntryTestPeer::slot(entry, L::indexOf(DK::CPU)).load();
  ASSERT_NE(cpu_kernel, missing);

  std::vector<DispatchKey> slotted{DK::Undefined};
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) {
    if (L::indexOf(k) >= 0) slotted.push_back(k);
  }
  int fallthrough_slots = 0;
  for (DispatchKey k : slotted) {
    const int index = L::indexOf(k);
    auto& slot = OperatorEntryTestPeer::slot(entry, index);
    const auto* saved = slot.load();
    fallthrough_slots += saved != missing && saved->kernel.isFallthrough();
    slot.store(saved == missing ? cpu_kernel : missing);
    EXPECT_THROW(this->d.checkInvariants(), InternalError) << "kernel of " << toString(k);
    slot.store(saved);
    EntryTag& tag = OperatorEntryTestPeer::tag(entry, index);
    const EntryTag saved_tag = tag;
    tag = saved_tag == EntryTag::Kernel ? EntryTag::MathKernel : EntryTag::Kernel;
    EXPECT_THROW(this->d.checkInvariants(), InternalError) << "tag of " << toString(k);
    tag = saved_tag;
  }
  EXPECT_GT(fallthrough_slots, 1) << "the masks are checked with fallthroughs in the table";

  for (int b = 1; b <= num_backends; ++b) {
    auto& mask = OperatorEntryTestPeer::fallthroughMask(entry, static_cast<BackendComponent>(b));
    for (DispatchKey k : slotted) {
      if (k == DK::Undefined) continue;
      const DispatchKey functionality = toFunctionalityKey(k);
      if (isPerBackendFunctionalityKey(functionality) && toUnderlying(toBackendComponent(k)) != b) {
        continue;
      }
      const uint64_t saved = mask.load();
      mask.store(saved ^ DispatchKeySet(functionality).raw_repr());
      EXPECT_THROW(this->d.checkInvariants(), InternalError)
          << "backend " << b << ", bit of " << toString(k);
      mask.store(saved);
    }
  }
  EXPECT_NO_THROW(this->d.checkInvariants());
}

}  // namespace
}  // namespace dispatch
