// Every failure of the public API: the exact exception type, a message that names the operator
// and the key involved, and a dispatcher left exactly as it was (every operator's canonical state
// and both tables, the fallbacks, the dangling impls; and checkInvariants).

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

template <class L>
class ErrorsTest : public ::testing::Test {
 protected:
  using Dispatcher = BasicDispatcher<L>;
  using Library = BasicLibrary<L>;
  using CppFunction = BasicCppFunction<L>;
  using KernelFunction = BasicKernelFunction<L>;

  // A populated dispatcher: defs, kernels on runtime and alias keys, a dangling impl, fallthrough
  // and real fallbacks.
  std::vector<Library> populate() {
    std::vector<Library> libs;
    Library& defs = libs.emplace_back(Library::Kind::DEF, "test", std::nullopt, d, "defs.cpp", 7);
    defs.def("op(Tensor self) -> int");
    defs.def("add(Tensor self, int x) -> int");
    defs.def("nokernel(Tensor self) -> int");
    Library& cpu = libs.emplace_back(Library::Kind::IMPL, "test", DK::CPU, d);
    cpu.impl("op", intFunction<L>(1, "op_cpu"));
    cpu.impl("add", CppFunction([](const Tensor& t, int64_t x) -> int64_t {
                      return t.id() + x;
                    }).withDebug("add_cpu"));
    libs.emplace_back(Library::Kind::IMPL, "test", DK::CompositeImplicitAutograd, d)
        .impl("add", CppFunction([](const Tensor&, int64_t x) -> int64_t {
                       return x;
                     }).withDebug("add_cia"));
    libs.emplace_back(Library::Kind::IMPL, "test", DK::QuantizedCPU, d)
        .impl("dangling", intFunction<L>(3, "dangling_q"));
    libs.emplace_back(Library::Kind::IMPL, "_", DK::Autograd, d)
        .fallback(fallthrough<L>("autograd_ft"));
    libs.emplace_back(Library::Kind::IMPL, "_", DK::ADInplaceOrView, d)
        .fallback(fallthrough<L>("adinplace_ft"));
    libs.emplace_back(Library::Kind::IMPL, "_", DK::BackendSelect, d)
        .fallback(fallthrough<L>("backendselect_ft"));
    libs.emplace_back(Library::Kind::IMPL, "_", DK::SparseCPU, d)
        .fallback(boxedIntFunction<L>(7).withDebug("sparse_fb"));
    return libs;
  }

  void SetUp() override {
    ASSERT_NO_THROW(d.checkInvariants());
    before_ = snapshot(d);
    ASSERT_NE(before_.find("dangling_q"), std::string::npos);
  }

  // The state is the one recorded in `expected` (by default: right after populate()).
  void expectUnchanged(const std::string& expected) {
    EXPECT_EQ(snapshot(d), expected);
    EXPECT_NO_THROW(d.checkInvariants());
  }
  void expectUnchanged() { expectUnchanged(before_); }

  // f throws exactly E, whose message contains every needle; nothing changed.
  template <class E, class F>
  std::string expectError(F&& f, std::initializer_list<std::string> needles) {
    const std::string state = snapshot(d);
    const std::string message = messageOf<E>(std::forward<F>(f));
    for (const auto& needle : needles) {
      EXPECT_NE(message.find(needle), std::string::npos)
          << "the message does not mention '" << needle << "':\n"
          << message;
    }
    expectUnchanged(state);
    return message;
  }

  OperatorName name(const std::string& n) const { return OperatorName{n, ""}; }
  BasicOperatorHandle<L> op(const std::string& n = "test::op") const { return *d.findOp(name(n)); }
  Library implBlock(DispatchKey k, const std::string& ns = "test") {
    return Library(Library::Kind::IMPL, ns, k, d);
  }
  RegistrationHandle registerImplRaw(const std::string& op_name, std::optional<DispatchKey> k) {
    CppFunction f([](const Tensor&) -> int64_t { return 0; });
    return d.registerImpl(name(op_name), k, std::move(f.kernel_), std::move(f.cpp_signature_),
                          std::move(f.inferred_schema_), "raw");
  }

