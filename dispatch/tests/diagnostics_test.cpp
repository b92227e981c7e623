// The flight recorder, the dispatch trace and call observers (diagnostics.h). Built with
// DISPATCH_DIAGNOSTICS=0 (release), only the compiled-out behaviour is checked.

#include "dispatch/diagnostics.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/startup_fallbacks.h"

namespace {

using dispatch::DispatchKey;
using dispatch::DispatchKeySet;
using dispatch::flight_recorder::Event;
using dispatch::flight_recorder::EventKind;
using dispatch::flight_recorder::EventStatus;
using DK = dispatch::DispatchKey;
using DKS = dispatch::DispatchKeySet;
using Sig = int64_t(const dispatch::Tensor&);

// test::op has a CPU kernel; test::chain goes AutogradCPU -> ADInplaceOrView -> CPU.
struct Env {
  dispatch::Dispatcher d;
  std::vector<dispatch::Library> startup = dispatch::registerStartupFallbacks(d);
  std::optional<dispatch::Library> def, cpu, autograd, inplace;
  dispatch::Tensor t{dispatch::tensorKeySet(dispatch::TensorKind::Dense,
                                            dispatch::BackendComponent::CPUBit),
                     1};
  static inline const dispatch::TypedOperatorHandle<Sig>* chain = nullptr;

  Env() {
    using Kind = dispatch::Library::Kind;
    def.emplace(Kind::DEF, "test", std::nullopt, d);
    def->def("op(Tensor self) -> int").def("chain(Tensor self) -> int");
    cpu.emplace(Kind::IMPL, "test", DK::CPU, d);
    cpu->impl("op", [](const dispatch::Tensor& x) -> int64_t { return x.id() + 1; });
    cpu->impl("chain", [](const dispatch::Tensor& x) -> int64_t { return x.id() + 2; });
    autograd.emplace(Kind::IMPL, "test", DK::AutogradCPU, d);
    autograd->impl("chain", [](DKS ks, const dispatch::Tensor& x) -> int64_t {
      return chain->redispatch(ks & DKS(DKS::FULL_AFTER, DK::AutogradCPU), x);
    });
    inplace.emplace(Kind::IMPL, "test", DK::ADInplaceOrView, d);
    inplace->impl("chain", [](DKS ks, const dispatch::Tensor& x) -> int64_t {
      return chain->redispatch(ks & DKS(DKS::FULL_AFTER, DK::ADInplaceOrView), x);
    });
    chain_handle.emplace(d.findSchemaOrThrow("test::chain").typed<Sig>());
    chain = &*chain_handle;
  }
  ~Env() { chain = nullptr; }
  int64_t callOp() { return d.findSchemaOrThrow("test::op").typed<Sig>().call(t); }
  int64_t callChain() { return chain->call(t); }

