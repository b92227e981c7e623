// Dispatcher: backend fallbacks (docs/semantics.md §5.3, 6.4), fallthrough masking (3.4, 4.9),
// lookup and operator lifetime (5.2). Calls, the TLS and redispatch: dispatcher_call_test.cpp.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/startup_fallbacks.h"
#include "dispatcher_fixture.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

std::string fallbackLines(const Names& keys, const std::string& debug) {
  std::string out;
  for (const auto& k : keys) out += k + ": " + debug + "\n";
  return out;
}

// Orders names by the FULL iteration order of docs/semantics.md §2.6 (dumpFallbacks prints in slot order).
Names inPriorityOrder(const Names& keys) {
  Names out;
  for (const auto& k : fullRuntimeKeys()) {
    if (std::find(keys.begin(), keys.end(), k.name) != keys.end()) out.push_back(k.name);
  }
  return out;
}

// --- 5.3 fallbacks -------------------------------------------------------------------------------

TEST(FullFallbackTest, EveryRuntimeKeyTakesAFallbackInItsOwnSlot) {
  full::Dispatcher d;
  auto before = d.registerDef(parseSchema("test::before(Tensor self) -> int"), "def_before");
  std::vector<RegistrationHandle> handles;
  std::string expected_fallbacks;
  Table expected_table;
  for (const auto& key : fullRuntimeKeys()) {
    handles.push_back(d.registerFallback(keyOfValue(key.value), boxedInt<FullLayout>(key.value),
                                         "fb_" + key.name));
    expected_fallbacks += key.name + ": fb_" + key.name + "\n";
    expected_table[key.name] = "fb_" + key.name + " [backend fallback]";
    EXPECT_TRUE(d.hasBackendFallbackForDispatchKey(keyOfValue(key.value))) << key.name;
  }
  EXPECT_EQ(handles.size(), 105u);
  EXPECT_EQ(d.dumpFallbacks(), expected_fallbacks);
  auto after = d.registerDef(parseSchema("test::after(Tensor self) -> int"), "def_after");
  for (const char* name : {"test::before", "test::after"}) {
    auto op = d.findSchemaOrThrow(name);
    EXPECT_TRUE(tableMatches(parseDump(op.dumpComputedTable(), name), expected_table)) << name;
    EXPECT_TRUE(tableMatches(parseDump(op.dumpDispatchTable(), name), expected_table)) << name;
    // Each call reaches the fallback of the highest key; its value says which slot ran.
    auto typed = op.typed<IntSig>();
    EXPECT_EQ(typed.call(cpuTensor()), 103) << "AutogradCPU";
    {
      AutoDispatchBelowADInplaceOrView below;
      EXPECT_EQ(typed.call(cpuTensor()), 13) << "BackendSelect (TLS included)";
      ExcludeDispatchKeyGuard no_backend_select(DK::BackendSelect);
      EXPECT_EQ(typed.call(cpuTensor()), 43) << "CPU";
      EXPECT_EQ(typed.call(tensor(TensorKind::Sparse, BC::MetaBit)), 83) << "SparseMeta";
      EXPECT_EQ(typed.call(tensor(TensorKind::Quantized, BC::PrivateUse3Bit)), 71);
    }
    EXPECT_EQ(typed.call(tensor(TensorKind::Dense, BC::HIPBit)), 23) << "AutogradOther";
  }
  EXPECT_NO_THROW(d.checkInvariants());
  handles.clear();
  EXPECT_EQ(d.dumpFallbacks(), "");
  EXPECT_EQ(d.findSchemaOrThrow("test::before").dumpComputedTable(), "");
  EXPECT_EQ(d.findSchemaOrThrow("test::after").dumpDispatchTable(), "");
  EXPECT_NO_THROW(d.checkInvariants());
}

