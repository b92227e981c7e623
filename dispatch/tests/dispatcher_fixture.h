#pragma once
// The fixture the dispatcher unit tests share: a dispatcher of layout L with the operators
// test::op(Tensor self) -> int and test::add(Tensor self, int x) -> int defined, typed over both
// flavours.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch::test_support {

template <class L>
class DispatcherTest : public ::testing::Test {
 protected:
  using Dispatcher = BasicDispatcher<L>;
  using Library = BasicLibrary<L>;
  using CppFunction = BasicCppFunction<L>;
  using KernelFunction = BasicKernelFunction<L>;
  using OperatorHandle = BasicOperatorHandle<L>;
  template <class Sig>
  using Typed = BasicTypedOperatorHandle<L, Sig>;

  OperatorHandle op(const std::string& name = "test::op") const {
    return d.findSchemaOrThrow(name);
  }
  Typed<IntSig> typedOp(const std::string& name = "test::op") const {
    return op(name).template typed<IntSig>();
  }
  Library implBlock(DispatchKey k, const std::string& ns = "test") {
    return Library(Library::Kind::IMPL, ns, k, d);
  }
  Library fallbackBlock(DispatchKey k) { return Library(Library::Kind::IMPL, "_", k, d); }

  Dispatcher d;
  Library defs_ = [this] {
    Library lib(Library::Kind::DEF, "test", std::nullopt, d, "defs.cpp", 1);
    lib.def("op(Tensor self) -> int");
    lib.def("add(Tensor self, int x) -> int");
    return lib;
  }();
};
TYPED_TEST_SUITE(DispatcherTest, TestedLayouts, LayoutName);

}  // namespace dispatch::test_support
