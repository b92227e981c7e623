// The oracle's check of what our diagnostics report of a call (oracle/ours/call_witness.h), and
// the seam's rules that use it: a right report passes, each wrong one is named, and a call whose
// report is wrong, or whose missing kernel's error does not name the key, is a disagreement.

#include "oracle/ours/call_witness.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>

#include "dispatch/dispatch.h"
#include "dispatch/startup_fallbacks.h"
#include "oracle/ours/our_dispatcher_runner.h"
#include "oracle/runner/seam_checks.h"

namespace dispatch::oracle {
namespace {

using Sig = int64_t(const Tensor&);
using Layout = Dispatcher::Layout;

// test::op with a CPU kernel named cpu_kernel (and the start-up fallbacks) that remembers the key set it was given.
struct OneKernel {
  Dispatcher d;
  std::vector<Library> startup = registerStartupFallbacks(d);  // fallthroughs for the TLS keys
  std::optional<Library> def, cpu;
  uint64_t given = 0;
  Tensor t{DispatchKeySet(DispatchKey::CPU), 1};  // no autograd key: only the CPU kernel runs

  OneKernel() {
    def.emplace(Library::Kind::DEF, "test", std::nullopt, d);
    def->def("op(Tensor self) -> int");
    cpu.emplace(Library::Kind::IMPL, "test", DispatchKey::CPU, d);
    cpu->impl("op", Library::CppFunction([this](DispatchKeySet ks, const Tensor&) -> int64_t {
                      given = ks.raw_repr();
                      return 1;
                    }).withDebug("cpu_kernel"));
  }
  void call() { d.findSchemaOrThrow("test::op").typed<Sig>().call(t); }
};

CallWitness witness() {
  return CallWitness(std::string(Layout::kName), [](DispatchKeySet ks) { return Layout::indexOf(ks); });
}

// OneKernel's call, watched by `w`.
struct WatchedCall : OneKernel {
  CallWitness w = witness();
  WatchedCall() {
    const CallWitness::Watch watch(w);
    call();
  }
};

#define SKIP_IF_COMPILED_OUT() \
  if (!kDiagnosticsCompiledIn) GTEST_SKIP() << "DISPATCH_DIAGNOSTICS=0: nothing reports calls"

TEST(CallWitness, ARightReportPasses) {
  SKIP_IF_COMPILED_OUT();
  WatchedCall env;
  const CallWitness& w = env.w;
  EXPECT_EQ(w.misreport("test::op", CallKind::Call, "cpu_kernel", env.given), std::nullopt);
  EXPECT_EQ(CallWitness::restingRecorderDiffers(), std::nullopt);
}

TEST(CallWitness, NamesWhatTheObserversReportWrongly) {
  SKIP_IF_COMPILED_OUT();
  WatchedCall env;
  const CallWitness& w = env.w;
  const auto wrong = [&](std::string_view op, CallKind kind, std::string_view kernel, uint64_t keys) {
    return w.misreport(op, kind, kernel, keys).value_or("(nothing)");
  };
  EXPECT_NE(wrong("test::other", CallKind::Call, "cpu_kernel", env.given).find("the outermost call is"),
            std::string::npos);
  EXPECT_NE(wrong("test::op", CallKind::CallBoxed, "cpu_kernel", env.given).find("the outermost call is"),
            std::string::npos);
  EXPECT_NE(wrong("test::op", CallKind::Call, "cuda_kernel", env.given).find("ran kernel cpu_kernel"),
            std::string::npos);
  EXPECT_NE(wrong("test::op", CallKind::Call, "cpu_kernel", env.given ^ (uint64_t{1} << 20)).find("ran kernel cpu_kernel"),
            std::string::npos);
}

TEST(CallWitness, ACallNoObserverSawIsMisreported) {
  SKIP_IF_COMPILED_OUT();
  OneKernel env;
  CallWitness w = witness();
  env.call();  // not watched
  const CallWitness::Watch watch(w);
  EXPECT_EQ(w.misreport("test::op", CallKind::Call, "cpu_kernel", env.given).value_or(""),
            "call observers: saw no call of test::op");
}

TEST(CallWitness, OnlyTheWatchingWitnessRecords) {
  SKIP_IF_COMPILED_OUT();
  CallWitness idle = witness();  // its observer is on during the call, but it watches nothing
  WatchedCall env;
  EXPECT_EQ(env.w.misreport("test::op", CallKind::Call, "cpu_kernel", env.given), std::nullopt);
  const CallWitness::Watch watch(idle);
  EXPECT_NE(idle.misreport("test::op", CallKind::Call, "cpu_kernel", env.given), std::nullopt);
}

TEST(CallWitness, ARecorderThatLostTheCallIsMisreportedUnlessItIsOff) {
  SKIP_IF_COMPILED_OUT();
  ASSERT_TRUE(flight_recorder::enabled());
  WatchedCall env;
  const CallWitness& w = env.w;
  flight_recorder::clear();
  EXPECT_EQ(w.misreport("test::op", CallKind::Call, "cpu_kernel", env.given).value_or(""),
            "flight recorder: holds 0 events after 1 calls");
  flight_recorder::setEnabled(false);
  EXPECT_EQ(w.misreport("test::op", CallKind::Call, "cpu_kernel", env.given), std::nullopt);
  flight_recorder::setEnabled(true);
}

TEST(CallWitness, TheDumpAgreesWithFormatOnEventsLongerThanALine) {
  SKIP_IF_COMPILED_OUT();
  OneKernel env;
  // The tensor keys of every backend whose keys all have a slot in this flavour.
  DispatchKeySet many;
  for (uint8_t b = 1; b <= static_cast<uint8_t>(BackendComponent::EndOfBackendKeys); ++b) {
    for (TensorKind kind : {TensorKind::Dense, TensorKind::Sparse}) {
      const DispatchKeySet keys = tensorKeySet(kind, static_cast<BackendComponent>(b));
      bool slots = true;
      for (DispatchKey k : keys) slots = slots && Layout::indexOf(k) >= 0;
      if (slots) many = many | keys;
    }
  }
  // A catch-all kernel runs for the highest key of every backend; the call's event lists them all.
  Library catch_all(Library::Kind::FRAGMENT, "test", std::nullopt, env.d);
  catch_all.impl("op", Library::CppFunction([](const Tensor&) -> int64_t { return 2; }).withDebug("any_kernel"));
  env.t = Tensor(many, 2);
  env.call();
  const auto events = flight_recorder::snapshot();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(CallWitness::restingRecorderDiffers(), std::nullopt);
  if (flight_recorder::format(events.back()).size() < 512) {
    GTEST_SKIP() << "the " << Layout::kName << " flavour has too few keys with a slot for an event to reach the "
                 << "512-character line cap, where format() and the dump cut";
  }
}

// The check reuses one file for its dumps: a short dump after a long one must be read alone.
TEST(CallWitness, AShortDumpAfterALongOneIsCheckedAlone) {
  SKIP_IF_COMPILED_OUT();
  OneKernel env;
  flight_recorder::clear();
  for (int i = 0; i < kFlightRecorderCapacity; ++i) env.call();
  EXPECT_EQ(CallWitness::restingRecorderDiffers(), std::nullopt);
  flight_recorder::clear();
  env.call();
  ASSERT_EQ(flight_recorder::snapshot().size(), 1u);
  EXPECT_EQ(CallWitness::restingRecorderDiffers(), std::nullopt);
}

TEST(CallWitness, ARegistrationMustLeaveItsOneEventDone) {
  SKIP_IF_COMPILED_OUT();
  Dispatcher d;
  const uint64_t before = CallWitness::newestEvent();
  const RegistrationHandle def = d.registerDef(parseSchema("test::reg(Tensor self) -> int"), "def test::reg");
  using Kind = flight_recorder::EventKind;
  EXPECT_EQ(CallWitness::registrationMisreported(before, Kind::RegisterDef, "test::reg", DispatchKey::Undefined),
            std::nullopt);
  const auto wrong = [&](uint64_t since, Kind kind, std::string_view op, DispatchKey key) {
    return CallWitness::registrationMisreported(since, kind, op, key).value_or("(nothing)");
  };
  EXPECT_EQ(wrong(CallWitness::newestEvent(), Kind::RegisterDef, "test::reg", DispatchKey::Undefined),
            "flight recorder: 0 new events for the registration register def op=test::reg key=Undefined [done]");
  EXPECT_NE(wrong(before, Kind::RegisterImpl, "test::reg", DispatchKey::Undefined).find("flight recorder: event #"),
            std::string::npos);
  EXPECT_NE(wrong(before, Kind::RegisterDef, "test::other", DispatchKey::Undefined).find("flight recorder: event #"),
            std::string::npos);
  EXPECT_NE(wrong(before, Kind::RegisterDef, "test::reg", DispatchKey::CPU).find("flight recorder: event #"),
            std::string::npos);
}

TEST(CallWitness, AnEventLeftInProgressWithNothingRunningIsWrong) {
  SKIP_IF_COMPILED_OUT();
  flight_recorder::Event unfinished;
  unfinished.kind = flight_recorder::EventKind::RegisterDef;
  std::strcpy(unfinished.op, "test::op");
  detail::recordEvent(unfinished);  // what a registration that never finishes its event leaves
  const auto wrong = CallWitness::restingRecorderDiffers();
  flight_recorder::clear();
  ASSERT_NE(wrong, std::nullopt);
  EXPECT_NE(wrong->find("register def op=test::op"), std::string::npos) << *wrong;
  EXPECT_NE(wrong->find("is still in progress with nothing running"), std::string::npos) << *wrong;
  EXPECT_EQ(CallWitness::restingRecorderDiffers(), std::nullopt);
}

TEST(CallWitness, TheTraceFuzzersCheckTheRecorderAfterEachTrace) {
  SKIP_IF_COMPILED_OUT();
  const std::vector<Action> trace = {Action(ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt)};
  EXPECT_EQ(runTraceOnAllFlavours(trace), std::nullopt);
  flight_recorder::Event unfinished;
  unfinished.kind = flight_recorder::EventKind::RegisterImpl;
  detail::recordEvent(unfinished);
  const auto wrong = runTraceOnAllFlavours(trace);
  flight_recorder::clear();
  ASSERT_NE(wrong, std::nullopt);
  EXPECT_TRUE(wrong->starts_with("after the trace: the flight recorder: event ")) << *wrong;
}

TEST(CallWitness, KnowsTheCallKindOfEveryCallAction) {
  EXPECT_EQ(callKindOf(ActionKind::CallTyped), CallKind::Call);
  EXPECT_EQ(callKindOf(ActionKind::CallBoxed), CallKind::CallBoxed);
  EXPECT_EQ(callKindOf(ActionKind::Redispatch), CallKind::Redispatch);
  EXPECT_EQ(callKindOf(ActionKind::RedispatchBoxed), CallKind::RedispatchBoxed);
  EXPECT_EQ(callKindOf(ActionKind::CallForKey), CallKind::CallBoxedForKey);
  EXPECT_THROW(callKindOf(ActionKind::Def), std::invalid_argument);
}

// --- the seam's rules ---

model::CallOutcome expectedError(model::ErrorKind kind, DispatchKey key) {
  return {std::nullopt, model::Error{kind, "model text", key}};
}

SutOutcome realError(model::ErrorKind kind, std::string message) {
  return {std::nullopt, kind, false, std::move(message)};
}

TEST(SeamChecks, AMissingKernelsErrorMustNameTheOperatorAndTheKey) {
  const auto expected = expectedError(model::ErrorKind::NotImplemented, DispatchKey::CPU);
  EXPECT_EQ(compareCall(expected, realError(model::ErrorKind::NotImplemented,
                                            "Could not run 'ns::op' with arguments from the 'CPU' backend"),
                        "ns::op", true),
            std::nullopt);
  // Words of the no-tensor error for a call that had a CPU tensor: the key is not named.
  EXPECT_NE(compareCall(expected, realError(model::ErrorKind::NotImplemented,
                                            "There were no tensor arguments to this function, but no fallback "
                                            "function is registered for schema ns::op. Available functions are [CPU]"),
                        "ns::op", true),
            std::nullopt);
  EXPECT_NE(compareCall(expected, realError(model::ErrorKind::NotImplemented, "from the 'CPU' backend"), "ns::op", true),
            std::nullopt);
  // A SUT that does not promise to name them (c10's asserts) is held to the kind only.
  EXPECT_EQ(compareCall(expected, realError(model::ErrorKind::NotImplemented, "assert failed"), "ns::op", false),
            std::nullopt);
  // A call with no tensors has no key to name.
  EXPECT_EQ(compareCall(expectedError(model::ErrorKind::NotImplemented, DispatchKey::Undefined),
                        realError(model::ErrorKind::NotImplemented, "no tensor arguments ... schema ns::op"), "ns::op",
                        true),
            std::nullopt);
}

TEST(SeamChecks, ACallWhoseReportIsWrongDisagrees) {
  const model::CallOutcome expected{model::CallSuccess{"k", model::KeySet::fromRaw(0x8001)}, std::nullopt};
  SutOutcome real{kernelResult("k", 0x8001), std::nullopt, false, ""};
  EXPECT_EQ(compareCall(expected, real, "ns::op", true), std::nullopt);
  real.misreported = "call observers: saw no call of ns::op";
  const auto differs = compareCall(expected, real, "ns::op", true);
  ASSERT_NE(differs, std::nullopt);
  EXPECT_NE(differs->find("reports it wrongly: call observers: saw no call"), std::string::npos) << *differs;
}

TEST(SeamChecks, ParsesAKernelResult) {
  const auto parts = parseKernelResult(kernelResult("a@b", 0x1f));
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->kernel, "a@b");
  EXPECT_EQ(parts->keys, 0x1fu);
  EXPECT_EQ(parseKernelResult("k@0x"), std::nullopt);
  EXPECT_EQ(parseKernelResult("k@0x1g"), std::nullopt);
  EXPECT_EQ(parseKernelResult("k"), std::nullopt);
}

}  // namespace
}  // namespace dispatch::oracle
