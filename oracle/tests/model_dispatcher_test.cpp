// Unit tests of the reference model's dispatcher: registrations, the precedence of docs/semantics.md §4.4,
// fallbacks, calls, mobile. Every table is a verified example of the spec (3.4, 4.3, 4.4-4.7,
// 5.3, 5.5, 6.2), so a failure here means the MODEL is wrong, not the library.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/model/model.h"

namespace dispatch::model {
namespace {

// The trimmed table of docs/semantics.md §6.2, as cmake/flavours.list declares it.
Flavour mobileFlavour() { return flavourNamed("mobile"); }

using DK = DispatchKey;
using BC = BackendComponent;

const DK CIA = DK::CompositeImplicitAutograd;
const DK CIANested = DK::CompositeImplicitAutogradNestedTensor;
const DK CEA = DK::CompositeExplicitAutograd;
const DK CEANF = DK::CompositeExplicitAutogradNonFunctional;

const std::string kOp = "test::op";

RegistrationId mustRegister(const RegistrationResult& r) {
  EXPECT_TRUE(r.ok()) << toString(r);
  return r.id.value_or(-1);
}

void expectError(const RegistrationResult& r, ErrorKind kind) {
  ASSERT_FALSE(r.ok()) << toString(r);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, kind) << toString(r);
}

void expectEntry(const ModelDispatcher& d, DK k, EntryKind kind, const std::string& debug,
                 std::string_view tag) {
  const ComputedEntry e = d.computedEntry(kOp, k);
  EXPECT_EQ(e.kind, kind) << keyName(k) << ": " << toString(e);
  EXPECT_EQ(e.debug, debug) << keyName(k) << ": " << toString(e);
  EXPECT_EQ(e.tag, tag) << keyName(k) << ": " << toString(e);
}

void expectRuns(const CallOutcome& c, const std::string& kernel) {
  ASSERT_TRUE(c.ok()) << toString(c);
  EXPECT_EQ(c.success->kernel, kernel) << toString(c);
}

void expectCallError(const CallOutcome& c, ErrorKind kind, std::optional<DK> key) {
  ASSERT_FALSE(c.ok()) << toString(c);
  EXPECT_EQ(c.error->kind, kind) << toString(c);
  EXPECT_EQ(c.error->key, key) << toString(c);
}

// ---- registration bookkeeping (docs/semantics.md §5.2, 4.3) ----------------------------------------------

TEST(ModelRegistration, DefLifecycle) {
  ModelDispatcher d;
  const RegistrationId def = mustRegister(d.def(kOp, 2));
  EXPECT_EQ(def, 1);
  EXPECT_TRUE(d.hasOperator(kOp));
  EXPECT_EQ(d.schemaNumArgs(kOp), 2);
  expectError(d.def(kOp, 3), ErrorKind::Registration);  // duplicate def
  EXPECT_EQ(d.schemaNumArgs(kOp), 2);
  EXPECT_TRUE(d.drop(def).ok());
  EXPECT_FALSE(d.hasOperator(kOp));  // no registration left
  EXPECT_EQ(mustRegister(d.def(kOp, 3)), 2);  // the failed def consumed no id
}

TEST(ModelRegistration, OperatorLivesWhileAnyDefOrImplLives) {
  ModelDispatcher d;
  const RegistrationId impl = mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  EXPECT_TRUE(d.hasOperator(kOp));
  EXPECT_FALSE(d.hasSchema(kOp));  // dangling impl
  const RegistrationId def = mustRegister(d.def(kOp, 1));
  EXPECT_TRUE(d.drop(def).ok());
  EXPECT_TRUE(d.hasOperator(kOp));
  EXPECT_FALSE(d.hasSchema(kOp));
  EXPECT_TRUE(d.drop(impl).ok());
  EXPECT_FALSE(d.hasOperator(kOp));
  EXPECT_TRUE(d.operatorNames().empty());
}

TEST(ModelRegistration, DropUnknownOrTwice) {
  ModelDispatcher d;
  EXPECT_EQ(d.drop(1).error->kind, ErrorKind::Registration);
  const RegistrationId id = mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  EXPECT_TRUE(d.drop(id).ok());
  const Status again = d.drop(id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error->kind, ErrorKind::Registration);
}

TEST(ModelRegistration, ALibraryBlockClaimsItsNamespaceUntilDropped) {
  ModelDispatcher d;
  const RegistrationId fragment = mustRegister(d.openLibrary("fz", false));
  const RegistrationId def_block = mustRegister(d.openLibrary("fz", true));
  EXPECT_TRUE(d.claimsNamespace("fz"));
  const std::string claimed = d.dumpState();
  EXPECT_NE(claimed.find("namespace fz claimed (id " + std::to_string(def_block) + ")"), std::string::npos) << claimed;
  expectError(d.openLibrary("fz", true), ErrorKind::Registration);  // a second DEF block
  EXPECT_EQ(d.dumpState(), claimed);                                  // the refusal changed nothing
  mustRegister(d.openLibrary("fy", true));                            // another namespace
  mustRegister(d.openLibrary("fz", false));                           // fragments never claim
  EXPECT_TRUE(d.drop(def_block).ok());
  EXPECT_FALSE(d.claimsNamespace("fz"));
  mustRegister(d.openLibrary("fz", true));
  EXPECT_TRUE(d.drop(fragment).ok());
  EXPECT_EQ(d.drop(fragment).error->kind, ErrorKind::Registration);  // a block is undone once
  EXPECT_TRUE(d.operatorNames().empty());                              // blocks alone make no operator
}

TEST(ModelRegistration, ImplKeyValidation) {
  ModelDispatcher d;
  const std::string before = d.dumpState();
  for (DK bad : {DK::Undefined, DK::Dense, DK::AutogradFunctionality, DK::StartOfDenseBackends,
                 DK::EndOfFunctionalityKeys, static_cast<DK>(122), static_cast<DK>(500)}) {
    expectError(d.impl(kOp, bad, "k"), ErrorKind::InvalidKey);
  }
  EXPECT_EQ(d.dumpState(), before);
  EXPECT_FALSE(d.hasOperator(kOp));
  for (DK good : {DK::CPU, DK::FPGA, DK::AutogradOther, DK::PythonDispatcher, CIA, CEANF}) {
    mustRegister(d.impl(kOp, good, "k"));
  }
  EXPECT_EQ(d.liveRegistrations().size(), 6u);
  EXPECT_EQ(d.liveRegistrations().back(), 6);
}

TEST(ModelRegistration, CatchAllIsStoredUnderCIA) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, std::nullopt, "catchall"));
  EXPECT_TRUE(d.hasKernelForDispatchKey(kOp, CIA));
  EXPECT_EQ(d.kernelStack(kOp, CIA), std::vector<std::string>{"catchall"});
  expectEntry(d, DK::CPU, EntryKind::Kernel, "catchall", tags::kMathKernel);
}

