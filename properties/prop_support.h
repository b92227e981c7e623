#pragma once
// Shared machinery of the RapidCheck property suite (properties/*_props.cpp):
//
//   DISPATCH_PROP   RC_GTEST_PROP with a per-property default number of cases and maximum size
//                   (RC_PARAMS max_success / max_size still win, for the nightly job), the
//                   per-test RC_PARAMS reproduce string printed in the gtest failure message, and
//                   a guard against stale reproduce strings (emil-e/rapidcheck#257: a reproduce
//                   string that no longer reproduces must fail, not silently pass).
//   isolation       a crash of the library (a hardened std::array assertion, an ASan report: the
//                   shape of the historic mobile fallback overflow) must be a failing case that
//                   RapidCheck shrinks, not the death of the test binary. Each property first
//                   runs in one forked child (cheap); if that child crashes, the property reruns
//                   with one forked child per case (isolate()), same seed, and the crashing case
//                   shrinks like any other failure. DISPATCH_PROPS_NO_FORK=1 runs everything
//                   in-process (for debuggers).
//   snapshots       a whole dispatcher and the thread-local key sets as text, and a line diff.
//
// Inside properties assert with RC_ASSERT / RC_PRE / RC_FAIL only (docs/harness.md §11.4). Code that
// runs inside isolate() must not generate (no `*gen`) and must not RC_LOG (the log would stay in
// the child): it reports through the failure message.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/local_dispatch_key_set.h"

namespace dispatch::props {

// Defaults of one property. The whole `property` label must stay under ~2 minutes per preset
// under asan-ubsan with these; RC_PARAMS="max_success=..." raises every property for nightly runs.
struct CaseBudget {
  int max_success;
  int max_size;
};

// Whether RC_PARAMS names `key` explicitly (then RC_PARAMS wins over the property's default).
bool rcParamsSets(std::string_view key);

// DISPATCH_PROPS_NO_FORK=1: everything in-process.
bool forkDisabled();

// The result of one property, ready for gtest: on success the summary to print, on failure the
// message (counterexample, failure description, RC_PARAMS reproduce string).
struct PropertyOutcome {
  bool passed = false;
  std::string text;
};
PropertyOutcome evaluate(const rc::detail::TestResult& result, const std::string& test_id,
                         const rc::detail::TestParams& params);

// Runs a whole property in one forked child in which isolate() runs cases in-process (one fork
// per property: cheap). nullopt if the child crashed: the caller then reruns the property with
// one forked child per case (isolate()), which turns the crash into a failing case that
// RapidCheck shrinks. Same seed, so the rerun meets the same cases.
std::optional<PropertyOutcome> runPropertyInChild(const std::function<PropertyOutcome()>& run);

template <class Testable>
void checkProperty(Testable&& testable, CaseBudget budget) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();

  const Configuration& config = configuration();  // before any fork: one seed for all
  TestParams params = config.testParams;
  if (!rcParamsSets("max_success")) params.maxSuccess = budget.max_success;
  if (!rcParamsSets("max_size")) params.maxSize = budget.max_size;

  const bool reproducing = !config.reproduce.empty();
  if (reproducing && config.reproduce.count(metadata.id) == 0) {
    GTEST_SKIP() << "RC_PARAMS reproduces other properties; " << metadata.id
                 << " is not among them";
  }

  const std::function<PropertyOutcome()> run = [&] {
    return evaluate(checkTestable(testable, metadata, params), metadata.id, params);
  };
  std::optional<PropertyOutcome> outcome;
  if (!forkDisabled()) {
    outcome = runPropertyInChild(run);
    if (!outcome) {
      std::cout << "[ property ] " << metadata.id
                << ": a case crashed the library (report above); rerunning the property with "
                   "one process per case, so that RapidCheck can shrink the crashing case"
                << std::endl;
    }
  }
  if (!outcome) outcome = run();
  if (!outcome->passed) {
    FAIL() << outcome->text << std::endl;
  } else if (reproducing) {
    FAIL() << "RC_PARAMS asked to reproduce a failure of " << metadata.id
           << ", but that case passes now: the reproduce string is stale (the code, the "
              "generators or the build flavour changed). Rerun without 'reproduce=' to search "
              "afresh.";
  } else {
    std::cout << outcome->text << std::flush;
  }
}

