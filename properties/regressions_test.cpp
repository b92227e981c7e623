// Regression tests for bugs the property suite found (properties/regressions.md has the
// counterexamples as RapidCheck printed them). Each test runs the shrunk counterexample against
// the real dispatcher in a death-test child, so that a crash or an endless recursion of the
// library fails this test instead of killing the binary, and pins the exact outcome (result or
// error kind) the model gives.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "dispatch/flavours.h"
#include "dispatch/startup_fallbacks.h"

namespace dispatch::props {
namespace {

using Signature = std::string(const Tensor&, const std::optional<Tensor>&, int64_t);

// regressions.md R1. Counterexample (Stateful.FullDispatcherAgreesWithModel, 47 shrinks):
//   1. h1 = impl fz::op0 @ BackendSelect <- typed kernel
//   2. h2 = registerStartupFallbacks()
//   3. fz::op0.call(self={PythonDispatcher}, other=None)
// The start-up fallback of PythonDispatcher passes the call on with ks & FULL_AFTER(key); in
// 1.13 FULL_AFTER always contains PythonDispatcher, so it redispatches to itself forever.
template <class L>
void callWithOnlyPythonDispatcher() {
  BasicDispatcher<L> dispatcher;
  auto fallbacks = registerStartupFallbacks(dispatcher);
  BasicLibrary<L> impls(BasicLibrary<L>::Kind::IMPL, "fz", DispatchKey::BackendSelect, dispatcher);
  impls.impl("op0", [](const Tensor&, const std::optional<Tensor>&, int64_t) {
    return std::string("k0");
  });
  const auto op = dispatcher.findOp(OperatorName{"fz::op0", ""});
  if (!op) std::exit(3);
  std::string result;
  try {
    result = op->template typed<Signature>().call(
        Tensor(DispatchKeySet(DispatchKey::PythonDispatcher)), std::nullopt, 7);
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(4);
  }
  std::fprintf(stderr, "returned: %s\n", result.c_str());
  // The pass-through drops PythonDispatcher and the call goes on to the BackendSelect kernel
  // (BackendSelect is in every thread's default include set), as the model says.
  std::exit(result == "k0" ? 0 : 5);
}

TEST(RegressionDeathTest, PythonDispatcherStartupFallbackPassesTheCallOnFull) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(callWithOnlyPythonDispatcher<FullLayout>(), ::testing::ExitedWithCode(0),
              "returned: k0");
}

}  // namespace
}  // namespace dispatch::props