TEST(ModelRegistration, KernelStackLastWinsAndDropRestores) {
  // docs/semantics.md §4.3 verified: CPU#1, CPU#2 -> CPU#2; drop CPU#2 -> CPU#1; drop CPU#1 -> CIA.
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  const RegistrationId cpu1 = mustRegister(d.impl(kOp, DK::CPU, "cpu1"));
  const RegistrationId cpu2 = mustRegister(d.impl(kOp, DK::CPU, "cpu2"));
  EXPECT_EQ(d.kernelStack(kOp, DK::CPU), (std::vector<std::string>{"cpu2", "cpu1"}));
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cpu2", tags::kKernel);
  EXPECT_TRUE(d.drop(cpu2).ok());
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cpu1", tags::kKernel);
  EXPECT_TRUE(d.drop(cpu1).ok());
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cia", tags::kMathKernel);
  EXPECT_FALSE(d.hasKernelForDispatchKey(kOp, DK::CPU));
}

TEST(ModelRegistration, DropFromTheMiddleOfAStack) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, DK::CPU, "cpu1"));
  const RegistrationId cpu2 = mustRegister(d.impl(kOp, DK::CPU, "cpu2"));
  mustRegister(d.impl(kOp, DK::CPU, "cpu3", /*fallthrough=*/true));
  EXPECT_TRUE(d.drop(cpu2).ok());
  EXPECT_EQ(d.kernelStack(kOp, DK::CPU), (std::vector<std::string>{"fallthrough cpu3", "cpu1"}));
  expectEntry(d, DK::CPU, EntryKind::Fallthrough, "cpu3", tags::kKernel);
}

// ---- fallbacks (docs/semantics.md §5.3, 6.4) -------------------------------------------------------------