TEST(MobileFallbackTest, OnlyTheSlottedKeysTakeAFallback) {
  mobile::Dispatcher d;
  auto def = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  std::vector<RegistrationHandle> handles;
  Names accepted;
  for (const auto& key : fullRuntimeKeys()) {
    try {
      handles.push_back(d.registerFallback(keyOfValue(key.value), boxedInt<MobileLayout>(key.value),
                                           "fb_" + key.name));
      accepted.push_back(key.name);
    } catch (const InvalidKeyError& e) {
      EXPECT_NE(std::string(e.what()).find(key.name), std::string::npos) << e.what();
      EXPECT_FALSE(d.hasBackendFallbackForDispatchKey(keyOfValue(key.value))) << key.name;
    }
  }
  const Names slotted_runtime = {"CPU",           "QuantizedCPU",    "SparseCPU",
                                 "BackendSelect", "ADInplaceOrView", "AutogradOther",
                                 "AutogradCPU"};
  EXPECT_EQ(accepted, slotted_runtime);
  std::string expected;
  for (const auto& k : slotted_runtime) expected += k + ": fb_" + k + "\n";
  EXPECT_EQ(d.dumpFallbacks(), expected);
  Table table;
  for (const auto& k : slotted_runtime) table[k] = "fb_" + k + " [backend fallback]";
  auto op = d.findSchemaOrThrow("test::op");
  EXPECT_TRUE(tableMatches(parseDump(op.dumpComputedTable(), "computed"), table));
  EXPECT_TRUE(tableMatches(parseDump(op.dumpDispatchTable(), "live"), table));
  EXPECT_EQ(op.typed<IntSig>().call(cpuTensor()), 103);
  EXPECT_NO_THROW(d.checkInvariants());
}

TYPED_TEST(DispatcherTest, LibraryFallbackExpandsAliasesAndSkipsAbsentKeys) {
  using L = TypeParam;
  struct Case {
    DispatchKey alias;
    Names keys;
    size_t full_count;
  };
  const Case cases[] = {
      {DK::Autograd, autogradKeys(), 16},
      {DK::CompositeImplicitAutograd, ciaKeys(), 80},
      {DK::CompositeImplicitAutogradNestedTensor, ciaNestedKeys(), 15},
      {DK::CompositeExplicitAutograd, ceaKeys(), 50},
      {DK::CompositeExplicitAutogradNonFunctional, ceanfKeys(), 32},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(toString(c.alias));
    const Names expected_keys = slotted<L>(inPriorityOrder(c.keys));
    if constexpr (isFull<L>()) {
      EXPECT_EQ(expected_keys.size(), c.full_count);
    }
    {
      auto lib = this->fallbackBlock(c.alias);
      lib.fallback(fallthrough<L>("alias_ft"));
      EXPECT_EQ(lib.numRegistrations(), expected_keys.size());
      EXPECT_EQ(this->d.dumpFallbacks(), fallbackLines(expected_keys, "fallthrough alias_ft"));
      Expect table;
      table.set(expected_keys, "fallthrough alias_ft [backend fallback]");
      expectTables(this->op(), table);
    }
    EXPECT_EQ(this->d.dumpFallbacks(), "") << "the library's destruction removes them all";
    expectTables(this->op(), Expect());
  }
}

TEST(MobileFallbackTest, AutogradIsAutogradOtherAndAutogradCPU) {
  // Spelled out from the slot map of docs/semantics.md §6.2.
  mobile::Dispatcher d;
  auto def = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  mobile::Library lib(mobile::Library::Kind::IMPL, "_", DK::Autograd, d);
  lib.fallback(fallthrough<mobile::Layout>("ag_ft"));
  EXPECT_EQ(lib.numRegistrations(), 2u);
  EXPECT_EQ(d.dumpFallbacks(), "AutogradOther: fallthrough ag_ft\nAutogradCPU: fallthrough ag_ft\n");
}