// Runs body in a forked child (see the file comment), unless the whole property already runs in
// one (runPropertyInChild) or forking is disabled. An RC_ASSERT / RC_FAIL failure in the child
// becomes RC_FAIL here with the same message; RC_PRE / RC_DISCARD becomes RC_DISCARD; a crash
// (signal, sanitizer report, uncaught exception) becomes RC_FAIL with the child's output.
void isolate(const std::function<void()>& body);

// --- snapshots ---------------------------------------------------------------------------------

// Every operator (sorted by name) with its dumpState, live table and recomputed table, then the
// fallbacks: two dispatchers with equal snapshots are indistinguishable through the API.
template <class L>
std::string dispatcherSnapshot(const BasicDispatcher<L>& d) {
  std::vector<OperatorName> names = d.getAllOpNames();
  std::sort(names.begin(), names.end());
  std::ostringstream out;
  for (const OperatorName& name : names) {
    const auto op = d.findOp(name);
    out << "== operator " << toString(name) << "\n" << op->dumpState() << "-- live table\n"
        << op->dumpDispatchTable() << "-- recomputed table\n" << op->dumpComputedTable();
  }
  out << "== fallbacks\n" << d.dumpFallbacks();
  return out.str();
}

// The first max_lines lines of a (sanitizer) report, each cut to max_width characters.
std::string condenseReport(const std::string& output, size_t max_lines, size_t max_width);

// A runner disagreement prints both whole tables ("--- dispatcher ...\n<table>--- model\n
// <table>"); this lists only the entries that differ, grouped by how they differ. Other text is
// unchanged.
std::string readableDisagreement(const std::string& problem);

// "included {...} excluded {...}" of this thread, by key names.
std::string tlsSnapshot();

// A unified-style line diff ("  same", "- expected only", "+ actual only"), at most max_lines.
std::string lineDiff(const std::string& expected, const std::string& actual, size_t max_lines = 80);

}  // namespace dispatch::props

// A RapidCheck property as a Google Test (like RC_GTEST_PROP) with its own default budget:
//   DISPATCH_PROP(KeySet, UnionMatchesModel, 300, 100, (RawKeySet a, RawKeySet b)) { ... }
#define DISPATCH_PROP(Suite, Name, MaxSuccess, MaxSize, ArgList)                          \
  static void dispatchProp_##Suite##_##Name ArgList;                                      \
  TEST(Suite, Name) {                                                                     \
    ::dispatch::props::checkProperty(&dispatchProp_##Suite##_##Name,                      \
                                     ::dispatch::props::CaseBudget{MaxSuccess, MaxSize}); \
  }                                                                                       \
  static void dispatchProp_##Suite##_##Name ArgList

// A property run once per flavour of this build (dispatch::AllLayouts: the declared ones of
// cmake/flavours.list and any drawn at configure time), as the typed Google Test
// Suite/<flavour>.Name; the body is a template on the layout L:
//   DISPATCH_LAYOUT_PROP(Stateful, DispatcherAgreesWithModel, 150, 60) { statefulCase<L>(); }
// One DISPATCH_LAYOUT_PROP per Suite.
namespace dispatch::props {
struct LayoutPropName {
  template <class L>
  static std::string GetName(int) {
    return std::string(L::kName);
  }
};
using PropLayouts = ::dispatch::AllLayouts::Apply<::testing::Types>;
}  // namespace dispatch::props
#define DISPATCH_LAYOUT_PROP(Suite, Name, MaxSuccess, MaxSize)                                 \
  template <class L>                                                                          \
  class Suite : public ::testing::Test {};                                                    \
  TYPED_TEST_SUITE(Suite, ::dispatch::props::PropLayouts, ::dispatch::props::LayoutPropName); \
  template <class L>                                                                          \
  static void dispatchLayoutProp_##Suite##_##Name();                                          \
  TYPED_TEST(Suite, Name) {                                                                   \
    ::dispatch::props::checkProperty([] { dispatchLayoutProp_##Suite##_##Name<TypeParam>(); }, \
                                     ::dispatch::props::CaseBudget{MaxSuccess, MaxSize});     \
  }                                                                                           \
  template <class L>                                                                          \
  static void dispatchLayoutProp_##Suite##_##Name()
