// Each known upstream bug's status on the libtorch release this test was built against, as
// fuzz/c10/known_upstream.status states it, checked with the model-free oracles (so it holds
// for any release, not only the one the model describes): "shows" means its minimal repro
// breaks an oracle and the report matches that bug's signature; "fixed" means the repro runs
// clean; "model-only" means the model-free oracles cannot see it (C10KnownUpstream checks it
// against 1.13 with the model). A bug with no status for this release fails the test.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "c10_sut/c10_oracle.h"
#include "c10_sut/c10_system.h"
#include "dispatch/dispatch_key_set.h"
#include "known_upstream.h"
#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz::c10 {
namespace {

using oracle::Action;
using oracle::ActionKind;

Action impl(DispatchKey key, ActionKind kind = ActionKind::ImplTyped) { return {kind, 0, key, 0, 0, std::nullopt}; }
const Action kCatchAll{ActionKind::ImplBoxed, 0, std::nullopt, 0, 0, std::nullopt};
const Action kDropFirst{ActionKind::Drop, 0, std::nullopt, 0, 0, std::nullopt};
const Action kPop{ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt};

// The minimal repro of each bug the model-free oracles can see (known_upstream.md).
const std::map<std::string, std::vector<Action>>& repros() {
  static const std::map<std::string, std::vector<Action>> r = {
      {"stale-autogradother", {impl(DispatchKey::CompositeImplicitAutograd), impl(DispatchKey::QuantizedCPU)}},
      {"stale-autogradnestedtensor", {kCatchAll, impl(DispatchKey::NestedTensorCPU)}},
      {"stale-after-compositeexplicitautograd", {kCatchAll, impl(DispatchKey::CompositeExplicitAutograd)}},
      {"stale-after-dropping-compositeexplicitautograd",
       {impl(DispatchKey::CompositeExplicitAutograd), kCatchAll, kDropFirst}},
      {"guard-backend-bits",
       {{ActionKind::IncludeKeys, 0, std::nullopt, 0, DispatchKeySet(DispatchKey::QuantizedCUDA).raw_repr(),
         std::nullopt},
        kPop}},
  };
  return r;
}

// "2.14.1" -> "2.14".
std::string majorMinor(const std::string& release) { return release.substr(0, release.find('.', release.find('.') + 1)); }

// id -> status for `release`, from the status file.
std::map<std::string, std::string> statusOf(const std::string& release) {
  std::ifstream in(DISPATCH_C10_KNOWN_UPSTREAM_STATUS);
  EXPECT_TRUE(in) << "cannot read " << DISPATCH_C10_KNOWN_UPSTREAM_STATUS;
  std::map<std::string, std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string id = line.substr(0, line.find(" | "));
    const std::string column = " | " + release + "=";
    const size_t at = line.find(column);
    out[id] = at == std::string::npos ? "" : line.substr(at + column.size(), line.find(' ', at + column.size()) - at - column.size());
  }
  return out;
}

std::optional<std::string> runModelFree(const std::vector<Action>& actions, size_t* skipped_out = nullptr) {
  const std::string before = c10_sut::c10State();
  std::optional<std::string> verdict;
  size_t skipped = 0;
  {
    auto sut = c10_sut::makeC10System(/*probe_every_slot=*/true);
    verdict = c10_sut::runTrace(c10_sut::C10Oracle::ModelFree, *sut, actions, &skipped);
  }
  if (skipped_out) *skipped_out = skipped;
  EXPECT_EQ(before, c10_sut::c10State()) << "the trace left c10 changed";
  return verdict;
}