TYPED_TEST(DispatcherTest, LibraryFallbackOnAPlainKey) {
  using L = TypeParam;
  {
    auto lib = this->fallbackBlock(DK::CPU);
    lib.fallback(boxedIntFunction<L>(7).withDebug("cpu_fb"));
    EXPECT_EQ(lib.numRegistrations(), 1u);
    EXPECT_EQ(this->d.dumpFallbacks(), "CPU: cpu_fb\n");
  }
  {  // A key the flavour has no slot for is skipped silently (docs/semantics.md §6.4).
    auto lib = this->fallbackBlock(DK::CUDA);
    lib.fallback(boxedIntFunction<L>(8).withDebug("cuda_fb"));
    const bool has_cuda = hasSlot<L>("CUDA");
    EXPECT_EQ(lib.numRegistrations(), has_cuda ? 1u : 0u);
    EXPECT_EQ(this->d.dumpFallbacks(), has_cuda ? "CUDA: cuda_fb\n" : "");
    EXPECT_EQ(this->d.hasBackendFallbackForDispatchKey(DK::CUDA), has_cuda);
  }
  EXPECT_EQ(this->d.dumpFallbacks(), "");
}

TYPED_TEST(DispatcherTest, FallbackIsPickedUpByOperatorsRegisteredEarlierAndLater) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu_fb = this->fallbackBlock(DK::CPU);
  cpu_fb.fallback(boxedIntFunction<L>(7).withDebug("cpu_fb"));
  // Defined later, and an impl-only operator created later.
  typename TestFixture::Library later(TestFixture::Library::Kind::FRAGMENT, "test", std::nullopt,
                                      this->d);
  later.def("later(Tensor self) -> int");
  auto dangling = this->implBlock(DK::QuantizedCPU);
  dangling.impl("dangling", intFunction<L>(9, "q"));
  for (const char* name : {"test::op", "test::later"}) {
    EXPECT_EQ(entryOf(this->op(name).dumpComputedTable(), "CPU"), "cpu_fb [backend fallback]")
        << name;
    EXPECT_EQ(entryOf(this->op(name).dumpDispatchTable(), "CPU"), "cpu_fb [backend fallback]")
        << name;
    EXPECT_EQ(this->typedOp(name).call(cpuTensor()), 7) << name;
  }
  auto dangling_op = *this->d.findOp(OperatorName{"test::dangling", ""});
  EXPECT_EQ(entryOf(dangling_op.dumpDispatchTable(), "CPU"), "cpu_fb [backend fallback]");
  EXPECT_NO_THROW(this->d.checkInvariants());

  // Deregistration restores "missing" everywhere.
  cpu_fb.reset();
  for (const char* name : {"test::op", "test::later"}) {
    EXPECT_EQ(entryOf(this->op(name).dumpComputedTable(), "CPU"), "") << name;
    EXPECT_EQ(entryOf(this->op(name).dumpDispatchTable(), "CPU"), "") << name;
    EXPECT_THROW(this->typedOp(name).call(cpuTensor()), NotImplementedError) << name;
  }
  EXPECT_EQ(entryOf(dangling_op.dumpDispatchTable(), "CPU"), "");
  EXPECT_FALSE(this->d.hasBackendFallbackForDispatchKey(DK::CPU));
  EXPECT_NO_THROW(this->d.checkInvariants());
}

TYPED_TEST(DispatcherTest, AKernelOutranksTheFallbackAndOutlivesIt) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", intFunction<L>(1, "cpu"));
  {
    auto fb = this->fallbackBlock(DK::CPU);
    fb.fallback(boxedIntFunction<L>(7).withDebug("cpu_fb"));
    EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "CPU"), "cpu [kernel]");
    EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
    cpu.reset();
    EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "CPU"), "cpu_fb [backend fallback]");
    EXPECT_EQ(this->typedOp().call(cpuTensor()), 7);
    cpu.impl("op", intFunction<L>(1, "cpu"));
  }
  EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "CPU"), "cpu [kernel]");
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
}

// --- 3.4 / 4.9 fallthrough masking ---------------------------------------------------------------

TYPED_TEST(DispatcherTest, FullCallExampleLandsOnTheCPUKernel) {
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [](DispatchKeySet ks, const Tensor&) -> int64_t {
    return static_cast<int64_t>(ks.raw_repr());
  });
  // {CPU, ADInplaceOrView, AutogradCPU, AutocastCPU} | {BackendSelect, ADInplaceOrView}
  // - Autocast*, then the fallthroughs of AutogradCPU, ADInplaceOrView, BackendSelect go.
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 0x4001);
  Stack stack{Value(cpuTensor())};
  this->op().callBoxed(stack);
  EXPECT_EQ(stack, Stack{Value(int64_t{0x4001})});
}

