// Where c10 (PyTorch 1.13.1) defines an error text or a registration behaviour, we match it
// (issue 19). Messages are compared whole: c10's layout and words, our type names and debug
// strings. The deliberate differences are listed in docs/c10-differences.md.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using test_support::cpuTensor;
using test_support::messageOf;

constexpr const char* kInferredHeader =
    "Inferred operator schema for a C++ kernel function doesn't match the expected function "
    "schema.\n";

template <class Sig>
std::string signatureName() {
  return CppSignature::make<Sig>().name();
}

class C10CompatTest : public ::testing::Test {
 protected:
  Library defBlock() { return Library(Library::Kind::DEF, "c10t", std::nullopt, d, "defs.cpp", 7); }
  Library implBlock(std::optional<DispatchKey> key) {
    return Library(Library::Kind::IMPL, "c10t", key, d, "impls.cpp", 9);
  }
  // Registers `schema` and then `kernel` (or the other way round) and returns the message of the
  // SchemaError the second registration throws. The block that failed registered nothing.
  template <class F>
  std::string schemaMismatch(bool def_first, const char* schema, std::optional<DispatchKey> key,
                             F kernel) {
    Dispatcher fresh;
    Library defs(Library::Kind::DEF, "c10t", std::nullopt, fresh, "defs.cpp", 7);
    Library impls(Library::Kind::IMPL, "c10t", key, fresh, "impls.cpp", 9);
    auto impl = [&] { impls.impl("op", CppFunction(kernel).withDebug("the_kernel")); };
    if (def_first) {
      defs.def(schema);
      return messageOf<SchemaError>(impl);
    }
    impl();
    return messageOf<SchemaError>([&] { defs.def(schema); });
  }

  Dispatcher d;
  std::vector<Library> fallthroughs_ = test_support::usualFallthroughs(d);
};

// Issue 19.1: the same registrations give the same error text in either order. c10's text, plus
// the key the kernel is stored under (a catch-all is stored under CompositeImplicitAutograd).
TEST_F(C10CompatTest, SchemaMismatchMessageIsTheSameInBothRegistrationOrders) {
  const auto two_args = [](const Tensor&, int64_t) -> int64_t { return 0; };
  for (std::optional<DispatchKey> key : {std::optional<DispatchKey>(),
                                         std::optional<DispatchKey>(DispatchKey::CPU)}) {
    const std::string key_name = key ? "CPU" : "CompositeImplicitAutograd";
    SCOPED_TRACE(key_name);
    const std::string def_then_impl =
        schemaMismatch(true, "op(Tensor self) -> int", key, two_args);
    const std::string impl_then_def =
        schemaMismatch(false, "op(Tensor self) -> int", key, two_args);
    EXPECT_EQ(def_then_impl, impl_then_def);
    EXPECT_EQ(def_then_impl, std::string(kInferredHeader) +
                                 "  operator: c10t::op\n"
                                 "  expected schema: c10t::op(Tensor self) -> int\n"
                                 "    registered at defs.cpp:7\n"
                                 "  inferred schema: (Tensor _0, int _1) -> int\n"
                                 "    the_kernel (dispatch key " +
                                 key_name +
                                 ")\n"
                                 "  reason: The number of arguments is different. 1 vs 2.");
  }
}