  std::optional<dispatch::TypedOperatorHandle<Sig>> chain_handle;
};

std::vector<Event> eventsOf(EventKind kind) {
  std::vector<Event> found;
  for (const Event& e : dispatch::flight_recorder::snapshot()) {
    if (e.kind == kind) found.push_back(e);
  }
  return found;
}

#define SKIP_IF_COMPILED_OUT()                                                  \
  if (!dispatch::kDiagnosticsCompiledIn) GTEST_SKIP() << "DISPATCH_DIAGNOSTICS=0"

TEST(DiagnosticsTest, CompiledOutSaysSo) {
  if (dispatch::kDiagnosticsCompiledIn) GTEST_SKIP() << "DISPATCH_DIAGNOSTICS=1";
  EXPECT_FALSE(dispatch::flight_recorder::enabled());
  EXPECT_TRUE(dispatch::flight_recorder::snapshot().empty());
  EXPECT_THROW(dispatch::addCallObserver([](const dispatch::CallInfo&) {}), dispatch::Error);
  EXPECT_THROW(dispatch::setDispatchTrace(true), dispatch::Error);
  EXPECT_THROW(dispatch::flight_recorder::setEnabled(true), dispatch::Error);
  Env env;
  EXPECT_EQ(env.callOp(), 2);
}

TEST(FlightRecorderTest, RecordsCallsWithKeyKernelAndDepth) {
  SKIP_IF_COMPILED_OUT();
  ASSERT_TRUE(dispatch::flight_recorder::enabled());
  Env env;
  dispatch::flight_recorder::clear();
  ASSERT_EQ(env.callChain(), 3);

  const auto calls = eventsOf(EventKind::Call);
  const auto redispatches = eventsOf(EventKind::Redispatch);
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(redispatches.size(), 2u);
  EXPECT_STREQ(calls[0].op, "test::chain");
  EXPECT_EQ(calls[0].key, DK::AutogradCPU);
  EXPECT_EQ(calls[0].slot, dispatch::Dispatcher::Layout::indexOf(DK::AutogradCPU));
  EXPECT_EQ(calls[0].depth, 0);
  EXPECT_EQ(calls[0].status, EventStatus::Done);
  EXPECT_NE(std::string(calls[0].detail).find("registered"), std::string::npos) << calls[0].detail;
  EXPECT_EQ(redispatches[0].key, DK::ADInplaceOrView);
  EXPECT_EQ(redispatches[0].depth, 1);
  EXPECT_EQ(redispatches[1].key, DK::CPU);
  EXPECT_EQ(redispatches[1].depth, 2);
  EXPECT_TRUE(DKS(DKS::RAW, redispatches[1].keys).has(DK::CPU));
  EXPECT_LT(calls[0].seq, redispatches[0].seq);
  EXPECT_LT(redispatches[0].seq, redispatches[1].seq);
}

TEST(FlightRecorderTest, FinishingMarksOnlyItsOwnEventEvenAfterItWasOverwritten) {
  SKIP_IF_COMPILED_OUT();
  dispatch::flight_recorder::clear();
  dispatch::flight_recorder::Event event;
  event.kind = EventKind::Call;
  const uint64_t outer = dispatch::detail::recordEvent(event);
  const uint64_t nested = dispatch::detail::recordEvent(event);
  // An older event still in the ring: found behind a newer one.
  dispatch::detail::finishEvent(outer, EventStatus::Done);
  dispatch::detail::finishEvent(nested, EventStatus::Failed);
  auto statusOf = [](uint64_t seq) {
    for (const Event& e : dispatch::flight_recorder::snapshot()) {
      if (e.seq == seq) return std::optional<EventStatus>(e.status);
    }
    return std::optional<EventStatus>();
  };
  EXPECT_EQ(statusOf(outer), EventStatus::Done);
  EXPECT_EQ(statusOf(nested), EventStatus::Failed);
  // Once the ring has wrapped past it, finishing it changes no other event.
  const uint64_t gone = dispatch::detail::recordEvent(event);
  for (int i = 0; i < dispatch::kFlightRecorderCapacity; ++i) dispatch::detail::recordEvent(event);
  ASSERT_EQ(statusOf(gone), std::nullopt);
  dispatch::detail::finishEvent(gone, EventStatus::Done);
  for (const Event& e : dispatch::flight_recorder::snapshot()) {
    EXPECT_EQ(e.status, EventStatus::Started) << e.seq;
  }
}

TEST(FlightRecorderTest, RecordsRegistrationsAndTheirOutcome) {
  SKIP_IF_COMPILED_OUT();
  dispatch::flight_recorder::clear();
  {
    Env env;
    const auto defs = eventsOf(EventKind::RegisterDef);
    ASSERT_EQ(defs.size(), 2u);
    EXPECT_STREQ(defs[0].op, "test::op");
    EXPECT_EQ(defs[0].status, EventStatus::Done);
    const auto fallbacks = eventsOf(EventKind::RegisterFallback);
    ASSERT_FALSE(fallbacks.empty());
    EXPECT_STREQ(fallbacks.back().flavour, dispatch::Dispatcher::Layout::kName.data());

    // A second fallback for the same key throws: recorded as such.
    dispatch::Library extra(dispatch::Library::Kind::IMPL, "_", DK::AutogradCPU, env.d);
    EXPECT_THROW(extra.fallback(dispatch::CppFunction::makeFallthrough()),
                 dispatch::RegistrationError);
    const auto after = eventsOf(EventKind::RegisterFallback);
    EXPECT_EQ(after.back().key, DK::AutogradCPU);
    EXPECT_EQ(after.back().status, EventStatus::Failed);
    EXPECT_NE(dispatch::flight_recorder::format(after.back()).find("[threw]"), std::string::npos);
  }
  // Dropping the environment deregisters everything.
  EXPECT_FALSE(eventsOf(EventKind::DeregisterImpl).empty());
  EXPECT_FALSE(eventsOf(EventKind::DeregisterDef).empty());
}

TEST(FlightRecorderTest, KeepsTheLastEventsOnly) {
  SKIP_IF_COMPILED_OUT();
  Env env;
  dispatch::flight_recorder::clear();
  for (int i = 0; i < 3 * dispatch::kFlightRecorderCapacity; ++i) env.callOp();
  const auto events = dispatch::flight_recorder::snapshot();
  ASSERT_EQ(events.size(), static_cast<size_t>(dispatch::kFlightRecorderCapacity));
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].seq, events[i - 1].seq + 1);
}

