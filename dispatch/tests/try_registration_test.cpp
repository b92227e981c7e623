// The try... registration forms (tryRegisterLibrary, tryRegisterDef, tryRegisterImpl,
// tryRegisterFallback, and Library's tryOpen, tryDef, tryImpl and tryFallback): for every kind
// of refusal they return exactly what the throwing form throws (the error type as
// Refusal::Kind, the same message), and both leave the dispatcher exactly as it was; an
// accepted registration gives a handle (or library) that undoes it.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <typeinfo>
#include <variant>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

const std::type_info& errorTypeOf(Refusal::Kind kind) {
  switch (kind) {
    case Refusal::Kind::InvalidKey:
      return typeid(InvalidKeyError);
    case Refusal::Kind::Registration:
      return typeid(RegistrationError);
    case Refusal::Kind::Schema:
      return typeid(SchemaError);
    case Refusal::Kind::SignatureMismatch:
      break;
  }
  return typeid(SignatureMismatchError);
}

// What `run` throws: its message and type (no type when it throws nothing).
struct Thrown {
  std::string message;
  const std::type_info* type = nullptr;
};
template <class F>
Thrown thrownBy(F&& run) {
  try {
    run();
  } catch (const std::exception& e) {
    return {e.what(), &typeid(e)};
  }
  return {};
}

template <class L>
class TryRegistrationTest : public ::testing::Test {
 protected:
  using Dispatcher = BasicDispatcher<L>;
  using CppFunction = BasicCppFunction<L>;
  using KernelFunction = BasicKernelFunction<L>;

  // One registration, both ways: `tried` with the try... form, `thrown` with the throwing one.
  struct Case {
    std::string what;
    Refusal::Kind kind;
    std::function<TriedRegistration(Dispatcher&)> tried;
    std::function<RegistrationHandle(Dispatcher&)> thrown;
  };

