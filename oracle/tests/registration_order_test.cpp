// The other order of the order-independence oracle: registrations on one list of the
// dispatcher's state keep their order, the lists come in reverse order of their first one.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "oracle/runner/registration_order.h"

namespace dispatch::oracle {
namespace {

Action impl(int op, std::optional<DispatchKey> key) { return {ActionKind::ImplTyped, op, key, 0, 0, std::nullopt}; }
Action fallbackAt(DispatchKey key) { return {ActionKind::FallbackLibrary, 0, key, 0, 0, std::nullopt}; }
const Action kDef0{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};

TEST(RegistrationOrder, NamesTheListARegistrationGoesTo) {
  EXPECT_EQ(registrationList(kDef0), "def fz::op0");
  EXPECT_EQ(registrationList(impl(1, DispatchKey::CPU)), "impl fz::op1 at CPU");
  EXPECT_EQ(registrationList(impl(1, std::nullopt)), "impl fz::op1 at CompositeImplicitAutograd")
      << "a catch-all kernel is a CompositeImplicitAutograd kernel";
  EXPECT_EQ(registrationList(fallbackAt(DispatchKey::AutogradCPU)), "fallback at AutogradCPU");
  const Action direct{ActionKind::FallthroughDirect, 3, DispatchKey::AutogradCPU, 0, 0, std::nullopt};
  EXPECT_EQ(registrationList(direct), "fallback at AutogradCPU") << "one key's fallbacks are one list";
  EXPECT_EQ(registrationList(Action::namedKey(ActionKind::ImplBoxed, 2, "MTIA")), "impl fz::op2 at MTIA");
  EXPECT_EQ(registrationList(Action::namedKey(ActionKind::FallthroughLibrary, 0, "AutogradMTIA")),
            "fallback at AutogradMTIA");
  EXPECT_THROW(registrationList({ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt}), std::invalid_argument);
}

TEST(RegistrationOrder, ReversesTheListsAndKeepsTheOrderInsideEach) {
  // 0 def, 1 CPU k1, 2 CUDA, 3 CPU k2 (newest at CPU: must stay after 1), 4 fallback.
  const std::vector<Action> made = {kDef0, impl(0, DispatchKey::CPU), impl(0, DispatchKey::CUDA),
                                    impl(0, DispatchKey::CPU), fallbackAt(DispatchKey::AutogradCPU)};
  EXPECT_EQ(anotherOrder(made), (std::vector<size_t>{4, 2, 1, 3, 0}));
}

TEST(RegistrationOrder, OneListKeepsItsOrder) {
  const std::vector<Action> made = {impl(2, std::nullopt), impl(2, DispatchKey::CompositeImplicitAutograd),
                                    impl(2, std::nullopt)};
  EXPECT_EQ(anotherOrder(made), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(anotherOrder({}).empty());
}

}  // namespace
}  // namespace dispatch::oracle