// Found by mutation testing (ci/mutants.sh --seed 1 --n 40, mutant 38): the crash dump cut an
// event longer than its line buffer at a different length than format() and dropped the
// newline, so the next event ran onto the same line. Each dumped event is "  " + format(e). A
// full ring of the longest events: the dump's text spans many of its output buffers.
TEST(FlightRecorderTest, DumpPrintsEveryEventAsFormatDoesOnItsOwnLine) {
  SKIP_IF_COMPILED_OUT();
  Env env;
  dispatch::flight_recorder::clear();
  DKS many_keys;  // dense and sparse on every backend: a key list far longer than a line
  for (uint8_t b = 1; b <= static_cast<uint8_t>(dispatch::BackendComponent::EndOfBackendKeys); ++b) {
    const auto backend = static_cast<dispatch::BackendComponent>(b);
    many_keys = many_keys | dispatch::tensorKeySet(dispatch::TensorKind::Dense, backend) |
                dispatch::tensorKeySet(dispatch::TensorKind::Sparse, backend);
  }
  const dispatch::Tensor wide(many_keys, 2);
  const auto op = env.d.findSchemaOrThrow("test::op").typed<Sig>();
  for (int i = 0; i < dispatch::kFlightRecorderCapacity; ++i) EXPECT_THROW(op.call(wide), dispatch::Error);
  env.callOp();
  const auto events = dispatch::flight_recorder::snapshot();
  ASSERT_EQ(events.size(), static_cast<size_t>(dispatch::kFlightRecorderCapacity));
  // The event must reach the line cap (512 characters), or cutting it is not tested.
  ASSERT_EQ(dispatch::flight_recorder::format(events.front()).size(), 512u);

  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  dispatch::flight_recorder::dump(fileno(out), "test");
  std::rewind(out);
  std::vector<std::string> lines;
  std::string line;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) {
    if (c != '\n') { line += static_cast<char>(c); continue; }
    lines.push_back(line);
    line.clear();
  }
  std::fclose(out);
  EXPECT_EQ(line, "") << "the dump does not end with a newline";
  // begin marker, "this thread: ..." header, one line per event, end marker.
  ASSERT_EQ(lines.size(), events.size() + 3) << "events ran together or split across lines";
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(lines[i + 2], "  " + dispatch::flight_recorder::format(events[i])) << "event " << i;
  }
  EXPECT_EQ(lines.back(), "==== dispatch flight recorder: end ====");
}

// The acceptance check: a library assertion (InternalError thrown where nothing can
// catch it) kills the process, and stderr shows the recorder's block with the last events.
TEST(FlightRecorderDeathTest, LibraryAssertionPrintsTheLastEvents) {
  SKIP_IF_COMPILED_OUT();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto crash = [] {
    Env env;
    env.callOp();
    dispatch::OperatorEntry orphan(dispatch::OperatorName{"test::orphan", ""}, {});
    [&]() noexcept { orphan.deregisterSchema(); }();  // internal assert: it has no schema
  };
  EXPECT_DEATH(crash(),
               "==== dispatch flight recorder: begin \\(std::terminate\\) ====\n"
               "this thread: last [0-9]+ of [0-9]+ events, oldest first\n"
               ".*register fallback key=AutogradCPU .*debug=\"startup fallthrough for AutogradCPU\""
               ".*register impl op=test::op key=CPU .*\\[done\\]"
               ".*call op=test::op key=CPU slot=[0-9]+ depth=0 keys=\\(CPU\\) .*\\[done\\]\n"
               "==== dispatch flight recorder: end ====\n"
               ".*internal assert failed");
}