// Issue 19.2: c10's findSchemaDifferences reads (def, inferred): the def's count or type comes
// first. Only the argument-count line ends with a full stop.
TEST_F(C10CompatTest, SchemaMismatchReasonPutsTheDefFirst) {
  struct Case {
    const char* schema;
    std::string reason;
  };
  const auto kernel = [](const Tensor&, int64_t) -> int64_t { return 0; };  // (Tensor, int) -> int
  const Case cases[] = {
      {"op(Tensor self) -> int", "The number of arguments is different. 1 vs 2."},
      {"op(Tensor self, int x, int y) -> int", "The number of arguments is different. 3 vs 2."},
      {"op(Tensor self, int x) -> ()", "The number of returns is different. 0 vs 1"},
      {"op(Tensor self, int x) -> (int, int)", "The number of returns is different. 2 vs 1"},
      {"op(Tensor self, float x) -> int", "Type mismatch in argument 2: float vs int"},
      {"op(Tensor? self, int x) -> int", "Type mismatch in argument 1: Tensor? vs Tensor"},
      {"op(Tensor self, int x) -> Tensor", "Type mismatch in return 1: Tensor vs int"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    for (bool def_first : {true, false}) {
      const std::string message = schemaMismatch(def_first, c.schema, DispatchKey::CPU, kernel);
      const std::string reason_line = "\n  reason: " + c.reason;
      ASSERT_GE(message.size(), reason_line.size()) << message;
      EXPECT_EQ(message.substr(message.size() - reason_line.size()), reason_line) << message;
    }
  }
}

// c10's reportSignatureError text for typed<Accessed>() on an operator whose first typed kernel
// was `Correct`. `op` is "schema\n    its debug" or "name\n    unknown debug info".
template <class Correct, class Accessed>
std::string wrongTypedSignature(const std::string& op, const std::string& kernel_debug) {
  return "\nTried to access or call an operator with a wrong signature.\n  operator: " + op +
         "\n  correct signature:  " + signatureName<Correct>() + "\n    " + kernel_debug +
         "\n  accessed/called as: " + signatureName<Accessed>() +
         "\nThis likely happened in a call to OperatorHandle::typed<Return (Args...)>(). Please "
         "make sure that the function signature matches the signature in the operator "
         "registration call.";
}

// c10's "Mismatch in kernel C++ signatures" text; `op` as above, with "no debug info".
template <class First, class Second>
std::string kernelSignatureMismatch(const std::string& op, const std::string& first_key,
                                    const std::string& first_debug, const std::string& second_key,
                                    const std::string& second_debug) {
  return "\nMismatch in kernel C++ signatures\n  operator: " + op + "\n  kernel 1: " +
         signatureName<First>() + "\n    dispatch key: " + first_key + "\n    " + first_debug +
         "\n  kernel 2: " + signatureName<Second>() + "\n    dispatch key: " + second_key +
         "\n    " + second_debug + "\n";
}

// Issue 19.3: both signature errors name the operator's schema and where it was defined, as c10
// does, and fall back to the name when there is no schema.
TEST_F(C10CompatTest, WrongSignatureErrorsNameTheSchema) {
  using Good = int64_t(const Tensor&);
  using Bad = double(const Tensor&);
  const std::string op_with_schema = "c10t::op(Tensor self) -> int\n    registered at defs.cpp:7";
  Library defs = defBlock();
  defs.def("op(Tensor self) -> int");
  Library cpu = implBlock(DispatchKey::CPU);
  cpu.impl("op", CppFunction([](const Tensor&) -> int64_t { return 1; }).withDebug("op_cpu"));
  EXPECT_EQ(
      messageOf<SignatureMismatchError>([&] { d.findSchemaOrThrow("c10t::op").typed<Bad>(); }),
      (wrongTypedSignature<Good, Bad>(op_with_schema, "op_cpu")));
  Library catch_all = implBlock(std::nullopt);
  EXPECT_EQ(messageOf<SignatureMismatchError>([&] {
              catch_all.impl("op", CppFunction([](const Tensor&) -> double { return 0; })
                                       .withDebug("bad"));
            }),
            (kernelSignatureMismatch<Good, Bad>(op_with_schema, "CPU", "op_cpu", "(catch all)",
                                                "bad")));

  // Without a schema the operator is named, and the debug line says there is none.
  Library dangling = implBlock(std::nullopt);
  dangling.impl("dangling",
                CppFunction([](const Tensor&) -> int64_t { return 1; }).withDebug("k1"));
  EXPECT_EQ(messageOf<SignatureMismatchError>(
                [&] { d.findOp(OperatorName{"c10t::dangling", ""})->typed<Bad>(); }),
            (wrongTypedSignature<Good, Bad>("c10t::dangling\n    unknown debug info", "k1")));
  Library cuda = implBlock(DispatchKey::CUDA);
  EXPECT_EQ(messageOf<SignatureMismatchError>([&] {
              cuda.impl("dangling", CppFunction([](const Tensor&) -> double { return 0; })
                                        .withDebug("k2"));
            }),
            (kernelSignatureMismatch<Good, Bad>("c10t::dangling\n    no debug info",
                                                "(catch all)", "k1", "CUDA", "k2")));
}

// Issue 19.4: "default" and names starting with "__" are not overload names (c10's schema parser).
TEST_F(C10CompatTest, DefaultAndDunderOverloadNamesAreRejected) {
  for (const char* overload : {"default", "__name__", "__", "__x"}) {
    SCOPED_TRACE(overload);
    const std::string expected =
        std::string(overload) + " is not a legal overload name for aten operators";
    const std::string qualified = std::string("c10t::op.") + overload;
    EXPECT_EQ(
        messageOf<SchemaError>([&] { (void)parseSchema(qualified + "(Tensor self) -> int"); }),
              expected);
    EXPECT_EQ(messageOf<SchemaError>([&] { (void)parseOperatorName(qualified); }), expected);
    Library defs = defBlock();
    EXPECT_EQ(messageOf<SchemaError>(
                  [&] { defs.def(std::string("op.") + overload + "(Tensor self) -> int"); }),
              expected);
    Library cpu = implBlock(DispatchKey::CPU);
    EXPECT_EQ(messageOf<SchemaError>([&] {
                cpu.impl(std::string("op.") + overload,
                         CppFunction([](const Tensor&) -> int64_t { return 0; }));
              }),
              expected);
    EXPECT_EQ(d.numOperators(), 0u);
  }
  // Only those: the rule is about the whole name and its prefix.
  for (const char* overload : {"defaults", "Default", "_x", "x__", "x__y", "out"}) {
    SCOPED_TRACE(overload);
    EXPECT_EQ(parseOperatorName(std::string("c10t::op.") + overload).overload_name, overload);
  }
}

// Issue 19.5: CatchAll (the same value as Undefined) as a block's key means "no key", as in c10's
// Library constructor: impl() registers a catch-all instead of throwing InvalidKeyError.
TEST_F(C10CompatTest, CatchAllBlockKeyRegistersACatchAll) {
  Library defs = defBlock();
  defs.def("op(Tensor self) -> int");
  Library catch_all = implBlock(DispatchKey::CatchAll);
  catch_all.impl("op", CppFunction([](const Tensor& t) -> int64_t { return t.id() + 40; })
                           .withDebug("via_catch_all"));
  const OperatorHandle op = d.findSchemaOrThrow("c10t::op");
  EXPECT_EQ(op.typed<int64_t(const Tensor&)>().call(cpuTensor(2)), 42);
  EXPECT_TRUE(op.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));
  EXPECT_NE(op.dumpState().find("CompositeImplicitAutograd[alias]: via_catch_all"),
            std::string::npos)
      << op.dumpState();
  catch_all.reset();
  EXPECT_FALSE(op.hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd));

  // A DEF block may name CatchAll too: it is no key at all.
  Dispatcher other;
  Library defs_with_catch_all(Library::Kind::DEF, "c10t", DispatchKey::CatchAll, other);
  defs_with_catch_all.def("op(Tensor self) -> int",
                          [](const Tensor& t) -> int64_t { return t.id(); });
  EXPECT_EQ(other.findSchemaOrThrow("c10t::op").typed<int64_t(const Tensor&)>().call(cpuTensor(5)),
            5);
}