  Dispatcher d;
  std::vector<Library> libs_ = populate();
  std::string before_;
};
TYPED_TEST_SUITE(ErrorsTest, TestedLayouts, LayoutName);

const DispatchKey kOutOfRange[] = {static_cast<DispatchKey>(122), static_cast<DispatchKey>(200),
                                   static_cast<DispatchKey>(0xFFFF)};

// Building blocks, placeholders and the sentinel, with the name the spec gives them (1.3, 1.4).
const std::pair<DispatchKey, const char*> kNotRuntime[] = {
    {DK::Undefined, "Undefined"},
    {DK::Dense, "Dense"},
    {DK::Quantized, "Quantized"},
    {DK::AutogradFunctionality, "AutogradFunctionality"},
    {DK::StartOfDenseBackends, "Unknown"},
    {DK::StartOfQuantizedBackends, "QuantizedUnknown"},
    {DK::StartOfAutogradFunctionalityBackends, "AutogradUnknown"},
    {DK::EndOfFunctionalityKeys, "EndOfFunctionalityKeys"},
};

// --- keys ----------------------------------------------------------------------------------------

TYPED_TEST(ErrorsTest, OutOfRangeKeyInImpl) {
  for (DispatchKey k : kOutOfRange) {
    const std::string value = std::to_string(static_cast<int>(toUnderlying(k)));
    this->template expectError<InvalidKeyError>([&] { this->registerImplRaw("test::op", k); },
                                                {"test::op", value});
    this->template expectError<InvalidKeyError>(
        [&] { this->registerImplRaw("test::brand_new", k); }, {"test::brand_new", value});
  }
}

TYPED_TEST(ErrorsTest, OutOfRangeKeyInFallback) {
  for (DispatchKey k : kOutOfRange) {
    const std::string value = std::to_string(static_cast<int>(toUnderlying(k)));
    this->template expectError<InvalidKeyError>(
        [&] { this->d.registerFallback(k, TestFixture::KernelFunction::makeFallthrough(), "bad"); },
        {value});
  }
}

TYPED_TEST(ErrorsTest, OutOfRangeKeyInLibraryBlocks) {
  using Lib = typename TestFixture::Library;
  for (DispatchKey k : kOutOfRange) {
    const std::string value = std::to_string(static_cast<int>(toUnderlying(k)));
    this->template expectError<InvalidKeyError>(
        [&] { Lib lib(Lib::Kind::IMPL, "test", k, this->d); }, {"test", value});
    this->template expectError<InvalidKeyError>(
        [&] { Lib lib(Lib::Kind::IMPL, "_", k, this->d); }, {value});
  }
}

TYPED_TEST(ErrorsTest, AliasKeysCannotTakeADirectFallback) {
  for (const auto& kn : {std::pair{DK::Autograd, "Autograd"},
                         std::pair{DK::CompositeImplicitAutograd, "CompositeImplicitAutograd"},
                         std::pair{DK::CompositeImplicitAutogradNestedTensor,
                                   "CompositeImplicitAutogradNestedTensor"},
                         std::pair{DK::CompositeExplicitAutograd, "CompositeExplicitAutograd"},
                         std::pair{DK::CompositeExplicitAutogradNonFunctional,
                                   "CompositeExplicitAutogradNonFunctional"}}) {
    const DispatchKey k = kn.first;
    const std::string n = kn.second;
    this->template expectError<InvalidKeyError>(
        [&] {
          this->d.registerFallback(k, TestFixture::KernelFunction::makeFallthrough(), "alias");
        },
        {n});
    this->template expectError<InvalidKeyError>(
        [&] { this->op().hasComputedKernelForDispatchKey(k); }, {"test::op", n});
  }
}

TYPED_TEST(ErrorsTest, BuildingBlocksAndPlaceholdersInImplAndFallback) {
  for (const auto& kn : kNotRuntime) {
    const DispatchKey k = kn.first;
    const std::string n = kn.second;
    SCOPED_TRACE(n);
    this->template expectError<InvalidKeyError>([&] { this->registerImplRaw("test::op", k); },
                                                {"test::op", n});
    // Through a library, Undefined is CatchAll: a catch-all (c10_compat_test).
    if (k != DK::Undefined) {
      this->template expectError<InvalidKeyError>(
          [&] { this->implBlock(k).impl("op", intFunction<TypeParam>(9, "x")); },
          {"test::op", n});
    }
    this->template expectError<InvalidKeyError>(
        [&] {
          this->d.registerFallback(k, TestFixture::KernelFunction::makeFallthrough(), "block");
        },
        {n});
  }
}