TEST(ModelFallback, DirectValidation) {
  ModelDispatcher d;
  expectError(d.fallbackDirect(DK::Autograd, "fb"), ErrorKind::InvalidKey);
  EXPECT_NE(d.fallbackDirect(DK::Autograd, "fb").error->message.find("library fallback"),
            std::string::npos);
  expectError(d.fallbackDirect(DK::Dense, "fb"), ErrorKind::InvalidKey);
  expectError(d.fallbackDirect(DK::Undefined, "fb"), ErrorKind::InvalidKey);
  expectError(d.fallbackDirect(DK::StartOfAutogradFunctionalityBackends, "fb"),
              ErrorKind::InvalidKey);
  expectError(d.fallbackDirect(static_cast<DK>(300), "fb"), ErrorKind::InvalidKey);
  const RegistrationId id = mustRegister(d.fallbackDirect(DK::AutogradCPU, "fb", true));
  expectError(d.fallbackDirect(DK::AutogradCPU, "fb2"), ErrorKind::Registration);
  ASSERT_TRUE(d.fallbackFor(DK::AutogradCPU).has_value());
  EXPECT_EQ(*d.fallbackFor(DK::AutogradCPU), (FallbackSlot{DK::AutogradCPU, "fb", true, id}));
  EXPECT_EQ(d.fallbackSlots().count(76), 1u);
  EXPECT_TRUE(d.drop(id).ok());
  EXPECT_TRUE(d.fallbackSlots().empty());
}

TEST(ModelFallback, MobileDirectRejectsAbsentKeys) {
  // docs/semantics.md §6.4: the bounds check of the re-land.
  ModelDispatcher d(mobileFlavour());
  expectError(d.fallbackDirect(DK::AutogradCUDA, "fb"), ErrorKind::InvalidKey);
  expectError(d.fallbackDirect(DK::Named, "fb"), ErrorKind::InvalidKey);
  mustRegister(d.fallbackDirect(DK::AutogradCPU, "fb", true));
  EXPECT_EQ(d.fallbackSlots().count(7), 1u);
}

TEST(ModelFallback, LibraryExpandsAliasesAndSkipsAbsentKeys) {
  ModelDispatcher full;
  const RegistrationId id = mustRegister(full.fallbackLibrary(DK::Autograd, "ag", true));
  EXPECT_EQ(full.fallbackSlots().size(), 16u);  // docs/semantics.md §5.3: "_ + Autograd registers 16"
  EXPECT_TRUE(full.drop(id).ok());
  EXPECT_TRUE(full.fallbackSlots().empty());

  ModelDispatcher mobile(mobileFlavour());
  mustRegister(mobile.fallbackLibrary(DK::Autograd, "ag", true));
  EXPECT_EQ(mobile.fallbackSlots().size(), 2u);  // AutogradOther, AutogradCPU
  EXPECT_TRUE(mobile.fallbackFor(DK::AutogradOther).has_value());
  EXPECT_TRUE(mobile.fallbackFor(DK::AutogradCPU).has_value());
  // Absent keys are skipped silently; a building block expands to nothing.
  const RegistrationId empty = mustRegister(mobile.fallbackLibrary(DK::Named, "named"));
  mustRegister(mobile.fallbackLibrary(DK::Dense, "dense"));
  EXPECT_EQ(mobile.fallbackSlots().size(), 2u);
  EXPECT_TRUE(mobile.drop(empty).ok());
  expectError(mobile.fallbackLibrary(static_cast<DK>(130), "x"), ErrorKind::InvalidKey);
}

TEST(ModelFallback, LibraryIsAllOrNothing) {
  ModelDispatcher d;
  mustRegister(d.fallbackDirect(DK::AutogradCUDA, "cuda"));
  const std::string before = d.dumpState();
  expectError(d.fallbackLibrary(DK::Autograd, "ag"), ErrorKind::Registration);
  EXPECT_EQ(d.dumpState(), before);
  EXPECT_EQ(d.fallbackSlots().size(), 1u);
  EXPECT_EQ(mustRegister(d.impl(kOp, DK::CPU, "cpu")), 2);  // the failure consumed no id
}

TEST(ModelFallback, AffectsEveryOperatorAndNewOnes) {
  ModelDispatcher d;
  mustRegister(d.def("a::x", 1));
  const RegistrationId fb = mustRegister(d.fallbackDirect(DK::Named, "named_fb"));
  mustRegister(d.def("a::y", 1));
  for (const char* op : {"a::x", "a::y", "a::never_registered"}) {
    EXPECT_EQ(d.computedEntry(op, DK::Named),
              (ComputedEntry{EntryKind::Kernel, "named_fb", tags::kBackendFallback}))
        << op;
  }
  EXPECT_TRUE(d.drop(fb).ok());
  EXPECT_EQ(d.computedEntry("a::x", DK::Named).kind, EntryKind::Missing);
}

TEST(ModelFallback, StartupSet) {
  ModelDispatcher full;
  EXPECT_EQ(registerStartupFallbacks(full).size(), 28u);
  EXPECT_EQ(full.fallbackSlots().size(), 28u);
  EXPECT_TRUE(full.fallbackFor(DK::AutocastCUDA)->fallthrough);
  EXPECT_FALSE(full.fallbackFor(DK::Named)->fallthrough);
  EXPECT_FALSE(full.fallbackFor(DK::AutogradPrivateUse1).has_value());
  EXPECT_FALSE(full.fallbackFor(DK::AutogradNestedTensor).has_value());
  ModelDispatcher mobile(mobileFlavour());
  registerStartupFallbacks(mobile);
  EXPECT_EQ(mobile.fallbackSlots().size(), 4u);  // AutogradOther, AutogradCPU, ADInplace, BackendSelect
}

