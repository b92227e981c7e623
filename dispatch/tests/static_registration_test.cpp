// DISPATCH_LIBRARY / DISPATCH_LIBRARY_IMPL / DISPATCH_LIBRARY_FRAGMENT: static registration on the
// default flavour's singleton. This is the only test file that touches the singleton; it has its
// own executable, so nothing else registers there.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace {

using dispatch::DispatchKey;
using dispatch::DispatchKeySet;
using dispatch::Tensor;
namespace ts = dispatch::test_support;

int64_t staticCpu(const Tensor& t) { return t.id() + 1000; }

}  // namespace

DISPATCH_LIBRARY(statictest, m) {
  m.def("foo(Tensor self) -> int");
  m.def("composite(Tensor self) -> int", [](const Tensor& t) -> int64_t { return t.id() * 2; });
}

DISPATCH_LIBRARY_IMPL(statictest, CPU, m) { m.impl("foo", &staticCpu); }

DISPATCH_LIBRARY_IMPL(statictest, Autograd, m) {
  m.impl("foo", [](DispatchKeySet ks, const Tensor& t) -> int64_t {
    static const auto op = dispatch::Dispatcher::singleton()
                               .findSchemaOrThrow("statictest::foo")
                               .typed<int64_t(const Tensor&)>();
    return op.redispatch(
               ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DispatchKey::AutogradOther), t) +
           1;
  });
}

DISPATCH_LIBRARY_FRAGMENT(statictest, m) { m.def("bar(Tensor self, int x) -> int"); }
DISPATCH_LIBRARY_FRAGMENT(statictest, m) { m.def("baz(Tensor self) -> int"); }

DISPATCH_LIBRARY_IMPL(statictest, CPU, m) {
  m.impl("bar", [](const Tensor& t, int64_t x) -> int64_t { return t.id() + x; });
}

// CatchAll as a block's key is no key (c10's Library constructor): a catch-all kernel.
DISPATCH_LIBRARY_IMPL(statictest, CatchAll, m) {
  m.impl("baz", [](const Tensor& t) -> int64_t { return t.id() + 7; });
}

// Fallbacks as PyTorch registers them at start-up (docs/semantics.md §5.3); on mobile the keys without a slot
// are skipped (docs/semantics.md §6.4).
DISPATCH_LIBRARY_IMPL(_, ADInplaceOrView, m) {
  m.fallback(dispatch::CppFunction::makeFallthrough().withDebug("static_adinplace_ft"));
}
DISPATCH_LIBRARY_IMPL(_, BackendSelect, m) {
  m.fallback(dispatch::CppFunction::makeFallthrough().withDebug("static_bs_ft"));
}
DISPATCH_LIBRARY_IMPL(_, Named, m) {
  m.fallback(dispatch::CppFunction::makeFallthrough().withDebug("static_named_ft"));
}

namespace {

TEST(StaticRegistrationTest, LibrariesAreRegisteredOnTheSingleton) {
  auto& d = dispatch::Dispatcher::singleton();
  for (const char* name :
       {"statictest::foo", "statictest::composite", "statictest::bar", "statictest::baz"}) {
    EXPECT_NO_THROW(d.findSchemaOrThrow(name)) << name;
  }
  EXPECT_EQ(d.numOperators(), 4u);
  EXPECT_TRUE(d.findDanglingImpls().empty());
  EXPECT_NO_THROW(d.checkInvariants());
}

TEST(StaticRegistrationTest, CallsReachTheStaticKernels) {
  auto& d = dispatch::Dispatcher::singleton();
  auto foo = d.findSchemaOrThrow("statictest::foo").typed<int64_t(const Tensor&)>();
  // Autograd kernel (+1) redispatches to the CPU kernel (+1000).
  EXPECT_EQ(foo.call(ts::cpuTensor(5)), 1006);
  {
    dispatch::AutoDispatchBelowAutograd below;
    EXPECT_EQ(foo.call(ts::cpuTensor(5)), 1005);
  }
  auto bar = d.findSchemaOrThrow("statictest::bar").typed<int64_t(const Tensor&, int64_t)>();
  // No autograd kernel for bar and no Autograd fallback: below autograd it works.
  EXPECT_THROW(bar.call(ts::cpuTensor(1), 2), dispatch::NotImplementedError);
  {
    dispatch::AutoDispatchBelowAutograd below;
    EXPECT_EQ(bar.call(ts::cpuTensor(1), 2), 3);
  }
  auto composite = d.findSchemaOrThrow("statictest::composite").typed<int64_t(const Tensor&)>();
  EXPECT_EQ(composite.call(ts::cpuTensor(21)), 42);
  EXPECT_TRUE(d.findSchemaOrThrow("statictest::composite")
                  .hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));
}

TEST(StaticRegistrationTest, CatchAllBlockRegistersACatchAll) {
  auto& d = dispatch::Dispatcher::singleton();
  const auto baz = d.findSchemaOrThrow("statictest::baz");
  EXPECT_TRUE(baz.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));
  EXPECT_EQ(baz.typed<int64_t(const Tensor&)>().call(ts::cpuTensor(1)), 8);
}

TEST(StaticRegistrationTest, FallbacksOfTheStaticBlocks) {
  auto& d = dispatch::Dispatcher::singleton();
  EXPECT_TRUE(d.hasBackendFallbackForDispatchKey(DispatchKey::ADInplaceOrView));
  EXPECT_TRUE(d.hasBackendFallbackForDispatchKey(DispatchKey::BackendSelect));
  // The default flavour (DISPATCH_FLAVOUR) keeps those three or skips what it has no slot for.
  const bool named = ts::hasSlot<dispatch::Layout>("Named");
  EXPECT_EQ(d.hasBackendFallbackForDispatchKey(DispatchKey::Named), named);
  EXPECT_EQ(d.dumpFallbacks(), std::string("BackendSelect: fallthrough static_bs_ft\n") +
                                   (named ? "Named: fallthrough static_named_ft\n" : "") +
                                   "ADInplaceOrView: fallthrough static_adinplace_ft\n");
}

TEST(StaticRegistrationTest, TheNamespaceIsTakenByTheStaticLibrary) {
  auto& d = dispatch::Dispatcher::singleton();
  const std::string message = ts::messageOf<dispatch::RegistrationError>([&] {
    dispatch::Library again(dispatch::Library::Kind::DEF, "statictest", std::nullopt, d);
  });
  EXPECT_NE(message.find("statictest"), std::string::npos) << message;
  EXPECT_NE(message.find("static_registration_test.cpp"), std::string::npos) << message;
  // Fragments may still add to it, and are undone when they go away.
  {
    dispatch::Library frag(dispatch::Library::Kind::FRAGMENT, "statictest", std::nullopt, d);
    frag.def("late(Tensor self) -> int");
    EXPECT_EQ(d.numOperators(), 5u);
  }
  EXPECT_EQ(d.numOperators(), 4u);
  EXPECT_NO_THROW(d.checkInvariants());
}

}  // namespace