// docs/semantics.md §5.3 says Library::fallback iterates a building block "to nothing". Whatever the library
// does with it, it must not register anything.
TYPED_TEST(ErrorsTest, LibraryFallbackOnABuildingBlockRegistersNothing) {
  for (const auto& kn : kNotRuntime) {
    const DispatchKey k = kn.first;
    const std::string n = kn.second;
    SCOPED_TRACE(n);
    auto lib = typename TestFixture::Library(TestFixture::Library::Kind::IMPL, "_", k, this->d);
    try {
      lib.fallback(fallthrough<TypeParam>("block_ft"));
    } catch (const InvalidKeyError&) {
    }
    EXPECT_EQ(lib.numRegistrations(), 0u);
    this->expectUnchanged();
  }
}

TEST(MobileErrorsTest, KeysAbsentOnMobileCannotTakeAFallback) {
  mobile::Dispatcher d;
  auto def = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  const std::string before = snapshot(d);
  for (const auto& kn : {std::pair{DK::CUDA, "CUDA"}, std::pair{DK::Named, "Named"},
                         std::pair{DK::AutogradCUDA, "AutogradCUDA"},
                         std::pair{DK::PythonDispatcher, "PythonDispatcher"},
                         std::pair{DK::NestedTensorCPU, "NestedTensorCPU"}}) {
    const DispatchKey k = kn.first;
    const std::string n = kn.second;
    const std::string message = messageOf<InvalidKeyError>(
        [&] { d.registerFallback(k, mobile::KernelFunction::makeFallthrough(), "absent"); });
    EXPECT_NE(message.find(n), std::string::npos) << message;
    EXPECT_NE(message.find("mobile"), std::string::npos) << message;
    EXPECT_EQ(snapshot(d), before);
    EXPECT_FALSE(d.hasBackendFallbackForDispatchKey(k));
  }
  EXPECT_NO_THROW(d.checkInvariants());
}

// --- fallbacks -----------------------------------------------------------------------------------

TYPED_TEST(ErrorsTest, SecondFallbackOnAKey) {
  if (hasSlot<TypeParam>("SparseCPU")) {
    this->template expectError<RegistrationError>(
        [&] { this->d.registerFallback(DK::SparseCPU, boxedInt<TypeParam>(8), "second_fb"); },
        {"SparseCPU", "sparse_fb", "second_fb"});
  } else {  // the fixture's block skipped it (docs/semantics.md §6.4); a direct one is refused
    this->template expectError<InvalidKeyError>(
        [&] { this->d.registerFallback(DK::SparseCPU, boxedInt<TypeParam>(8), "second_fb"); },
        {"SparseCPU", std::string(TypeParam::kName)});
  }
  this->template expectError<RegistrationError>(
      [&] {
        this->d.registerFallback(DK::AutogradCPU, TestFixture::KernelFunction::makeFallthrough(),
                                 "second_ft");
      },
      {"AutogradCPU", "autograd_ft", "second_ft"});
}