// ---- 4.4 precedence ------------------------------------------------------------------------

TEST(ModelPrecedence, DirectBeatsEverything) {
  ModelDispatcher d;
  for (DK k : {CIA, CEA, CEANF, DK::Autograd}) mustRegister(d.impl(kOp, k, keyName(k)));
  mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  mustRegister(d.fallbackDirect(DK::CPU, "fb"));
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cpu", tags::kKernel);
}

TEST(ModelPrecedence, CEANFBeatsCEABeatsCIA) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, CEA, "cea"));
  mustRegister(d.impl(kOp, CEANF, "ceanf"));
  expectEntry(d, DK::Undefined, EntryKind::Kernel, "ceanf", tags::kDefaultBackendKernel);
  expectEntry(d, DK::CPU, EntryKind::Kernel, "ceanf", tags::kDefaultBackendKernel);
  expectEntry(d, DK::XLA, EntryKind::Kernel, "cea", tags::kDefaultBackendKernel);  // not CEANF
  expectEntry(d, DK::SparseCPU, EntryKind::Kernel, "cea", tags::kDefaultBackendKernel);
  // CEA switches CIA off for every key (docs/semantics.md §4.4): AutogradCPU has no Autograd kernel/fallback.
  expectEntry(d, DK::AutogradCPU, EntryKind::Missing, "", tags::kMissing);
}

TEST(ModelPrecedence, NestedKernel) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, CIANested, "nested"));
  expectEntry(d, DK::NestedTensorCUDA, EntryKind::Kernel, "nested", tags::kNestedKernel);
  expectEntry(d, DK::AutogradNestedTensor, EntryKind::Kernel, "nested", tags::kNestedKernel);
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cia", tags::kMathKernel);
  expectEntry(d, DK::Undefined, EntryKind::Kernel, "cia", tags::kMathKernel);
}

TEST(ModelPrecedence, CIAOutranksAutogradUnlessBackendKernel) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, DK::Autograd, "ag"));
  mustRegister(d.impl(kOp, DK::CUDA, "cuda"));
  expectEntry(d, DK::AutogradCPU, EntryKind::Kernel, "cia", tags::kMathKernel);
  expectEntry(d, DK::AutogradCUDA, EntryKind::Kernel, "ag", tags::kAutogradKernel);
  expectEntry(d, DK::AutogradNestedTensor, EntryKind::Kernel, "cia", tags::kMathKernel);
  // Without CIA, AutogradOther gets the Autograd kernel (docs/semantics.md §4.6 last paragraph).
  ModelDispatcher e;
  mustRegister(e.impl(kOp, DK::CPU, "cpu"));
  mustRegister(e.impl(kOp, DK::Autograd, "ag"));
  mustRegister(e.impl(kOp, CEA, "cea"));
  EXPECT_EQ(e.computedEntry(kOp, DK::AutogradOther).debug, "ag");
}

TEST(ModelPrecedence, AliasFallthroughImpl) {
  // D6: a fallthrough impl on an alias gives Fallthrough entries with the alias's tag.
  ModelDispatcher d;
  mustRegister(d.impl(kOp, DK::Autograd, "ag_ft", /*fallthrough=*/true));
  expectEntry(d, DK::AutogradXLA, EntryKind::Fallthrough, "ag_ft", tags::kAutogradKernel);
}

TEST(ModelPrecedence, NonRuntimeKeys) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  for (DK k : {DK::Dense, CIA, DK::StartOfDenseBackends, DK::EndOfFunctionalityKeys}) {
    expectEntry(d, k, EntryKind::Missing, "", tags::kNotARuntimeKey);
  }
}

// ---- 4.6 / 4.7 verified tables -------------------------------------------------------------