// c10's Library constructor: DEF and FRAGMENT blocks define operators for one namespace, so the
// wildcard "_" (for fallbacks) is refused there, before anything is registered.
TEST_F(C10CompatTest, WildcardNamespaceIsOnlyForImplBlocks) {
  const std::string before = test_support::snapshot(d);
  EXPECT_EQ(messageOf<RegistrationError>(
                [&] { Library lib(Library::Kind::DEF, "_", std::nullopt, d, "defs.cpp", 3); }),
            "DISPATCH_LIBRARY: cannot define DISPATCH_LIBRARY with the wildcard namespace _ "
            "(every DISPATCH_LIBRARY defines operators for a distinct namespace!) Did you mean to "
            "use DISPATCH_LIBRARY_IMPL instead?  (Error occurred while processing DISPATCH_LIBRARY "
            "block at defs.cpp:3)");
  EXPECT_EQ(messageOf<RegistrationError>(
                [&] { Library lib(Library::Kind::FRAGMENT, "_", std::nullopt, d, "frag.cpp", 4); }),
            "DISPATCH_LIBRARY_FRAGMENT: cannot define DISPATCH_LIBRARY_FRAGMENT with the wildcard "
            "namespace _ (every DISPATCH_LIBRARY_FRAGMENT defines operators for a distinct "
            "namespace!) Did you mean to use DISPATCH_LIBRARY_IMPL instead?  (Error occurred "
            "while processing DISPATCH_LIBRARY_FRAGMENT block at frag.cpp:4)");
  // Without a file the context is left out.
  EXPECT_EQ(messageOf<RegistrationError>(
                [&] { Library lib(Library::Kind::DEF, "_", std::nullopt, d); }),
            "DISPATCH_LIBRARY: cannot define DISPATCH_LIBRARY with the wildcard namespace _ "
            "(every DISPATCH_LIBRARY defines operators for a distinct namespace!) Did you mean to "
            "use DISPATCH_LIBRARY_IMPL instead?");
  EXPECT_EQ(test_support::snapshot(d), before);
}