TYPED_TEST(ErrorsTest, LibraryFallbackOverAnAliasWithOneKeyTakenRegistersNothing) {
  using Lib = typename TestFixture::Library;
  // CIA expands to CPU, ..., QuantizedCPU, ..., SparseCPU, ..., AutogradCPU; SparseCPU and
  // AutogradCPU are taken (the first of them the flavour keeps is reported).
  Lib lib(Lib::Kind::IMPL, "_", DK::CompositeImplicitAutograd, this->d);
  this->template expectError<RegistrationError>(
      [&] { lib.fallback(fallthrough<TypeParam>("cia_ft")); },
      {hasSlot<TypeParam>("SparseCPU") ? "SparseCPU" : "AutogradCPU", "cia_ft"});
  EXPECT_EQ(lib.numRegistrations(), 0u);
  EXPECT_FALSE(this->d.hasBackendFallbackForDispatchKey(DK::CPU));

  // The same with Autograd on a dispatcher where only AutogradCPU is taken.
  typename TestFixture::Dispatcher d2;
  auto taken =
      d2.registerFallback(DK::AutogradCPU, TestFixture::KernelFunction::makeFallthrough(), "taken");
  const std::string before = snapshot(d2);
  Lib autograd(Lib::Kind::IMPL, "_", DK::Autograd, d2);
  const std::string message =
      messageOf<RegistrationError>([&] { autograd.fallback(fallthrough<TypeParam>("ag_ft")); });
  EXPECT_NE(message.find("AutogradCPU"), std::string::npos) << message;
  EXPECT_EQ(autograd.numRegistrations(), 0u);
  EXPECT_EQ(snapshot(d2), before);
  EXPECT_EQ(d2.dumpFallbacks(), "AutogradCPU: fallthrough taken\n");
  EXPECT_FALSE(d2.hasBackendFallbackForDispatchKey(DK::AutogradOther));
}

// --- definitions and kernels ---------------------------------------------------------------------

TYPED_TEST(ErrorsTest, DuplicateDef) {
  using Lib = typename TestFixture::Library;
  Lib frag(Lib::Kind::FRAGMENT, "test", std::nullopt, this->d, "frag.cpp", 9);
  this->template expectError<RegistrationError>([&] { frag.def("op(Tensor self) -> int"); },
                                                {"test::op", "defs.cpp:7", "frag.cpp:9"});
  this->template expectError<RegistrationError>([&] { frag.def("op(Tensor self, int x) -> int"); },
                                                {"test::op"});
  this->template expectError<RegistrationError>(
      [&] { this->d.registerDef(parseSchema("test::add(Tensor self, int x) -> int"), "raw"); },
      {"test::add"});
  EXPECT_EQ(frag.numRegistrations(), 0u);
}

TYPED_TEST(ErrorsTest, SchemaMismatchDefThenImpl) {
  using CppFn = typename TestFixture::CppFunction;
  this->template expectError<SchemaError>(
      [&] {
        this->implBlock(DK::CPU).impl(
            "nokernel", CppFn([](const Tensor&, int64_t) -> int64_t { return 0; }));
      },
      {"test::nokernel", "CPU"});
  this->template expectError<SchemaError>(
      [&] {
        this->implBlock(DK::AutogradCPU).impl("nokernel", CppFn([](const Tensor&) -> double {
                                                return 0;
                                              }));
      },
      {"test::nokernel", "AutogradCPU"});
  this->template expectError<SchemaError>(
      [&] {
        this->implBlock(DK::CompositeImplicitAutograd)
            .impl("nokernel", CppFn([](int64_t) -> int64_t { return 0; }));
      },
      {"test::nokernel", "CompositeImplicitAutograd"});
}

TYPED_TEST(ErrorsTest, SchemaMismatchImplThenDef) {
  using Lib = typename TestFixture::Library;
  Lib frag(Lib::Kind::FRAGMENT, "test", std::nullopt, this->d);
  // test::dangling has a QuantizedCPU kernel int64_t(Tensor).
  this->template expectError<SchemaError>([&] { frag.def("dangling(Tensor self, int x) -> int"); },
                                          {"test::dangling", "QuantizedCPU", "dangling_q"});
  this->template expectError<SchemaError>([&] { frag.def("dangling(Tensor self) -> float"); },
                                          {"test::dangling", "QuantizedCPU"});
  EXPECT_FALSE(this->op("test::dangling").hasSchema());
  EXPECT_EQ(this->d.findDanglingImpls(), std::vector<OperatorName>{this->name("test::dangling")});
}