  void SetUp() override {
    handles_.push_back(d.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op"));
    // A def without kernels: no C++ signature yet, so only its schema can refuse a kernel.
    handles_.push_back(d.registerDef(parseSchema("test::bare(Tensor self) -> int"), "def_bare"));
    handles_.push_back(impl(d, "test::op", DK::CPU, CppFunction([](const Tensor&) -> int64_t { return 1; })));
    // An operator without a def, whose kernel fixes its signature and inferred schema.
    handles_.push_back(
        impl(d, "test::undef", DK::CPU, CppFunction([](const Tensor&) -> int64_t { return 2; })));
    handles_.push_back(d.registerFallback(DK::QuantizedCPU, boxedInt<L>(7), "quantized_fb"));
    handles_.push_back(d.registerLibrary("test", "library_test"));
    ASSERT_NO_THROW(d.checkInvariants());
  }

  static RegistrationHandle impl(Dispatcher& on, const std::string& op, std::optional<DispatchKey> k,
                                 CppFunction f) {
    return on.registerImpl(OperatorName{op, ""}, k, std::move(f.kernel_), std::move(f.cpp_signature_),
                           std::move(f.inferred_schema_), "impl");
  }
  static TriedRegistration tryImpl(Dispatcher& on, const std::string& op, std::optional<DispatchKey> k,
                                   CppFunction f) {
    return on.tryRegisterImpl(OperatorName{op, ""}, k, std::move(f.kernel_), std::move(f.cpp_signature_),
                              std::move(f.inferred_schema_), "impl");
  }

  // Both forms of `c`, each on the fixture's dispatcher: the same error, and no change.
  void expectSameRefusal(const Case& c) {
    SCOPED_TRACE(c.what);
    const std::string before = snapshot(d);
    const Thrown thrown = thrownBy([&] { c.thrown(d); });
    ASSERT_NE(thrown.type, nullptr) << "the throwing form accepted it";
    EXPECT_EQ(snapshot(d), before);

    TriedRegistration tried = c.tried(d);
    ASSERT_FALSE(tried.ok()) << "the try form accepted it";
    ASSERT_NE(tried.refusal(), nullptr);
    EXPECT_EQ(tried.refusal()->kind(), c.kind);
    EXPECT_EQ(*thrown.type, errorTypeOf(tried.refusal()->kind()))
        << "thrown " << thrown.type->name() << ", refused as " << errorTypeOf(tried.refusal()->kind()).name();
    EXPECT_EQ(tried.refusal()->message(), thrown.message);
    EXPECT_EQ(snapshot(d), before);
    EXPECT_NO_THROW(d.checkInvariants());

    // take() on a refusal throws the very error of the throwing form.
    try {
      std::move(tried).take();
      ADD_FAILURE() << "take() of a refusal returned a handle";
    } catch (const std::exception& e) {
      EXPECT_EQ(typeid(e), *thrown.type);
      EXPECT_EQ(std::string(e.what()), thrown.message);
    }
  }

  Dispatcher d;
  std::vector<RegistrationHandle> handles_;
};
TYPED_TEST_SUITE(TryRegistrationTest, TestedLayouts, LayoutName);

TYPED_TEST(TryRegistrationTest, EveryRefusalIsTheThrownErrorAsAValue) {
  using F = typename TestFixture::CppFunction;
  using D = typename TestFixture::Dispatcher;
  using KF = typename TestFixture::KernelFunction;
  using K = Refusal::Kind;
  const DispatchKey out_of_range = static_cast<DispatchKey>(200);
  auto int_kernel = [] { return F([](const Tensor&) -> int64_t { return 3; }); };
  auto two_arg_kernel = [] { return F([](const Tensor&, int64_t x) -> int64_t { return x; }); };
  auto double_kernel = [] { return F([](const Tensor&) -> double { return 0.5; }); };
  const std::vector<typename TestFixture::Case> cases = {
      {"a second library for a namespace", K::Registration,
       [](D& on) { return on.tryRegisterLibrary("test", "again"); },
       [](D& on) { return on.registerLibrary("test", "again"); }},
      {"a second def", K::Registration,
       [](D& on) { return on.tryRegisterDef(parseSchema("test::op(Tensor self) -> int"), "again"); },
       [](D& on) { return on.registerDef(parseSchema("test::op(Tensor self) -> int"), "again"); }},
      {"a def its kernels disagree with", K::Schema,
       [](D& on) { return on.tryRegisterDef(parseSchema("test::undef(Tensor self, int x) -> int"), "d"); },
       [](D& on) { return on.registerDef(parseSchema("test::undef(Tensor self, int x) -> int"), "d"); }},
      {"an impl whose inferred schema disagrees with the def", K::Schema,
       [&](D& on) { return TestFixture::tryImpl(on, "test::bare", DK::CUDA, two_arg_kernel()); },
       [&](D& on) { return TestFixture::impl(on, "test::bare", DK::CUDA, two_arg_kernel()); }},
      {"an impl with another C++ signature", K::SignatureMismatch,
       [&](D& on) { return TestFixture::tryImpl(on, "test::op", DK::CUDA, double_kernel()); },
       [&](D& on) { return TestFixture::impl(on, "test::op", DK::CUDA, double_kernel()); }},
      {"an impl on a key outside the enum", K::InvalidKey,
       [&](D& on) { return TestFixture::tryImpl(on, "test::op", out_of_range, int_kernel()); },
       [&](D& on) { return TestFixture::impl(on, "test::op", out_of_range, int_kernel()); }},
      {"an impl on a building block", K::InvalidKey,
       [&](D& on) { return TestFixture::tryImpl(on, "test::brand_new", DK::Dense, int_kernel()); },
       [&](D& on) { return TestFixture::impl(on, "test::brand_new", DK::Dense, int_kernel()); }},
      {"an impl with an empty kernel", K::Registration,
       [](D& on) {
         return on.tryRegisterImpl(OperatorName{"test::op", ""}, DK::CUDA, KF(), std::nullopt,
                                  std::nullopt, "empty");
       },
       [](D& on) {
         return on.registerImpl(OperatorName{"test::op", ""}, DK::CUDA, KF(), std::nullopt,
                               std::nullopt, "empty");
       }},
      {"a fallback on an alias key", K::InvalidKey,
       [](D& on) { return on.tryRegisterFallback(DK::Autograd, KF::makeFallthrough(), "a"); },
       [](D& on) { return on.registerFallback(DK::Autograd, KF::makeFallthrough(), "a"); }},
      {"a fallback on Undefined", K::InvalidKey,
       [](D& on) { return on.tryRegisterFallback(DK::Undefined, KF::makeFallthrough(), "u"); },
       [](D& on) { return on.registerFallback(DK::Undefined, KF::makeFallthrough(), "u"); }},
      {"a fallback on a key outside the enum", K::InvalidKey,
       [&](D& on) { return on.tryRegisterFallback(out_of_range, KF::makeFallthrough(), "o"); },
       [&](D& on) { return on.registerFallback(out_of_range, KF::makeFallthrough(), "o"); }},
      {"a second fallback on a key", K::Registration,
       [](D& on) { return on.tryRegisterFallback(DK::QuantizedCPU, boxedInt<TypeParam>(8), "second"); },
       [](D& on) { return on.registerFallback(DK::QuantizedCPU, boxedInt<TypeParam>(8), "second"); }},
      {"a fallback with an empty kernel", K::Registration,
       [](D& on) { return on.tryRegisterFallback(DK::CPU, KF(), "empty"); },
       [](D& on) { return on.registerFallback(DK::CPU, KF(), "empty"); }},
  };
  for (const auto& c : cases) this->expectSameRefusal(c);
}

TYPED_TEST(TryRegistrationTest, AKeyWithoutASlotIsRefusedTheSameWay) {
  using KF = typename TestFixture::KernelFunction;
  // Trimmed flavours lack slots for most runtime keys; the full flavour has them all.
  for (const SpecKey& key : fullRuntimeKeys()) {
    const DispatchKey k = keyOfValue(key.value);
    if (TypeParam::indexOf(k) >= 0) continue;
    this->expectSameRefusal({"a fallback on " + key.name + ", which has no slot", Refusal::Kind::InvalidKey,
                             [&](auto& on) { return on.tryRegisterFallback(k, KF::makeFallthrough(), "n"); },
                             [&](auto& on) { return on.registerFallback(k, KF::makeFallthrough(), "n"); }});
  }
}

TYPED_TEST(TryRegistrationTest, AnAcceptedRegistrationGivesAHandleThatUndoesIt) {
  auto& dispatcher = this->d;
  const std::string before = snapshot(dispatcher);
  TriedRegistration def = dispatcher.tryRegisterDef(parseSchema("test::other(Tensor self) -> int"), "def_other");
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def.refusal(), nullptr);
  TriedRegistration fallback =
      dispatcher.tryRegisterFallback(DK::AutogradCPU, TestFixture::KernelFunction::makeFallthrough(), "ft");
  ASSERT_TRUE(fallback.ok());
  TriedRegistration kernel = TestFixture::tryImpl(dispatcher, "test::other", DK::CPU,
                                                typename TestFixture::CppFunction([](const Tensor&) -> int64_t { return 4; }));
  ASSERT_TRUE(kernel.ok());
  EXPECT_TRUE(dispatcher.findSchema(OperatorName{"test::other", ""}).has_value());
  EXPECT_NE(snapshot(dispatcher), before);
  {
    RegistrationHandle handles[] = {std::move(def).take(), std::move(fallback).take(), std::move(kernel).take()};
    for (const auto& h : handles) EXPECT_TRUE(h.active());
    EXPECT_NO_THROW(dispatcher.checkInvariants());
  }
  EXPECT_EQ(snapshot(dispatcher), before) << "dropping the handles undid all three";
}