// Decision (docs/c10-differences.md): scalars by value and by const reference are one C++
// signature here, because every unboxed call goes through the canonical calling convention. c10
// rejects the second kernel and the second typed() below.
TEST_F(C10CompatTest, ScalarByValueAndByConstReferenceAreOneSignature) {
  Library defs = defBlock();
  defs.def("op(Tensor self, int x) -> int");
  Library cpu = implBlock(DispatchKey::CPU);
  cpu.impl("op", [](const Tensor& t, const int64_t& x) -> int64_t { return t.id() + x; });
  Library autograd = implBlock(DispatchKey::AutogradCPU);
  autograd.impl("op", [](const Tensor& t, int64_t x) -> int64_t { return t.id() * x; });
  const OperatorHandle op = d.findSchemaOrThrow("c10t::op");
  EXPECT_EQ(op.typed<int64_t(const Tensor&, int64_t)>().call(cpuTensor(3), 4), 12);
  EXPECT_EQ(op.typed<int64_t(Tensor, const int64_t&)>().call(cpuTensor(3), 4), 12);
  AutoDispatchBelowAutograd below;
  EXPECT_EQ(op.typed<int64_t(const Tensor&, const int64_t&)>().call(cpuTensor(3), 4), 7);
}

// c10's Library asserts that DEF and FRAGMENT blocks have no key; CatchAll is no key.
TEST_F(C10CompatTest, DefAndFragmentBlocksHaveNoKey) {
  const std::string before = test_support::snapshot(d);
  EXPECT_EQ(messageOf<RegistrationError>(
                [&] { Library lib(Library::Kind::DEF, "c10t", DispatchKey::CPU, d); }),
            "a DISPATCH_LIBRARY block for c10t cannot have a dispatch key (CPU)");
  EXPECT_EQ(messageOf<RegistrationError>(
                [&] { Library lib(Library::Kind::FRAGMENT, "c10t", DispatchKey::Autograd, d); }),
            "a DISPATCH_LIBRARY_FRAGMENT block for c10t cannot have a dispatch key (Autograd)");
  EXPECT_EQ(test_support::snapshot(d), before);
  // The refused DEF block did not take the namespace.
  EXPECT_NO_THROW(defBlock());
  Library fragment(Library::Kind::FRAGMENT, "c10t", DispatchKey::CatchAll, d);
  fragment.def("op(Tensor self) -> int").impl("op", [](const Tensor&) -> int64_t { return 1; });
  EXPECT_TRUE(d.findSchemaOrThrow("c10t::op").hasKernelForDispatchKey(
      DispatchKey::CompositeImplicitAutograd));
}

}  // namespace
}  // namespace dispatch