TYPED_TEST(DispatcherTest, FullCallExampleWithAnAutogradKernel) {
  using L = TypeParam;
  auto ag = this->implBlock(DK::AutogradCPU);
  ag.impl("op", [](DispatchKeySet ks, const Tensor&) -> int64_t {
    return static_cast<int64_t>(ks.raw_repr());
  });
  // No fallthroughs yet: the key set before the mask (docs/semantics.md §3.4).
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 0x2804004001);
  auto adinplace = this->fallbackBlock(DK::ADInplaceOrView);
  adinplace.fallback(fallthrough<L>("adinplace_ft"));
  auto backend_select = this->fallbackBlock(DK::BackendSelect);
  backend_select.fallback(fallthrough<L>("bs_ft"));
  // The spec's final key set: 0x20_0000_4001, index 76 = AutogradCPU.
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 0x2000004001);
}

// Regression (fuzz/regressions/*/93381a18..., e069cabe...): FULL_AFTER(PythonDispatcher) is FULL,
// so a pass-through fallback that only masked with FULL_AFTER redispatched to itself forever.
// Every start-up pass-through fallback must drop its own key and reach the backend kernel.
TYPED_TEST(DispatcherTest, StartupPassThroughFallbacksDropTheirOwnKey) {
  auto startup = registerStartupFallbacks(this->d);
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [](DispatchKeySet ks, const Tensor&) -> int64_t {
    return static_cast<int64_t>(ks.raw_repr());
  });
  for (DispatchKey key : startup_boxed_fallback_keys) {
    if (key == DK::Named || !hasSlot<TypeParam>(std::string(toString(key)))) continue;
    SCOPED_TRACE(toString(key));
    const Tensor t(cpuTensor().key_set().add(key));
    EXPECT_EQ(this->typedOp().call(t), 0x4001);
    Stack stack{Value(t)};
    this->op().callBoxed(stack);
    EXPECT_EQ(stack, Stack{Value(int64_t{0x4001})});
  }
}

TYPED_TEST(DispatcherTest, PerOperatorFallthroughKernelIsSkipped) {
  using L = TypeParam;
  auto backend_select = this->fallbackBlock(DK::BackendSelect);
  backend_select.fallback(fallthrough<L>("bs_ft"));
  auto adinplace = this->fallbackBlock(DK::ADInplaceOrView);
  adinplace.fallback(fallthrough<L>("adinplace_ft"));
  auto ag = this->implBlock(DK::AutogradCPU);
  ag.impl("op", fallthrough<L>("op_ag_ft"));
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", intFunction<L>(1, "cpu"));
  EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "AutogradCPU"),
            "fallthrough op_ag_ft [kernel]");
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
  // Only this operator: test::add has no AutogradCPU kernel and no fallback there.
  auto add_cpu = this->implBlock(DK::CPU);
  add_cpu.impl("add", [](const Tensor&, int64_t x) -> int64_t { return x; });
  EXPECT_THROW(
      this->op("test::add").template typed<int64_t(const Tensor&, int64_t)>().call(cpuTensor(), 3),
      NotImplementedError);
}

