// RegistrationHandle: one undo per registration, exactly once; the description is built only
// for release()'s error, and says exactly what each kind of registration was.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

// Counts what the handle asks of its registration.
struct CountingRegistration final : RegistrationHandle::Registration {
  int undone = 0;
  mutable int described = 0;
  void undo() override { ++undone; }
  std::string describe() const override {
    ++described;
    return "counted registration";
  }
};

TEST(RegistrationHandleTest, UndoesOnceAndDescribesOnlyForTheError) {
  auto registration = std::make_shared<CountingRegistration>();
  {
    RegistrationHandle first(registration);
    EXPECT_TRUE(first.active());
    RegistrationHandle second = std::move(first);
    EXPECT_FALSE(first.active());
    EXPECT_TRUE(second.active());
    EXPECT_EQ(registration->undone, 0);
    const std::string moved_from = messageOf<RegistrationError>([&] { first.release(); });
    EXPECT_EQ(moved_from,
              "registration handle released twice (or moved from, or never registered): counted "
              "registration");
    EXPECT_EQ(registration->undone, 0) << "releasing a moved-from handle undoes nothing";
    second.release();
    EXPECT_EQ(registration->undone, 1);
    EXPECT_FALSE(second.active());
    EXPECT_THROW(second.release(), RegistrationError);
  }
  EXPECT_EQ(registration->undone, 1) << "dropping released handles undoes nothing more";
  EXPECT_EQ(registration->described, 2) << "described for the two errors only";
}

TEST(RegistrationHandleTest, TryReleaseAnswersWhereReleaseThrows) {
  auto registration = std::make_shared<CountingRegistration>();
  RegistrationHandle first(registration);
  RegistrationHandle second = std::move(first);
  EXPECT_FALSE(first.tryRelease()) << "a moved-from handle has nothing to undo";
  EXPECT_EQ(registration->undone, 0);
  EXPECT_TRUE(second.tryRelease());
  EXPECT_EQ(registration->undone, 1);
  EXPECT_FALSE(second.active());
  EXPECT_FALSE(second.tryRelease()) << "the second release is refused";
  EXPECT_THROW(second.release(), RegistrationError) << "and release() still throws for it";
  EXPECT_EQ(registration->undone, 1);
  RegistrationHandle never;
  EXPECT_FALSE(never.tryRelease());
  EXPECT_EQ(registration->described, 1) << "described for release()'s error only";
}

TEST(RegistrationHandleTest, DroppingAnActiveHandleUndoesIt) {
  auto registration = std::make_shared<CountingRegistration>();
  { RegistrationHandle handle(registration); }
  EXPECT_EQ(registration->undone, 1);
  EXPECT_EQ(registration->described, 0);

  RegistrationHandle target(registration);
  target = RegistrationHandle(std::make_shared<CountingRegistration>());
  EXPECT_EQ(registration->undone, 2) << "assigning over an active handle undoes its registration";
}

TEST(RegistrationHandleTest, FunctionHandles) {
  int undone = 0;
  RegistrationHandle handle([&] { ++undone; }, "my registration");
  handle.release();
  EXPECT_EQ(undone, 1);
  EXPECT_EQ(messageOf<RegistrationError>([&] { handle.release(); }),
            "registration handle released twice (or moved from, or never registered): my "
            "registration");
  RegistrationHandle empty(std::function<void()>{}, "nothing");
  EXPECT_FALSE(empty.active());
  RegistrationHandle unnamed([] {});
  unnamed.release();
  EXPECT_EQ(messageOf<RegistrationError>([&] { unnamed.release(); }),
            "registration handle released twice (or moved from, or never registered)");
}

// The description of every kind of dispatcher registration, built after the fact.
TEST(RegistrationHandleTest, DispatcherRegistrationsDescribeThemselves) {
  BasicDispatcher<FullLayout> d;
  auto twice = [](RegistrationHandle handle) {
    handle.release();
    return messageOf<RegistrationError>([&] { handle.release(); });
  };
  const std::string prefix =
      "registration handle released twice (or moved from, or never registered): ";
  EXPECT_EQ(twice(d.registerLibrary("ns", "here")), prefix + "library for namespace ns");
  EXPECT_EQ(twice(d.registerDef(parseSchema("ns::op.overload(Tensor self) -> int"), "def")),
            prefix + "def of 'ns::op.overload'");
  EXPECT_EQ(twice(implInt<FullLayout>(d, "ns::op", DispatchKey::AutogradCPU, "k", 1)),
            prefix + "impl of 'ns::op' for dispatch key AutogradCPU");
  EXPECT_EQ(twice(implInt<FullLayout>(d, "ns::op", std::nullopt, "k", 1)),
            prefix + "impl of 'ns::op' for catch-all");
  EXPECT_EQ(twice(d.registerName(parseOperatorName("ns::named"))),
            prefix + "name registration of 'ns::named'");
  EXPECT_EQ(twice(d.registerFallback(DispatchKey::SparseCUDA, boxedInt<FullLayout>(2), "fb")),
            prefix + "backend fallback for dispatch key SparseCUDA");
  EXPECT_EQ(d.numOperators(), 0u);
  EXPECT_EQ(d.dumpFallbacks(), "");
}

}  // namespace
}  // namespace dispatch