TYPED_TEST(TryRegistrationTest, LibraryTryFallbackRefusesAsFallbackThrows) {
  using Library = BasicLibrary<TypeParam>;
  using F = typename TestFixture::CppFunction;
  auto& dispatcher = this->d;
  struct LibraryCase {
    std::string what;
    std::string ns;
    DispatchKey key;
    Refusal::Kind kind;
  };
  // CompositeExplicitAutograd expands to every backend key, QuantizedCPU among them, which the
  // fixture gave a fallback: the keys before it are registered, then undone (all or nothing).
  const std::vector<LibraryCase> cases = {
      {"a fallback in a namespaced block", "test", DK::CPU, Refusal::Kind::Registration},
      {"an alias reaching a key with a fallback", "_", DK::CompositeExplicitAutograd,
       Refusal::Kind::Registration},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string before = snapshot(dispatcher);
    Library throwing(Library::Kind::IMPL, c.ns, c.key, dispatcher);
    const Thrown thrown = thrownBy([&] { throwing.fallback(F::makeFallthrough()); });
    ASSERT_NE(thrown.type, nullptr) << "fallback() accepted it";
    EXPECT_EQ(throwing.numRegistrations(), 0u);
    EXPECT_EQ(snapshot(dispatcher), before);

    Library tried(Library::Kind::IMPL, c.ns, c.key, dispatcher);
    const std::optional<Refusal> refusal = tried.tryFallback(F::makeFallthrough());
    ASSERT_TRUE(refusal.has_value()) << "tryFallback() accepted it";
    EXPECT_EQ(refusal->kind(), c.kind);
    EXPECT_EQ(*thrown.type, errorTypeOf(refusal->kind()));
    EXPECT_EQ(refusal->message(), thrown.message);
    EXPECT_EQ(tried.numRegistrations(), 0u);
    EXPECT_EQ(snapshot(dispatcher), before);
    EXPECT_NO_THROW(dispatcher.checkInvariants());
  }
}