TEST(ModelVerified, CIAPlusFPGA) {
  // docs/semantics.md §4.6 verified table for {CIA, FPGA}.
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "fn_math"));
  mustRegister(d.impl(kOp, DK::FPGA, "fn_fpga"));
  for (DK k : {DK::Undefined, DK::CPU, DK::CUDA, DK::XLA, DK::AutogradCPU, DK::AutogradCUDA,
               DK::AutogradXLA}) {
    expectEntry(d, k, EntryKind::Kernel, "fn_math", tags::kMathKernel);
  }
  expectEntry(d, DK::AutogradOther, EntryKind::Ambiguous, "ambiguous_autogradother",
              tags::kAmbiguousAutogradOther);
  expectEntry(d, DK::FPGA, EntryKind::Kernel, "fn_fpga", tags::kKernel);
  // Adding CEA does not remove the ambiguity (docs/semantics.md §4.6 "no escape hatch").
  mustRegister(d.impl(kOp, CEA, "fn_cea"));
  EXPECT_EQ(d.computedEntry(kOp, DK::AutogradOther).kind, EntryKind::Ambiguous);
  // Calling it: an FPGA tensor dispatches through AutogradOther.
  const CallOutcome c = d.call(kOp, tensorKeySet(KeySet{DK::FPGA}));
  expectCallError(c, ErrorKind::AmbiguousAutogradOther, DK::AutogradOther);
}

TEST(ModelVerified, QuantizedPlusCIA) {
  // docs/semantics.md §4.7 verified table, with the 1.13 start-up fallbacks.
  const KeySet quantized_cpu = tensorKeySet(KeySet{DK::QuantizedCPU});
  {
    ModelDispatcher d;
    registerStartupFallbacks(d);
    mustRegister(d.impl(kOp, CIA, "cia"));
    mustRegister(d.impl(kOp, DK::QuantizedCPU, "qcpu"));
    expectEntry(d, DK::AutogradCPU, EntryKind::Kernel, "cia", tags::kMathKernel);
    expectEntry(d, DK::AutogradOther, EntryKind::Ambiguous, "ambiguous_autogradother",
                tags::kAmbiguousAutogradOther);
    const CallOutcome c = d.call(kOp, quantized_cpu);
    expectRuns(c, "cia");
    EXPECT_EQ(c.success->keys, (KeySet{DK::QuantizedCPU, DK::AutogradCPU}));
    // Below autograd (AutoDispatchBelowAutograd) the Quantized kernel is reached.
    expectRuns(d.call(kOp, quantized_cpu, defaultIncludedSet(),
                      defaultExcludedSet() | autogradDispatchKeyset()),
               "qcpu");
  }
  {
    ModelDispatcher d;
    registerStartupFallbacks(d);
    mustRegister(d.impl(kOp, CIA, "cia"));
    mustRegister(d.impl(kOp, DK::CPU, "cpu"));
    mustRegister(d.impl(kOp, DK::QuantizedCPU, "qcpu"));
    expectEntry(d, DK::AutogradCPU, EntryKind::Fallthrough, "AutogradCPU_fallthrough",
                tags::kBackendFallback);
    expectEntry(d, DK::AutogradOther, EntryKind::Ambiguous, "ambiguous_autogradother",
                tags::kAmbiguousAutogradOther);
    const CallOutcome c = d.call(kOp, quantized_cpu);
    expectRuns(c, "qcpu");
    EXPECT_EQ(c.success->keys, KeySet{DK::QuantizedCPU});
  }
  {
    ModelDispatcher d;
    registerStartupFallbacks(d);
    mustRegister(d.impl(kOp, CEA, "cea"));
    mustRegister(d.impl(kOp, DK::QuantizedCPU, "qcpu"));
    expectEntry(d, DK::AutogradCPU, EntryKind::Fallthrough, "AutogradCPU_fallthrough",
                tags::kBackendFallback);
    expectEntry(d, DK::AutogradOther, EntryKind::Fallthrough, "AutogradOther_fallthrough",
                tags::kBackendFallback);
    expectRuns(d.call(kOp, quantized_cpu), "qcpu");
  }
}

TEST(ModelVerified, CIAPlusCEANestedTensorIsMissing) {
  // docs/semantics.md §4.4: with CEA + CIA, NestedTensorCPU and AutogradNestedTensor are missing.
  ModelDispatcher d;
  registerStartupFallbacks(d);
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, CEA, "cea"));
  expectEntry(d, DK::NestedTensorCPU, EntryKind::Missing, "", tags::kMissing);
  expectEntry(d, DK::AutogradNestedTensor, EntryKind::Missing, "", tags::kMissing);
  expectEntry(d, DK::CPU, EntryKind::Kernel, "cea", tags::kDefaultBackendKernel);
  expectEntry(d, DK::Undefined, EntryKind::Kernel, "cea", tags::kDefaultBackendKernel);
  const std::string dump = d.dumpComputedTable(kOp);
  EXPECT_EQ(dump.find("NestedTensorCPU"), std::string::npos);
  EXPECT_NE(dump.find("CPU: cea [default backend kernel]\n"), std::string::npos);
}

// ---- 4.8 dumpComputedTable -----------------------------------------------------------------