TEST(FullFallthroughTest, PerBackendFallthroughAutogradCPUButRealAutogradPrivateUse1) {
  full::Dispatcher d;
  using Library = full::Library;
  Library defs(Library::Kind::DEF, "test", std::nullopt, d);
  defs.def("op(Tensor self) -> int");
  auto fallthroughs = std::vector<Library>{};
  fallthroughs.emplace_back(Library::Kind::IMPL, "_", DK::ADInplaceOrView, d)
      .fallback(fallthrough<FullLayout>("adinplace_ft"));
  fallthroughs.emplace_back(Library::Kind::IMPL, "_", DK::BackendSelect, d)
      .fallback(fallthrough<FullLayout>("bs_ft"));
  fallthroughs.emplace_back(Library::Kind::IMPL, "_", DK::AutogradCPU, d)
      .fallback(fallthrough<FullLayout>("agcpu_ft"));
  // A real boxed fallback on AutogradPrivateUse1 that redispatches below autograd.
  fallthroughs.emplace_back(Library::Kind::IMPL, "_", DK::AutogradPrivateUse1, d)
      .fallback(full::CppFunction::makeFromBoxedLambda([](const full::OperatorHandle& op,
                                                          DispatchKeySet ks, Stack* stack) {
                  op.redispatchBoxed(
                      ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::AutogradPrivateUse1),
                      stack);
                  stack->back() = Value(stack->back().toInt() + 1000);
                }).withDebug("pu1_fb"));
  Library cpu(Library::Kind::IMPL, "test", DK::CPU, d);
  cpu.impl("op", intFunction<FullLayout>(1, "cpu"));
  Library pu1(Library::Kind::IMPL, "test", DK::PrivateUse1, d);
  pu1.impl("op", intFunction<FullLayout>(2, "pu1"));
  auto op = d.findSchemaOrThrow("test::op");
  EXPECT_EQ(entryOf(op.dumpDispatchTable(), "AutogradCPU"),
            "fallthrough agcpu_ft [backend fallback]");
  EXPECT_EQ(entryOf(op.dumpDispatchTable(), "AutogradPrivateUse1"), "pu1_fb [backend fallback]");
  auto typed = op.typed<IntSig>();
  EXPECT_EQ(typed.call(cpuTensor()), 1);
  EXPECT_EQ(typed.call(tensor(TensorKind::Dense, BC::PrivateUse1Bit)), 1002);
  // AutogradCUDA has neither: a CUDA tensor cannot get past it.
  EXPECT_THROW(typed.call(tensor(TensorKind::Dense, BC::CUDABit)), NotImplementedError);
  EXPECT_NO_THROW(d.checkInvariants());
}

TYPED_TEST(DispatcherTest, TypedAcceptsEquivalentSignatures) {
  auto fallthroughs = usualFallthroughs(this->d);
  // Only the schema so far: typed() checks against it.
  EXPECT_NO_THROW(this->op().template typed<int64_t(const Tensor&)>());
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [](Tensor t) -> int64_t { return t.id(); });
  EXPECT_EQ(this->op().template typed<int64_t(Tensor)>().call(cpuTensor(8)), 8);
  EXPECT_EQ(this->op().template typed<int64_t(const Tensor&)>().call(cpuTensor(9)), 9);
}

// --- 5.2 lookup and lifetime ---------------------------------------------------------------------

