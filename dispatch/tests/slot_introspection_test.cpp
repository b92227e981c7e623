// The structural views of the tables: Dispatcher::backendFallback(k) says what dumpFallbacks
// prints for k (numBackendFallbacks how many lines it prints), and OperatorEntry::liveTag(k) the tag dumpDispatchTable prints for k's slot.
// Harnesses compare through them and print the dumps only to report a difference.

#include <gtest/gtest.h>

#include <string>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

template <class L>
class SlotIntrospectionTest : public ::testing::Test {
 protected:
  BasicDispatcher<L> d;
};
TYPED_TEST_SUITE(SlotIntrospectionTest, TestedLayouts, LayoutName);

TYPED_TEST(SlotIntrospectionTest, BackendFallbackIsWhatDumpFallbacksPrints) {
  using KernelFunction = BasicKernelFunction<TypeParam>;
  auto& dispatcher = this->d;
  for (const SpecKey& key : fullRuntimeKeys()) EXPECT_EQ(dispatcher.backendFallback(keyOfValue(key.value)), nullptr);
  EXPECT_EQ(dispatcher.numBackendFallbacks(), 0u);
  auto fb = dispatcher.registerFallback(DK::CPU, boxedInt<TypeParam>(1), "cpu_fb");
  auto ft = dispatcher.registerFallback(DK::AutogradCPU, KernelFunction::makeFallthrough(), "autograd_ft");
  const auto* cpu = dispatcher.backendFallback(DK::CPU);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->debug, "cpu_fb");
  EXPECT_FALSE(cpu->kernel.isFallthrough());
  const auto* autograd = dispatcher.backendFallback(DK::AutogradCPU);
  ASSERT_NE(autograd, nullptr);
  EXPECT_TRUE(autograd->kernel.isFallthrough());
  EXPECT_EQ(dispatcher.dumpFallbacks(), "CPU: cpu_fb\nAutogradCPU: fallthrough autograd_ft\n");
  EXPECT_EQ(dispatcher.numBackendFallbacks(), 2u);
  // Keys that cannot hold a fallback answer nullptr, never another slot's kernel.
  EXPECT_EQ(dispatcher.backendFallback(DK::Autograd), nullptr);
  EXPECT_EQ(dispatcher.backendFallback(DK::Undefined), nullptr);
  EXPECT_EQ(dispatcher.backendFallback(DK::Dense), nullptr);
  EXPECT_EQ(dispatcher.backendFallback(static_cast<DispatchKey>(200)), nullptr);
  fb.release();
  EXPECT_EQ(dispatcher.backendFallback(DK::CPU), nullptr);
  EXPECT_EQ(dispatcher.dumpFallbacks(), "AutogradCPU: fallthrough autograd_ft\n");
  EXPECT_EQ(dispatcher.numBackendFallbacks(), 1u);
}

TYPED_TEST(SlotIntrospectionTest, LiveTagIsWhatDumpDispatchTablePrints) {
  auto& dispatcher = this->d;
  auto def = dispatcher.registerDef(parseSchema("test::op(Tensor self) -> int"), "def_op");
  auto cpu = dispatcher.registerImpl(OperatorName{"test::op", ""}, DK::CPU, boxedInt<TypeParam>(1), std::nullopt,
                            std::nullopt, "op_cpu");
  auto math = dispatcher.registerImpl(OperatorName{"test::op", ""}, DK::CompositeImplicitAutograd, boxedInt<TypeParam>(2),
                             std::nullopt, std::nullopt, "op_math");
  const auto handle = *dispatcher.findOp(OperatorName{"test::op", ""});
  const auto& entry = handle.entry();
  const std::string dump = handle.dumpDispatchTable();
  // Every printed line's tag is liveTag of its key.
  for (const SpecKey& key : fullRuntimeKeys()) {
    const DispatchKey k = keyOfValue(key.value);
    const std::string printed = entryOf(dump, key.name);
    const std::optional<EntryTag> tag = entry.liveTag(k);
    if (TypeParam::indexOf(k) < 0) {
      EXPECT_FALSE(tag.has_value()) << key.name;
      continue;
    }
    ASSERT_TRUE(tag.has_value()) << key.name;
    if (printed.empty()) continue;  // missing slots print no line
    EXPECT_NE(printed.find("[" + std::string(toString(*tag)) + "]"), std::string::npos)
        << key.name << ": " << printed;
  }
  EXPECT_EQ(entry.liveTag(DK::CPU), EntryTag::Kernel);
  EXPECT_EQ(entry.liveTag(DK::Autograd), std::nullopt) << "an alias key has no slot";
  EXPECT_EQ(entry.liveTag(static_cast<DispatchKey>(200)), std::nullopt);
  EXPECT_TRUE(entry.liveTag(DK::Undefined).has_value()) << "Undefined has a slot";
}

}  // namespace
}  // namespace dispatch