TEST(ModelDump, ExactFormat) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, DK::CPU, "cpu_k"));
  EXPECT_EQ(d.dumpComputedTable(kOp), "CPU: cpu_k [kernel]\n");
  mustRegister(d.fallbackDirect(DK::AutogradCPU, "ag_fb", true));
  mustRegister(d.fallbackDirect(DK::Named, "named_fb"));
  mustRegister(d.impl(kOp, DK::PythonDispatcher, "pd", true));
  EXPECT_EQ(d.dumpComputedTable(kOp),
            "CPU: cpu_k [kernel]\n"
            "Named: named_fb [backend fallback]\n"
            "AutogradCPU: fallthrough ag_fb [backend fallback]\n"
            "PythonDispatcher: fallthrough pd [kernel]\n");
  EXPECT_EQ(d.dumpComputedTable("no::such_op"),
            "Named: named_fb [backend fallback]\n"
            "AutogradCPU: fallthrough ag_fb [backend fallback]\n");
}

TEST(ModelDump, AmbiguousLine) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, DK::SparseCsrCUDA, "csr"));
  const std::string dump = d.dumpComputedTable(kOp);
  EXPECT_NE(dump.find("\nAutogradOther: ambiguous_autogradother [ambiguous autogradother]\n"),
            std::string::npos);
  EXPECT_EQ(dump.rfind("Undefined: cia [math kernel]\nCPU: cia [math kernel]\n", 0), 0u);
}

TEST(ModelDump, MobileTable) {
  ModelDispatcher d(mobileFlavour());
  mustRegister(d.impl(kOp, CIA, "cia"));
  mustRegister(d.impl(kOp, DK::CUDA, "cuda"));  // no slot on mobile: never printed
  EXPECT_EQ(d.dumpComputedTable(kOp),
            "Undefined: cia [math kernel]\n"
            "CPU: cia [math kernel]\n"
            "QuantizedCPU: cia [math kernel]\n"
            "SparseCPU: cia [math kernel]\n"
            "AutogradOther: cia [math kernel]\n"
            "AutogradCPU: cia [math kernel]\n");
}

// ---- calls (docs/semantics.md §3.4, 4.8, 4.9, 5.5, 5.6) --------------------------------------------------

TEST(ModelCall, FullCallExample) {
  // docs/semantics.md §3.4 "full call example": a CPU tensor whose op has an autograd kernel.
  ModelDispatcher d;
  registerStartupFallbacks(d);
  mustRegister(d.def(kOp, 1));
  mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  mustRegister(d.impl(kOp, DK::AutogradCPU, "autograd_cpu"));
  const KeySet args = tensorKeySet(KeySet{DK::CPU});
  EXPECT_EQ(args.toRaw(), 0x128'0000'4001u);
  EXPECT_EQ((args | defaultIncludedSet()).toRaw(), 0x128'0400'4001u);
  EXPECT_EQ(((args | defaultIncludedSet()) - defaultExcludedSet()).toRaw(), 0x28'0400'4001u);
  const KeySet final_ks = d.finalKeySet(kOp, args, defaultIncludedSet(), defaultExcludedSet());
  EXPECT_EQ(final_ks.toRaw(), 0x20'0000'4001u);
  EXPECT_EQ(tableIndex(final_ks, Flavour::Full), 76);
  const CallOutcome c = d.call(kOp, args);
  expectRuns(c, "autograd_cpu");
  EXPECT_EQ(c.success->keys, (KeySet{DK::CPU, DK::AutogradCPU}));
  // The autograd kernel redispatches below itself and reaches the CPU kernel.
  const CallOutcome below =
      d.redispatch(kOp, c.success->keys & KeySet::fullAfter(DK::AutogradCPU));
  expectRuns(below, "cpu");
  EXPECT_EQ(toString(c), "runs autograd_cpu with {CPU, AutogradCPU}");
}

TEST(ModelCall, FallthroughFallbackFallsToBackend) {
  ModelDispatcher d;
  registerStartupFallbacks(d);
  mustRegister(d.impl(kOp, DK::CUDA, "cuda"));
  const CallOutcome c = d.call(kOp, tensorKeySet(KeySet{DK::CUDA}));
  expectRuns(c, "cuda");
  EXPECT_EQ(c.success->keys, KeySet{DK::CUDA});
  // AutogradPrivateUse1 has no fallback: a PrivateUse1 tensor stops there.
  mustRegister(d.impl(kOp, DK::PrivateUse1, "pu1"));
  expectCallError(d.call(kOp, tensorKeySet(KeySet{DK::PrivateUse1})), ErrorKind::NotImplemented,
                  DK::AutogradPrivateUse1);
}