TYPED_TEST(DispatcherTest, FindOpFindSchemaAndDanglingImpls) {
  using L = TypeParam;
  const OperatorName name{"test::impl_only", ""};
  EXPECT_FALSE(this->d.findOp(name).has_value());
  const std::string unknown =
      messageOf<OperatorNotFoundError>([&] { this->d.findSchemaOrThrow("test::impl_only"); });
  EXPECT_NE(unknown.find("test::impl_only"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("did you forget to def()"), std::string::npos) << unknown;

  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("impl_only", intFunction<L>(1, "cpu"));
  ASSERT_TRUE(this->d.findOp(name).has_value());
  EXPECT_FALSE(this->d.findOp(name)->hasSchema());
  EXPECT_FALSE(this->d.findSchema(name).has_value());
  const std::string dangling =
      messageOf<OperatorNotFoundError>([&] { this->d.findSchemaOrThrow("test::impl_only"); });
  EXPECT_NE(dangling.find("test::impl_only"), std::string::npos) << dangling;
  EXPECT_NE(dangling.find("did you forget to def()"), std::string::npos) << dangling;
  EXPECT_EQ(this->d.findDanglingImpls(), std::vector<OperatorName>{name});

  typename TestFixture::Library frag(TestFixture::Library::Kind::FRAGMENT, "test", std::nullopt,
                                     this->d);
  frag.def("impl_only(Tensor self) -> int");
  EXPECT_TRUE(this->d.findSchema(name).has_value());
  EXPECT_TRUE(this->d.findDanglingImpls().empty());
  EXPECT_EQ(this->d.findSchemaOrThrow("test::impl_only"), *this->d.findOp(name));
  // Overload names are part of the name.
  frag.def("impl_only.other(Tensor self) -> int");
  EXPECT_TRUE(this->d.findSchema(OperatorName{"test::impl_only", "other"}).has_value());
  EXPECT_NO_THROW(this->d.findSchemaOrThrow("test::impl_only", "other"));
  EXPECT_FALSE(this->d.findOp(OperatorName{"test::impl_only", "third"}).has_value());
}

TYPED_TEST(DispatcherTest, GetRegistrationsForDispatchKey) {
  using L = TypeParam;
  auto sorted = [](std::vector<OperatorName> names) {
    std::sort(names.begin(), names.end());
    return names;
  };
  const OperatorName op{"test::op", ""}, add{"test::add", ""}, extra{"test::extra", ""};
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", intFunction<L>(1, "cpu"));
  auto cia = this->implBlock(DK::CompositeImplicitAutograd);
  cia.impl("add", [](const Tensor&, int64_t) -> int64_t { return 0; });
  auto cuda = this->implBlock(DK::CUDA);
  cuda.impl("extra", intFunction<L>(2, "cuda"));
  EXPECT_EQ(this->d.getRegistrationsForDispatchKey(DK::CPU), std::vector<OperatorName>{op});
  EXPECT_EQ(this->d.getRegistrationsForDispatchKey(DK::CompositeImplicitAutograd),
            std::vector<OperatorName>{add});
  EXPECT_EQ(this->d.getRegistrationsForDispatchKey(DK::CUDA), std::vector<OperatorName>{extra});
  EXPECT_TRUE(this->d.getRegistrationsForDispatchKey(DK::AutogradCPU).empty());
  EXPECT_EQ(sorted(this->d.getRegistrationsForDispatchKey(std::nullopt)), sorted({op, add, extra}));
  EXPECT_EQ(sorted(this->d.getAllOpNames()), sorted({op, add, extra}));
  // A fallback is no registration for an operator.
  auto fb = this->fallbackBlock(DK::QuantizedCPU);
  fb.fallback(boxedIntFunction<L>(7));
  EXPECT_TRUE(this->d.getRegistrationsForDispatchKey(DK::QuantizedCPU).empty());
}

TYPED_TEST(DispatcherTest, RegisterNameKeepsTheOperatorAlive) {
  const OperatorName name{"test::named", ""};
  auto keep = this->d.registerName(name);
  ASSERT_TRUE(this->d.findOp(name).has_value());
  EXPECT_FALSE(this->d.findOp(name)->hasSchema());
  {
    auto cpu = implInt(this->d, "test::named", DK::CPU, "cpu", 1);
    EXPECT_EQ(entryOf(this->d.findOp(name)->dumpDispatchTable(), "CPU"), "cpu [kernel]");
  }
  ASSERT_TRUE(this->d.findOp(name).has_value()) << "the name registration still holds it";
  EXPECT_EQ(this->d.findOp(name)->dumpDispatchTable(), "");
  keep.release();
  EXPECT_FALSE(this->d.findOp(name).has_value());
}

TYPED_TEST(DispatcherTest, OperatorDisappearsAfterItsLastRegistration) {
  const OperatorName name{"test::temp", ""};
  const size_t before = this->d.numOperators();
  auto def = this->d.registerDef(parseSchema("test::temp(Tensor self) -> int"), "def_temp");
  auto cpu = implInt(this->d, "test::temp", DK::CPU, "cpu", 1);
  auto old_handle = *this->d.findOp(name);
  EXPECT_EQ(this->d.numOperators(), before + 1);
  def.release();
  ASSERT_TRUE(this->d.findOp(name).has_value()) << "the impl still holds it, now dangling";
  EXPECT_FALSE(this->d.findOp(name)->hasSchema());
  EXPECT_EQ(this->d.findDanglingImpls(), std::vector<OperatorName>{name});
  cpu.release();
  EXPECT_FALSE(this->d.findOp(name).has_value());
  EXPECT_EQ(this->d.numOperators(), before);
  EXPECT_TRUE(this->d.findDanglingImpls().empty());
  // A handle taken earlier stays usable and sees nothing.
  EXPECT_FALSE(old_handle.hasSchema());
  EXPECT_EQ(old_handle.dumpComputedTable(), "");
  EXPECT_EQ(old_handle.dumpDispatchTable(), "");
  // A new registration makes a new operator.
  auto again = implInt(this->d, "test::temp", DK::CPU, "cpu_again", 2);
  EXPECT_FALSE(*this->d.findOp(name) == old_handle);
  EXPECT_EQ(this->d.findOp(name)->dumpDispatchTable(), "CPU: cpu_again [kernel]\n");
  EXPECT_NO_THROW(this->d.checkInvariants());
}

// An OperatorHandle "stays usable after the operator's last registration is dropped"
// (operator_handle.h). Its table must then still equal its recomputation when fallbacks change.
TYPED_TEST(DispatcherTest, RetiredOperatorHandleFollowsFallbackChanges) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto temp = implInt(this->d, "test::temp", DK::CPU, "cpu", 1);
  const auto old_handle = *this->d.findOp(OperatorName{"test::temp", ""});
  temp.release();
  ASSERT_FALSE(this->d.findOp(OperatorName{"test::temp", ""}).has_value());
  EXPECT_NO_THROW(old_handle.checkInvariants());
  {
    auto fb = this->fallbackBlock(DK::CPU);
    fb.fallback(boxedIntFunction<L>(7).withDebug("cpu_fb"));
    EXPECT_EQ(old_handle.dumpDispatchTable(), old_handle.dumpComputedTable());
    EXPECT_NO_THROW(old_handle.checkInvariants());
  }
  EXPECT_EQ(entryOf(old_handle.dumpComputedTable(), "CPU"), "");
  EXPECT_EQ(entryOf(old_handle.dumpDispatchTable(), "CPU"), "")
      << "a dropped fallback must not stay in a retired operator's table";
  EXPECT_NO_THROW(old_handle.checkInvariants());
}