TYPED_TEST(ErrorsTest, CppSignatureMismatchBetweenKernels) {
  using CppFn = typename TestFixture::CppFunction;
  // No schema: only the C++ signatures disagree.
  this->template expectError<SignatureMismatchError>(
      [&] {
        this->implBlock(DK::CUDA).impl(
            "dangling", CppFn([](const Tensor&, int64_t) -> int64_t { return 0; }));
      },
      {"test::dangling", "CUDA", "dangling_q"});
  // With a schema the signature check comes first.
  this->template expectError<SignatureMismatchError>(
      [&] {
        this->implBlock(DK::SparseCPU).impl("op", CppFn([](const Tensor&) -> double {
                                              return 0;
                                            }));
      },
      {"test::op", "SparseCPU", "op_cpu"});
  // The first signature is sticky: it outlives its kernel.
  auto keep = this->d.registerName(this->name("test::sticky"));
  this->registerImplRaw("test::sticky", DK::CPU).release();
  this->template expectError<SignatureMismatchError>(
      [&] {
        this->implBlock(DK::CPU).impl("sticky",
                                      CppFn([](const Tensor&) -> double { return 0; }));
      },
      {"test::sticky", "CPU"});
}

TYPED_TEST(ErrorsTest, TypedWithAWrongSignature) {
  this->template expectError<SignatureMismatchError>(
      [&] { this->op().template typed<int64_t(const Tensor&, int64_t)>(); }, {"test::op"});
  this->template expectError<SignatureMismatchError>(
      [&] { this->op().template typed<double(const Tensor&)>(); }, {"test::op"});
  // Schema only, no kernel: checked against the schema.
  this->template expectError<SignatureMismatchError>(
      [&] { this->op("test::nokernel").template typed<double(const Tensor&)>(); },
      {"test::nokernel"});
  this->template expectError<SignatureMismatchError>(
      [&] { this->op("test::nokernel").template typed<int64_t(int64_t)>(); }, {"test::nokernel"});
}

TYPED_TEST(ErrorsTest, EmptyKernel) {
  this->template expectError<RegistrationError>(
      [&] {
        this->d.registerImpl(this->name("test::op"), DK::CUDA,
                             typename TestFixture::KernelFunction(), std::nullopt, std::nullopt,
                             "empty");
      },
      {"test::op", "CUDA"});
  this->template expectError<RegistrationError>(
      [&] {
        this->d.registerFallback(DK::QuantizedCPU, typename TestFixture::KernelFunction(), "empty");
      },
      {"QuantizedCPU"});
}

// --- handles -------------------------------------------------------------------------------------

TYPED_TEST(ErrorsTest, HandleReleasedTwice) {
  auto h = implInt(this->d, "test::op", DK::QuantizedCPU, "q_kernel", 5);
  EXPECT_NE(snapshot(this->d), this->before_);
  h.release();
  this->expectUnchanged();
  this->template expectError<RegistrationError>([&] { h.release(); }, {"test::op", "QuantizedCPU"});
  EXPECT_FALSE(h.active());

  auto fb = this->d.registerFallback(DK::CPU, boxedInt<TypeParam>(4), "cpu_fb");
  fb.release();
  this->expectUnchanged();
  this->template expectError<RegistrationError>([&] { fb.release(); }, {"CPU"});
}

TYPED_TEST(ErrorsTest, MovedFromHandleRelease) {
  auto h1 = implInt(this->d, "test::op", DK::QuantizedCPU, "q_kernel", 5);
  RegistrationHandle h2 = std::move(h1);
  EXPECT_FALSE(h1.active());
  EXPECT_TRUE(h2.active());
  this->template expectError<RegistrationError>([&] { h1.release(); },
                                                {"test::op", "QuantizedCPU"});
  EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "QuantizedCPU"), "q_kernel [kernel]")
      << "h2 still holds the kernel";
  h2.release();
  this->expectUnchanged();
  RegistrationHandle never;
  this->template expectError<RegistrationError>([&] { never.release(); }, {});
}

// --- calls ---------------------------------------------------------------------------------------