TEST(FlightRecorderDeathTest, AbortPrintsTheEventInProgress) {
  SKIP_IF_COMPILED_OUT();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto crash_in_kernel = [] {
    Env env;
    dispatch::Library block(dispatch::Library::Kind::FRAGMENT, "test", std::nullopt, env.d);
    block.def("dies(Tensor self) -> int");
    dispatch::Library impl(dispatch::Library::Kind::IMPL, "test", DK::CPU, env.d);
    impl.impl("dies", [](const dispatch::Tensor&) -> int64_t { std::abort(); });
    env.d.findSchemaOrThrow("test::dies").typed<Sig>().call(env.t);
  };
  EXPECT_DEATH(crash_in_kernel(),
               "begin \\(SIGABRT\\).*call op=test::dies key=CPU .*\\[in progress\\]\n"
               "==== dispatch flight recorder: end ====");
}

TEST(DispatchTraceTest, PrintsEveryCallIndentedByDepth) {
  SKIP_IF_COMPILED_OUT();
  Env env;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  dispatch::setDispatchTrace(true, out);
  env.callChain();
  dispatch::setDispatchTrace(false);
  EXPECT_FALSE(dispatch::dispatchTraceEnabled());
  std::rewind(out);
  std::string text;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) text += static_cast<char>(c);
  std::fclose(out);
  const auto call = text.find("[call] op=[test::chain], key=[AutogradCPU]");
  const auto first = text.find("\n  [redispatch] op=[test::chain], key=[ADInplaceOrView]");
  const auto second = text.find("\n    [redispatch] op=[test::chain], key=[CPU]");
  EXPECT_EQ(call, 0u) << text;
  EXPECT_NE(first, std::string::npos) << text;
  EXPECT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second) << text;
}

TEST(CallObserverTest, SeesEntryAndExitUntilRemoved) {
  SKIP_IF_COMPILED_OUT();
  Env env;
  std::vector<std::string> seen;
  auto handle = dispatch::addCallObserver(
      [&](const dispatch::CallInfo& info) {
        seen.push_back("enter " + std::string(info.op) + " " +
                       std::string(dispatch::toString(info.key)) + " " +
                       std::to_string(info.depth));
      },
      [&](const dispatch::CallInfo& info) {
        seen.push_back("exit " + std::string(dispatch::toString(info.key)));
      });
  env.callChain();
  const std::vector<std::string> expected = {
      "enter test::chain AutogradCPU 0", "enter test::chain ADInplaceOrView 1",
      "enter test::chain CPU 2",         "exit CPU",
      "exit ADInplaceOrView",            "exit AutogradCPU"};
  EXPECT_EQ(seen, expected);
  handle.release();
  seen.clear();
  env.callChain();
  EXPECT_TRUE(seen.empty());
}

TEST(CallObserverTest, ExitRunsWhenTheKernelThrows) {
  SKIP_IF_COMPILED_OUT();
  Env env;
  int exits = 0;
  auto handle = dispatch::addCallObserver({}, [&](const dispatch::CallInfo&) { ++exits; });
  dispatch::flight_recorder::clear();
  // Named outranks CPU: its start-up fallback (full) or the missing kernel (mobile, no slot)
  // throws from inside the call.
  const dispatch::Tensor named(DKS{DK::CPU, DK::Named}, 3);
  EXPECT_THROW(env.d.findSchemaOrThrow("test::op").typed<Sig>().call(named),
               dispatch::NotImplementedError);
  EXPECT_EQ(exits, 1);
  const auto calls = eventsOf(EventKind::Call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].status, EventStatus::Failed);
}

}  // namespace