TYPED_TEST(DispatcherTest, HandlesMayOutliveTheirDispatcher) {
  using L = TypeParam;
  RegistrationHandle fallback, impl, def;
  {
    BasicDispatcher<L> d2;
    fallback = d2.registerFallback(DK::CPU, boxedInt<L>(1), "fb");
    def = d2.registerDef(parseSchema("test::op(Tensor self) -> int"), "def");
    impl = implInt(d2, "test::op", DK::CPU, "cpu", 1);
  }
  // Dropping them afterwards is a no-op, not a use after free.
  EXPECT_TRUE(impl.active());
  impl.release();
  def = RegistrationHandle();
  fallback = RegistrationHandle();
  EXPECT_FALSE(fallback.active());
}

TEST(FullDispatcherTest, MixedDeviceCallsUseTheHighestBackend) {
  full::Dispatcher d;
  full::Library defs(full::Library::Kind::DEF, "test", std::nullopt, d);
  defs.def("binary(Tensor a, Tensor b) -> int");
  std::vector<full::Library> libs;
  libs.emplace_back(full::Library::Kind::IMPL, "_", DK::ADInplaceOrView, d)
      .fallback(fallthrough<FullLayout>("adinplace_ft"));
  libs.emplace_back(full::Library::Kind::IMPL, "_", DK::BackendSelect, d)
      .fallback(fallthrough<FullLayout>("bs_ft"));
  // Only AutogradCPU falls through, not AutogradCUDA.
  libs.emplace_back(full::Library::Kind::IMPL, "_", DK::AutogradCPU, d)
      .fallback(fallthrough<FullLayout>("agcpu_ft"));
  for (const auto& kv : {std::pair{DK::CPU, int64_t{1}}, std::pair{DK::CUDA, int64_t{2}},
                         std::pair{DK::PrivateUse1, int64_t{3}}}) {
    const int64_t v = kv.second;
    libs.emplace_back(full::Library::Kind::IMPL, "test", kv.first, d)
        .impl("binary", [v](const Tensor&, const Tensor&) -> int64_t { return v; });
  }
  auto typed = d.findSchemaOrThrow("test::binary").typed<int64_t(const Tensor&, const Tensor&)>();
  const Tensor cpu = cpuTensor();
  const Tensor cuda = tensor(TensorKind::Dense, BC::CUDABit);
  const Tensor pu1 = tensor(TensorKind::Dense, BC::PrivateUse1Bit);
  EXPECT_EQ(typed.call(cpu, cpu), 1);
  {
    // {CPU, CUDA} with AutogradCPU and AutogradCUDA: the CUDA backend's mask is used, which does
    // not mask AutogradCUDA (docs/semantics.md §4.9), so the call stops there.
    const std::string message = messageOf<NotImplementedError>([&] { typed.call(cpu, cuda); });
    EXPECT_NE(message.find("AutogradCUDA"), std::string::npos) << message;
  }
  AutoDispatchBelowAutograd below;
  EXPECT_EQ(typed.call(cpu, cuda), 2);
  EXPECT_EQ(typed.call(cuda, cpu), 2);
  EXPECT_EQ(typed.call(cpu, pu1), 3);
  EXPECT_EQ(typed.call(pu1, cuda), 3);
}