TYPED_TEST(ErrorsTest, CallWithNoKernel) {
  auto typed = this->op().template typed<IntSig>();
  const Tensor cuda = tensor(TensorKind::Dense, BC::CUDABit);
  const std::string flavour(TypeParam::kName);
  if (!hasSlot<TypeParam>("CUDA") && !hasSlot<TypeParam>("AutogradCUDA")) {
    // AutogradCUDA has no slot, so the fallthrough does not mask it; it is reported.
    this->template expectError<NotImplementedError>([&] { typed.call(cuda); },
                                                    {"test::op", "AutogradCUDA", flavour});
    AutoDispatchBelowAutograd below;
    this->template expectError<NotImplementedError>([&] { typed.call(cuda); },
                                                    {"test::op", "'CUDA'", flavour});
  } else {
    this->template expectError<NotImplementedError>([&] { typed.call(cuda); },
                                                    {"test::op", "'CUDA'", "CPU"});
    Stack stack{Value(cuda)};
    this->template expectError<NotImplementedError>([&] { this->op().callBoxed(stack); },
                                                    {"test::op", "'CUDA'"});
  }
  // Meta: a backend both flavours know, but no kernel.
  this->template expectError<NotImplementedError>(
      [&] { typed.call(tensor(TensorKind::Dense, BC::MetaBit)); }, {"test::op", "Meta"});
}

TYPED_TEST(ErrorsTest, CallWithAnEmptyKeySet) {
  // An undefined tensor carries no keys; the TLS-included keys are fallthroughs: nothing left.
  auto typed = this->op().template typed<IntSig>();
  this->template expectError<NotImplementedError>([&] { typed.call(Tensor()); },
                                                  {"test::op", "no tensor arguments"});
  Stack stack{Value(Tensor())};
  this->template expectError<NotImplementedError>([&] { this->op().callBoxed(stack); },
                                                  {"test::op", "no tensor arguments"});
}

TYPED_TEST(ErrorsTest, BoxedCallWithWrongArityOrTypes) {
  Stack empty;
  this->template expectError<BoxedCallError>([&] { this->op().callBoxed(empty); }, {"test::op"});
  EXPECT_TRUE(empty.empty());
  Stack wrong_type{Value(int64_t{1})};
  this->template expectError<BoxedCallError>([&] { this->op().callBoxed(wrong_type); },
                                             {"test::op", "self"});
  EXPECT_EQ(wrong_type, Stack{Value(int64_t{1})});
  Stack short_add{Value(cpuTensor())};
  this->template expectError<BoxedCallError>([&] { this->op("test::add").callBoxed(short_add); },
                                             {"test::add"});
  Stack wrong_add{Value(cpuTensor()), Value(1.5)};
  this->template expectError<BoxedCallError>([&] { this->op("test::add").callBoxed(wrong_add); },
                                             {"test::add", "x"});
  EXPECT_EQ(wrong_add, (Stack{Value(cpuTensor()), Value(1.5)}));
}

TYPED_TEST(ErrorsTest, FallthroughReachedByRedispatch) {
  auto typed = this->op().template typed<IntSig>();
  // The Autograd fallthrough fallback, reached with an unmasked set.
  this->template expectError<NotImplementedError>(
      [&] {
        typed.redispatch(DispatchKeySet{DK::AutogradCPU, DK::CPU}, cpuTensor());
      },
      {"test::op", "AutogradCPU", "fallthrough"});
  Stack stack{Value(cpuTensor())};
  this->template expectError<NotImplementedError>(
      [&] {
        this->op().redispatchBoxed(DispatchKeySet{DK::ADInplaceOrView, DK::CPU}, &stack);
      },
      {"test::op", "ADInplaceOrView", "fallthrough"});
  // A per-operator fallthrough kernel: call() skips it, redispatch runs it.
  auto q = this->implBlock(DK::QuantizedCPU);
  q.impl("op", fallthrough<TypeParam>("op_q_ft"));
  auto cpu_fb = this->d.registerFallback(DK::CPU, boxedInt<TypeParam>(70), "cpu_fb");
  // call() masks QuantizedCPU out; only the CPU backend bit is left, which names no key.
  this->template expectError<NotImplementedError>(
      [&] { typed.call(tensor(TensorKind::Quantized, BC::CPUBit)); },
      {"test::op", "no tensor arguments"});
  this->template expectError<NotImplementedError>(
      [&] { typed.redispatch(DispatchKeySet(DK::QuantizedCPU), cpuTensor()); },
      {"test::op", "QuantizedCPU", "fallthrough"});
}