// One library action, both ways: `tried` with the try form, `thrown` with the throwing one.
template <class L>
struct LibraryCase {
  std::string what;
  Refusal::Kind kind;
  std::function<std::optional<Refusal>(BasicDispatcher<L>&)> tried;
  std::function<void(BasicDispatcher<L>&)> thrown;
};

// The refusal of opening a block, as a value (nullopt: the block opened, and is dropped again).
template <class L>
std::optional<Refusal> refusalOfOpening(typename BasicLibrary<L>::Kind kind, const std::string& ns,
                                        std::optional<DispatchKey> key, BasicDispatcher<L>& on) {
  auto opened = BasicLibrary<L>::tryOpen(kind, ns, key, on, "try_registration_test", 1);
  if (const Refusal* refusal = std::get_if<Refusal>(&opened)) return *refusal;
  return std::nullopt;
}

TYPED_TEST(TryRegistrationTest, LibraryTryFormsRefuseAsTheThrowingFormsThrow) {
  using Library = BasicLibrary<TypeParam>;
  using F = typename TestFixture::CppFunction;
  using D = typename TestFixture::Dispatcher;
  using K = Refusal::Kind;
  using Kind = typename Library::Kind;
  auto open = [](Kind kind, std::string ns, std::optional<DispatchKey> key) {
    return [=](D& on) { return refusalOfOpening<TypeParam>(kind, ns, key, on); };
  };
  auto construct = [](Kind kind, std::string ns, std::optional<DispatchKey> key) {
    return [=](D& on) { Library(kind, ns, key, on, "try_registration_test", 1); };
  };
  // A block that opens, then one registration in it: the try form must leave the block as it was.
  auto inBlock = [](Kind kind, std::string ns, std::optional<DispatchKey> key,
                    std::function<std::optional<Refusal>(Library&)> tried) {
    return [=](D& on) {
      Library block(kind, ns, key, on);
      const size_t made = block.numRegistrations();
      std::optional<Refusal> refusal = tried(block);
      EXPECT_EQ(block.numRegistrations(), made) << "a refused registration stayed in the block";
      return refusal;
    };
  };
  auto inThrowingBlock = [](Kind kind, std::string ns, std::optional<DispatchKey> key,
                            std::function<void(Library&)> thrown) {
    return [=](D& on) {
      Library block(kind, ns, key, on);
      thrown(block);
    };
  };
  auto openCase = [&](std::string what, K refused, Kind kind, std::string ns, std::optional<DispatchKey> key) {
    return LibraryCase<TypeParam>{what, refused, open(kind, ns, key), construct(kind, ns, key)};
  };
  auto defCase = [&](std::string what, Kind kind, std::string ns, std::string schema) {
    return LibraryCase<TypeParam>{
        what, K::Registration,
        inBlock(kind, ns, kind == Kind::IMPL ? std::optional(DK::CPU) : std::nullopt,
                [=](Library& m) { return m.tryDef(schema); }),
        inThrowingBlock(kind, ns, kind == Kind::IMPL ? std::optional(DK::CPU) : std::nullopt,
                        [=](Library& m) { m.def(schema); })};
  };
  auto implCase = [&](std::string what, K refused, std::string name, std::function<F()> kernel) {
    return LibraryCase<TypeParam>{
        what, refused,
        inBlock(Kind::IMPL, "test", DK::CUDA, [=](Library& m) { return m.tryImpl(name, kernel()); }),
        inThrowingBlock(Kind::IMPL, "test", DK::CUDA, [=](Library& m) { m.impl(name, kernel()); })};
  };
  const DispatchKey out_of_range = static_cast<DispatchKey>(200);
  const std::vector<LibraryCase<TypeParam>> cases = {
      openCase("a block on a key outside the enum", K::InvalidKey, Kind::IMPL, "test", out_of_range),
      openCase("a DISPATCH_LIBRARY for the wildcard namespace", K::Registration, Kind::DEF, "_", std::nullopt),
      openCase("a fragment with a key", K::Registration, Kind::FRAGMENT, "other", DK::CPU),
      openCase("a second DISPATCH_LIBRARY for a namespace", K::Registration, Kind::DEF, "test", std::nullopt),
      defCase("a def in an IMPL block", Kind::IMPL, "test", "test::fresh(Tensor self) -> int"),
      defCase("a def of another namespace", Kind::FRAGMENT, "test", "other::op(Tensor self) -> int"),
      defCase("a def of another namespace in a DISPATCH_LIBRARY", Kind::DEF, "fresh", "test::op(Tensor self) -> int"),
      defCase("a second def of an operator", Kind::FRAGMENT, "test", "op(Tensor self) -> int"),
      implCase("an impl of another namespace", K::Registration, "other::op", [] { return F::makeFallthrough(); }),
      implCase("an impl with another C++ signature", K::SignatureMismatch, "op",
               [] { return F([](const Tensor&) -> double { return 0.5; }); }),
  };
  auto& dispatcher = this->d;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string before = snapshot(dispatcher);
    const Thrown thrown = thrownBy([&] { c.thrown(dispatcher); });
    ASSERT_NE(thrown.type, nullptr) << "the throwing form accepted it";
    EXPECT_EQ(snapshot(dispatcher), before);

    const std::optional<Refusal> refusal = c.tried(dispatcher);
    ASSERT_TRUE(refusal.has_value()) << "the try form accepted it";
    EXPECT_EQ(refusal->kind(), c.kind);
    EXPECT_EQ(*thrown.type, errorTypeOf(refusal->kind()));
    EXPECT_EQ(refusal->message(), thrown.message);
    EXPECT_EQ(snapshot(dispatcher), before);
    EXPECT_NO_THROW(dispatcher.checkInvariants());
  }
  // Neither form kept the claim of the refused blocks: the namespace is free again.
  EXPECT_EQ(refusalOfOpening<TypeParam>(Kind::DEF, "fresh", std::nullopt, dispatcher), std::nullopt);
}