TEST(ModelCall, MaskJudgedAtArgumentBackend) {
  // docs/semantics.md §4.9 (#141581): the per-backend mask comes from the ARGUMENT set before TLS.
  ModelDispatcher d;
  mustRegister(d.fallbackDirect(DK::AutogradCPU, "ag_cpu_ft", true));
  mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  mustRegister(d.impl(kOp, DK::CUDA, "cuda"));
  const KeySet args{DK::CPU, DK::AutogradCPU};  // backend index 0
  const KeySet include_cuda{DK::CUDA};
  const CallOutcome c = d.call(kOp, args, include_cuda, KeySet{});
  expectRuns(c, "cuda");  // AutogradCUDA (no fallthrough) was masked as if it were AutogradCPU
  EXPECT_EQ(c.success->keys, (KeySet{DK::CPU, DK::CUDA}));
  EXPECT_TRUE(d.nonFallthroughMask(kOp, 1).has(DK::AutogradCUDA));
  EXPECT_FALSE(d.nonFallthroughMask(kOp, 0).has(DK::AutogradCPU));
  // Judged at the final set's backend, the call would have hit the missing AutogradCUDA entry.
  expectCallError(d.redispatch(kOp, KeySet{DK::CPU, DK::CUDA, DK::AutogradCUDA}),
                  ErrorKind::NotImplemented, DK::AutogradCUDA);
}

TEST(ModelCall, FallthroughReached) {
  ModelDispatcher d;
  mustRegister(d.impl(kOp, DK::CPU, "cpu_ft", /*fallthrough=*/true));
  // Redispatch does not mask: the fallthrough runs.
  const CallOutcome r = d.redispatch(kOp, KeySet{DK::CPU});
  expectCallError(r, ErrorKind::NotImplemented, DK::CPU);
  EXPECT_NE(r.error->message.find("fallthrough kernel called"), std::string::npos);
  // A call masks Dense away: nothing is left but the CPU backend bit.
  expectCallError(d.call(kOp, KeySet{DK::CPU}, KeySet{}, KeySet{}), ErrorKind::NotImplemented,
                  DK::Undefined);
  // A per-op fallthrough on a key the mask did not remove (judged at CPU, reached at CUDA).
  ModelDispatcher e;
  mustRegister(e.impl(kOp, DK::CUDA, "cuda_ft", /*fallthrough=*/true));
  const CallOutcome c = e.call(kOp, KeySet{DK::CPU}, KeySet{DK::CUDA}, KeySet{});
  expectCallError(c, ErrorKind::NotImplemented, DK::CUDA);
  EXPECT_NE(c.error->message.find("fallthrough kernel called"), std::string::npos);
}

TEST(ModelCall, NoTensorArguments) {
  ModelDispatcher d;
  registerStartupFallbacks(d);
  mustRegister(d.def(kOp, 0));
  const CallOutcome c = d.call(kOp, KeySet{});
  expectCallError(c, ErrorKind::NotImplemented, DK::Undefined);
  EXPECT_NE(c.error->message.find("no tensor arguments"), std::string::npos);
  mustRegister(d.impl(kOp, CIA, "cia"));
  const CallOutcome ok = d.call(kOp, KeySet{});
  expectRuns(ok, "cia");
  EXPECT_TRUE(ok.success->keys.empty());
}

TEST(ModelCall, MissingKernelNamesTheKey) {
  ModelDispatcher d;
  registerStartupFallbacks(d);
  mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  expectCallError(d.call(kOp, tensorKeySet(KeySet{DK::CUDA})), ErrorKind::NotImplemented,
                  DK::CUDA);
  // A per-backend functionality with no backend: CPU slot, "Unknown" named (D12).
  expectCallError(d.redispatch(kOp, KeySet{DK::Quantized}), ErrorKind::NotImplemented,
                  DK::StartOfQuantizedBackends);
  expectRuns(d.redispatch(kOp, KeySet{DK::Dense}), "cpu");
  // Unknown functionality bits (D4): the call masks them away, redispatch does not.
  const KeySet raw = KeySet::fromRaw((uint64_t{1} << 54) | 0x4001);
  expectRuns(d.call(kOp, raw, KeySet{}, KeySet{}), "cpu");
  expectCallError(d.redispatch(kOp, raw), ErrorKind::NotImplemented, DK::EndOfFunctionalityKeys);
}