TYPED_TEST(ErrorsTest, AmbiguousAutogradOtherCall) {
  auto sparse = this->implBlock(DK::SparseCPU);
  sparse.impl("add",
              BasicCppFunction<TypeParam>([](const Tensor&, int64_t) -> int64_t { return 9; }));
  auto typed = this->op("test::add").template typed<int64_t(const Tensor&, int64_t)>();
  // HIP's autograd key is AutogradOther (docs/semantics.md §1.6); its slot is now the ambiguous kernel.
  const Tensor hip = tensor(TensorKind::Dense, BC::HIPBit);
  if (!hasSlot<TypeParam>("AutogradOther")) {  // no ambiguity where AutogradOther has no slot
    this->template expectError<NotImplementedError>(
        [&] { typed.call(hip, 1); }, {"test::add", "AutogradOther", std::string(TypeParam::kName)});
    return;
  }
  this->template expectError<AmbiguousAutogradOtherError>(
      [&] { typed.call(hip, 1); }, {"test::add", "AutogradOther", "CompositeImplicitAutograd"});
  const Tensor fpga(DispatchKeySet{DK::FPGA, DK::AutogradOther});
  this->template expectError<AmbiguousAutogradOtherError>([&] { typed.call(fpga, 1); },
                                                          {"test::add", "AutogradOther"});
  // Below autograd there is no ambiguity (the CIA kernel serves HIP).
  AutoDispatchBelowAutograd below;
  if (hasSlot<TypeParam>("HIP")) {
    EXPECT_EQ(typed.call(hip, 5), 5);
  }
}

// --- library blocks ------------------------------------------------------------------------------

TYPED_TEST(ErrorsTest, DefInAnImplBlock) {
  auto block = this->implBlock(DK::CPU);
  this->template expectError<RegistrationError>([&] { block.def("newop(Tensor self) -> int"); },
                                                {"newop", "test", "CPU"});
  EXPECT_FALSE(this->d.findOp(this->name("test::newop")).has_value());
}

TYPED_TEST(ErrorsTest, FallbackInANamespacedBlock) {
  auto block = this->implBlock(DK::CPU);
  this->template expectError<RegistrationError>(
      [&] { block.fallback(fallthrough<TypeParam>("ns_ft")); }, {"test", "CPU"});
  typename TestFixture::Library frag(TestFixture::Library::Kind::FRAGMENT, "test", std::nullopt,
                                     this->d);
  this->template expectError<RegistrationError>(
      [&] { frag.fallback(fallthrough<TypeParam>("frag_ft")); }, {"test"});
  EXPECT_EQ(block.numRegistrations() + frag.numRegistrations(), 0u);
}

TYPED_TEST(ErrorsTest, ImplOrDefWithAMismatchingExplicitNamespace) {
  auto block = this->implBlock(DK::CPU);
  this->template expectError<RegistrationError>(
      [&] { block.impl("other::op", intFunction<TypeParam>(1, "x")); },
      {"other::op", "test", "CPU"});
  EXPECT_FALSE(this->d.findOp(this->name("other::op")).has_value());
  typename TestFixture::Library frag(TestFixture::Library::Kind::FRAGMENT, "test", std::nullopt,
                                     this->d);
  this->template expectError<RegistrationError>([&] { frag.def("other::op2(Tensor self) -> int"); },
                                                {"other::op2", "test"});
  // A matching explicit namespace is fine.
  EXPECT_NO_THROW(block.impl("test::nokernel", intFunction<TypeParam>(2, "ok")));
}

TEST(MobileErrorsTest, CallBoxedForDispatchKeyWithoutASlot) {
  mobile::Dispatcher d;
  auto def = d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto op = d.findSchemaOrThrow("test::op");
  Stack stack{Value(cpuTensor())};
  const std::string message =
      messageOf<NotImplementedError>([&] { op.callBoxedForDispatchKey(DK::CUDA, &stack); });
  EXPECT_NE(message.find("test::op"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA"), std::string::npos) << message;
  EXPECT_EQ(stack, Stack{Value(cpuTensor())});
}

}  // namespace
}  // namespace dispatch