TYPED_TEST(TryRegistrationTest, LibraryTryFormsMakeWhatTheyAreAskedAndTheBlockUndoesIt) {
  using Library = BasicLibrary<TypeParam>;
  using Kind = typename Library::Kind;
  auto& dispatcher = this->d;
  const std::string before = snapshot(dispatcher);
  {
    auto opened = Library::tryOpen(Kind::DEF, "fresh", std::nullopt, dispatcher);
    ASSERT_TRUE(std::holds_alternative<Library>(opened));
    Library& block = std::get<Library>(opened);
    EXPECT_EQ(block.numRegistrations(), 1u) << "the namespace claim";
    // While the block is open, the namespace is taken.
    EXPECT_TRUE(refusalOfOpening<TypeParam>(Kind::DEF, "fresh", std::nullopt, dispatcher).has_value());
    EXPECT_EQ(block.tryDef("fresh(Tensor self) -> int"), std::nullopt);
    EXPECT_EQ(block.tryImpl("fresh", [](const Tensor&) -> int64_t { return 5; }), std::nullopt);
    EXPECT_EQ(block.numRegistrations(), 3u);
    const auto op = dispatcher.findSchema(OperatorName{"fresh::fresh", ""});
    ASSERT_TRUE(op.has_value());
    EXPECT_NE(op->dumpState().find("CompositeImplicitAutograd"), std::string::npos) << op->dumpState();
    EXPECT_NO_THROW(dispatcher.checkInvariants());
  }
  EXPECT_EQ(snapshot(dispatcher), before) << "dropping the block undid all three";
  EXPECT_EQ(refusalOfOpening<TypeParam>(Kind::DEF, "fresh", std::nullopt, dispatcher), std::nullopt);
}

TYPED_TEST(TryRegistrationTest, LibraryTryFallbackRegistersEverySlottedKeyOfAnAlias) {
  using Library = BasicLibrary<TypeParam>;
  auto& dispatcher = this->d;
  const std::string before = snapshot(dispatcher);
  size_t slotted = 0;
  for (DispatchKey k : getRuntimeDispatchKeySet(DK::Autograd)) slotted += TypeParam::indexOf(k) >= 0 ? 1 : 0;
  ASSERT_GT(slotted, 0u);
  {
    Library library(Library::Kind::IMPL, "_", DK::Autograd, dispatcher);
    EXPECT_EQ(library.tryFallback(TestFixture::CppFunction::makeFallthrough()), std::nullopt);
    EXPECT_EQ(library.numRegistrations(), slotted);
    for (DispatchKey k : getRuntimeDispatchKeySet(DK::Autograd)) {
      if (TypeParam::indexOf(k) >= 0) {
        EXPECT_NE(dispatcher.backendFallback(k), nullptr) << toString(k);
      }
    }
    EXPECT_NO_THROW(dispatcher.checkInvariants());
  }
  EXPECT_EQ(snapshot(dispatcher), before) << "dropping the library undid every fallback";
}

}  // namespace
}  // namespace dispatch