TEST(C10ReleaseStatus, EveryKnownBugHasTheStatusTheTableGivesThisRelease) {
  const std::string release = majorMinor(c10_sut::libtorchRelease());
  const auto status = statusOf(release);
  const auto bugs = readKnownBugs(DISPATCH_C10_KNOWN_UPSTREAM);
  ASSERT_FALSE(status.empty()) << "no bug in " << DISPATCH_C10_KNOWN_UPSTREAM_STATUS;
  for (const auto& [id, state] : status) {
    SCOPED_TRACE(id + " on libtorch " + c10_sut::libtorchRelease());
    ASSERT_FALSE(state.empty()) << "no status for release " << release << " in " << DISPATCH_C10_KNOWN_UPSTREAM_STATUS;
    const auto repro = repros().find(id);
    if (state == "model-only") {
      EXPECT_EQ(repro, repros().end()) << "a model-free repro exists: give the bug its real status";
      continue;
    }
    ASSERT_NE(repro, repros().end()) << "no model-free repro for a bug marked " << state;
    size_t skipped = 0;
    const auto report = runModelFree(repro->second, &skipped);
    // A repro counts only if every action ran: a skipped one (a key this release lacks, say)
    // would make a bug look fixed without having been tried.
    EXPECT_EQ(skipped, 0u) << "the repro skipped actions on this release, so it proves nothing";
    if (state == "fixed") {
      EXPECT_EQ(report, std::nullopt);
    } else {
      ASSERT_EQ(state, "shows") << "unknown status";
      ASSERT_TRUE(report.has_value()) << "c10 kept every model-free oracle";
      EXPECT_EQ(knownBugIn(bugs, *report), id) << *report;
    }
  }
}

// The other orders of the same registrations keep every oracle step by step. At the end of the
// trace the order-independence oracle makes them again in the order that shows the bug: where
// the bug shows on this release, that pass reports it, under the bug's own signature; where it is
// fixed, every oracle holds.
TEST(C10ReleaseStatus, OrderIndependenceFindsTheStaleBugsFromTheOrdersThatAvoidThem) {
  const auto status = statusOf(majorMinor(c10_sut::libtorchRelease()));
  const auto bugs = readKnownBugs(DISPATCH_C10_KNOWN_UPSTREAM);
  const std::vector<std::pair<std::string, std::vector<Action>>> avoiding = {
      {"stale-autogradother", {impl(DispatchKey::QuantizedCPU), impl(DispatchKey::CompositeImplicitAutograd)}},
      {"stale-autogradnestedtensor", {impl(DispatchKey::NestedTensorCPU), kCatchAll}},
      {"stale-after-compositeexplicitautograd", {impl(DispatchKey::CompositeExplicitAutograd), kCatchAll}},
  };
  for (const auto& [id, actions] : avoiding) {
    SCOPED_TRACE(id + " on libtorch " + c10_sut::libtorchRelease());
    const auto report = runModelFree(actions);
    ASSERT_TRUE(status.count(id)) << "no status for " << id;
    if (status.at(id) == "fixed") {
      EXPECT_EQ(report, std::nullopt);
      continue;
    }
    ASSERT_EQ(status.at(id), "shows");
    ASSERT_TRUE(report.has_value()) << "the other order kept every model-free oracle";
    EXPECT_EQ(report->rfind("c10: order independence: the same registrations made again in another order: step ", 0), 0u)
        << *report;
    EXPECT_EQ(knownBugIn(bugs, *report), id) << *report;
  }
  // Nothing to reorder: the catch-all is dropped, CompositeExplicitAutograd alone is made again.
  const Action drop_second{ActionKind::Drop, 0, std::nullopt, 1, 0, std::nullopt};
  EXPECT_EQ(runModelFree({impl(DispatchKey::CompositeExplicitAutograd), kCatchAll, drop_second}), std::nullopt);
}

// Inputs on which c10_registration_fuzzer once reported a harness mistake as a finding (against
// 2.14.1: a fallback over a key to which that release, unlike 1.13, gives a start-up fallback;
// a boxed call on an operator without a schema, which sees no tensors; a call whose key set
// ends up empty, which runs the Undefined slot; a redispatch onto a per-backend functionality
// without a backend bit, whose slot no computed table shows): they run clean with the
// release's default oracle and with the model-free one.
TEST(C10HarnessRegressions, TheHarnessMistakesTheC10TargetMadeStayFixed) {
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DISPATCH_C10_HARNESS_REGRESSIONS)) {
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_FALSE(bytes.empty());
    const auto actions = oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights);
    EXPECT_EQ(runModelFree(actions), std::nullopt);
    const std::string before = c10_sut::c10State();
    {
      auto sut = c10_sut::makeC10System();
      EXPECT_EQ(c10_sut::runTrace(c10_sut::defaultOracle(), *sut, actions), std::nullopt);
    }
    EXPECT_EQ(before, c10_sut::c10State());
    ++inputs;
  }
  EXPECT_EQ(inputs, 4u) << "inputs in " << DISPATCH_C10_HARNESS_REGRESSIONS;
}

}  // namespace
}  // namespace dispatch::fuzz::c10