TEST(ModelCall, NotFound) {
  ModelDispatcher d;
  expectCallError(d.call("no::op", KeySet{DK::CPU}), ErrorKind::NotFound, std::nullopt);
  const RegistrationId id = mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  expectRuns(d.call(kOp, KeySet{DK::CPU}, KeySet{}, KeySet{}), "cpu");  // dangling impl (D10)
  // With the default TLS but no start-up fallbacks, ADInplaceOrView is not masked away.
  expectCallError(d.call(kOp, KeySet{DK::CPU}), ErrorKind::NotImplemented, DK::ADInplaceOrView);
  EXPECT_TRUE(d.drop(id).ok());
  expectCallError(d.call(kOp, KeySet{DK::CPU}), ErrorKind::NotFound, std::nullopt);
  expectCallError(d.redispatch(kOp, KeySet{DK::CPU}), ErrorKind::NotFound, std::nullopt);
}

// ---- 6 mobile ------------------------------------------------------------------------------

TEST(ModelMobileFlavour, EntriesAndCalls) {
  ModelDispatcher d(mobileFlavour());
  registerStartupFallbacks(d);
  mustRegister(d.impl(kOp, DK::CPU, "cpu"));
  mustRegister(d.impl(kOp, DK::CUDA, "cuda"));
  mustRegister(d.impl(kOp, DK::AutogradCPU, "ag_cpu"));
  // Steps 1-7 still apply to absent keys; step 8 says "not registered on mobile".
  expectEntry(d, DK::CUDA, EntryKind::Kernel, "cuda", tags::kKernel);
  expectEntry(d, DK::Named, EntryKind::Missing, "", tags::kNoSlotInFlavour);
  expectEntry(d, DK::AutogradCUDA, EntryKind::Missing, "", tags::kNoSlotInFlavour);
  // docs/semantics.md §6.2: a CPU tensor {CPU, ADInplaceOrView, AutogradCPU} -> slot 7.
  const CallOutcome c = d.call(kOp, KeySet{DK::CPU, DK::ADInplaceOrView, DK::AutogradCPU});
  expectRuns(c, "ag_cpu");
  EXPECT_EQ(tableIndex(c.success->keys, mobileFlavour()), 7);
  // A CUDA tensor: AutogradCUDA has no slot, so it is never masked and the call errors.
  expectCallError(d.call(kOp, tensorKeySet(KeySet{DK::CUDA})), ErrorKind::NotImplemented,
                  DK::AutogradCUDA);
  expectCallError(d.call(kOp, KeySet{DK::CUDA}), ErrorKind::NotImplemented, DK::CUDA);
  expectCallError(d.redispatch(kOp, KeySet{DK::Dense}), ErrorKind::NotImplemented,
                  DK::StartOfDenseBackends);  // D15
}

TEST(ModelMobileFlavour, SameStackSemanticsAsFull) {
  ModelDispatcher d(mobileFlavour());
  const RegistrationId a = mustRegister(d.impl(kOp, DK::CPU, "cpu1"));
  const RegistrationId b = mustRegister(d.impl(kOp, DK::CPU, "cpu2"));
  expectRuns(d.redispatch(kOp, KeySet{DK::CPU}), "cpu2");
  EXPECT_TRUE(d.drop(b).ok());
  expectRuns(d.redispatch(kOp, KeySet{DK::CPU}), "cpu1");
  EXPECT_TRUE(d.drop(a).ok());
  EXPECT_FALSE(d.hasOperator(kOp));
}

// ---- printing ------------------------------------------------------------------------------

TEST(ModelPrinting, Readable) {
  EXPECT_EQ(toString(Error{ErrorKind::NotImplemented, "msg", DK::CUDA}),
            "NotImplemented(key=CUDA): msg");
  EXPECT_EQ(toString(Error{ErrorKind::Registration, "dup", std::nullopt}), "Registration: dup");
  EXPECT_EQ(toString(ComputedEntry{EntryKind::Fallthrough, "fb", "backend fallback"}),
            "fallthrough fb [backend fallback]");
  EXPECT_EQ(toString(ComputedEntry{EntryKind::Missing, "", "missing"}), "<missing> [missing]");
  ModelDispatcher d;
  const RegistrationId id = mustRegister(d.impl(kOp, DK::CPU, "cpu1"));
  mustRegister(d.impl(kOp, DK::CPU, "cpu2"));
  mustRegister(d.fallbackDirect(DK::AutogradCPU, "fb", true));
  EXPECT_EQ(d.dumpState(),
            "ModelDispatcher(full)\n"
            "  op test::op: no schema\n"
            "    CPU: cpu2 (id 2) cpu1 (id 1) (inactive)\n"
            "  fallbacks:\n"
            "    slot 76 AutogradCPU: fallthrough fb (id 3)\n");
  EXPECT_EQ(toString(d.drop(id)), "ok");
  EXPECT_EQ(toString(d.drop(id)).rfind("error Registration: ", 0), 0u);
}

}  // namespace
}  // namespace dispatch::model