TYPED_TEST(DispatcherTest, OneLibraryPerNamespaceButAnyNumberOfFragments) {
  using Lib = typename TestFixture::Library;
  const std::string message = messageOf<RegistrationError>(
      [&] { Lib again(Lib::Kind::DEF, "test", std::nullopt, this->d, "again.cpp", 2); });
  EXPECT_NE(message.find("test"), std::string::npos) << message;
  EXPECT_NE(message.find("FRAGMENT"), std::string::npos) << message;
  EXPECT_NE(message.find("defs.cpp:1"), std::string::npos) << message;
  EXPECT_NE(message.find("again.cpp:2"), std::string::npos) << message;
  Lib frag1(Lib::Kind::FRAGMENT, "test", std::nullopt, this->d);
  Lib frag2(Lib::Kind::FRAGMENT, "test", std::nullopt, this->d);
  frag1.def("f1(Tensor self) -> int");
  frag2.def("f2(Tensor self) -> int");
  EXPECT_TRUE(this->d.findSchema(OperatorName{"test::f2", ""}).has_value());
  Lib other(Lib::Kind::DEF, "other", std::nullopt, this->d);
  // Once the owner is gone the namespace is free again (and its defs are gone).
  this->defs_.reset();
  EXPECT_FALSE(this->d.findOp(OperatorName{"test::op", ""}).has_value());
  EXPECT_NO_THROW(Lib(Lib::Kind::DEF, "test", std::nullopt, this->d));
}

TYPED_TEST(DispatcherTest, DefWithAKernelRegistersACatchAll) {
  using Lib = typename TestFixture::Library;
  Lib frag(Lib::Kind::FRAGMENT, "test", std::nullopt, this->d);
  frag.def("twice(Tensor self) -> int", [](const Tensor& t) -> int64_t { return 2 * t.id(); });
  EXPECT_EQ(frag.numRegistrations(), 2u);
  auto op = this->op("test::twice");
  EXPECT_TRUE(op.hasKernelForDispatchKey(DK::CompositeImplicitAutograd));
  EXPECT_EQ(
      entryOf(op.dumpDispatchTable(), "AutogradCPU").find("[math kernel]") != std::string::npos,
      true);
  EXPECT_EQ(op.template typed<IntSig>().call(cpuTensor(21)), 42);
  frag.reset();
  EXPECT_FALSE(this->d.findOp(OperatorName{"test::twice", ""}).has_value());
}

}  // namespace
}  // namespace dispatch
