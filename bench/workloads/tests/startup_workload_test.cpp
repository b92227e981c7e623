// A slice of each committed start-up workload (bench/workloads/libtorch-*-startup.tsv.gz: every
// 10th operator with all its defs and impls, and every fallback) replayed into our dispatcher of
// every flavour of the build and into the reference model of the same flavour: each
// registration's outcome, the tables it changed and checkInvariants must agree
// (bench/workloads/model_replay.h). Registrations on keys our vocabulary lacks are counted and
// named. Then the comparison itself is shown to fail when the two sides differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bench/workloads/model_replay.h"
#include "bench/workloads/workload.h"

namespace dispatch::workload {
namespace {

constexpr size_t kStride = 10;

const Workload& recording(const std::string& release) {
  static std::map<std::string, Workload> loaded;
  auto it = loaded.find(release);
  if (it == loaded.end()) {
    it = loaded.emplace(release, readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-" + release +
                                              "-startup.tsv.gz"))
             .first;
  }
  return it->second;
}

std::string summary(const Translation& t) {
  std::string text = std::to_string(t.skipped()) + " registrations skipped on keys we lack:";
  if (t.skipped_keys.empty()) text += " none";
  for (const auto& [key, count] : t.skipped_keys) text += " " + key + " " + std::to_string(count);
  return text;
}

// What the slice must hold for the comparison to mean something: a few hundred operators, the
// recording's every fallback, and kernels of every kind on runtime, alias and catch-all keys.
void expectSliceCoversTheRecording(const std::vector<Row>& all, const std::vector<Row>& slice) {
  std::set<std::string> operators;
  long fallbacks_all = 0, fallbacks_slice = 0;
  std::set<std::string> kinds, keys;
  for (const Row& row : all) fallbacks_all += row.call == "fallback";
  for (const Row& row : slice) {
    if (row.call == "def" || row.call == "impl") operators.insert(row.op + "." + row.overload);
    if (row.call == "impl") {
      kinds.insert(row.kind);
      keys.insert(row.key);
    }
    fallbacks_slice += row.call == "fallback";
  }
  EXPECT_GE(operators.size(), 200u);
  EXPECT_LE(operators.size(), 500u);
  EXPECT_EQ(fallbacks_slice, fallbacks_all);
  for (const char* kind : {"typed", "boxed", "fallthrough"}) EXPECT_TRUE(kinds.count(kind)) << kind;
  for (const char* key : {"catch-all", "CPU", "Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd"})
    EXPECT_TRUE(keys.count(key)) << key;
}

struct FlavourName {
  template <class L>
  static std::string GetName(int) {
    return std::string(L::kName);
  }
};

template <class L>
class StartupWorkload : public ::testing::Test {
 protected:
  void replaySliceOf(const std::string& release) {
    const Workload& workload = recording(release);
    const std::vector<Row> slice = operatorSlice(workload.rows, kStride);
    expectSliceCoversTheRecording(workload.rows, slice);
    const Translation translation = translate(slice);
    EXPECT_EQ(translation.untranslated(), 0) << translation.untranslatable.begin()->second.second;
    // Every row of the slice is replayed, skipped by key name, or reported untranslatable.
    EXPECT_EQ(static_cast<long>(translation.calls.size()) + translation.skipped() + translation.untranslated(),
              static_cast<long>(slice.size()));

    const ModelCheckReport report = checkAgainstModel<L>(translation.calls);
    std::printf("libtorch %s, flavour %s: %zu of %zu rows; %ld calls (%ld made, %ld refused by both), %ld tables "
                "compared, %ld operators; %s\n",
                release.c_str(), std::string(L::kName).c_str(), slice.size(), workload.rows.size(), report.calls,
                report.made, report.refused, report.tables_compared, report.operators,
                summary(translation).c_str());
    EXPECT_TRUE(report.agrees()) << report.disagreement_count << " disagreements, the first:\n"
                                 << (report.disagreements.empty() ? "" : report.disagreements.front());
    EXPECT_EQ(report.calls, static_cast<long>(translation.calls.size()));
    EXPECT_GE(report.operators, 200);
  }
};
TYPED_TEST_SUITE(StartupWorkload, AllLayouts::Apply<::testing::Types>, FlavourName);

TYPED_TEST(StartupWorkload, Libtorch113SliceAgreesWithTheModel) {
  this->replaySliceOf("1.13");
  // 1.13.1's vocabulary is ours: nothing to skip.
  EXPECT_EQ(translate(operatorSlice(recording("1.13").rows, kStride)).skipped(), 0);
}

TYPED_TEST(StartupWorkload, Libtorch214SliceAgreesWithTheModel) { this->replaySliceOf("2.14"); }

// --- the comparison fails when the sides differ ---------------------------------------------

std::vector<Call> smallSlice() { return translate(operatorSlice(recording("1.13").rows, 200)).calls; }

TEST(StartupWorkloadComparison, AKernelOnlyOursHasIsCaught) {
  ModelReplay<FullLayout> replay;
  const std::vector<Call> calls = smallSlice();
  for (const Call& call : calls) replay.step(call);
  ASSERT_TRUE(replay.report().agrees()) << replay.report().disagreements.front();
  const auto def = std::find_if(calls.begin(), calls.end(), [](const Call& c) { return c.kind == CallKind::Def; });
  ASSERT_NE(def, calls.end());
  Call extra;
  extra.kind = CallKind::Impl;
  extra.name = def->name;
  extra.key = DispatchKey::SparseCUDA;
  extra.debug = "a kernel the model never saw";
  ASSERT_FALSE(replay.ours().apply(extra).has_value());
  replay.compareAll();
  ASSERT_EQ(replay.report().disagreement_count, 1);
  EXPECT_NE(replay.report().disagreements.front().find("dispatch table of " + toString(def->name) + " differs"),
            std::string::npos)
      << replay.report().disagreements.front();
}

TEST(StartupWorkloadComparison, ARegistrationOnlyOneSideRefusesIsCaught) {
  ModelReplay<FullLayout> replay;
  const std::vector<Call> calls = smallSlice();
  const auto fallback =
      std::find_if(calls.begin(), calls.end(), [](const Call& c) { return c.kind == CallKind::Fallback; });
  ASSERT_NE(fallback, calls.end());
  ASSERT_FALSE(replay.ours().apply(*fallback).has_value());  // ours has the slot taken already
  replay.step(*fallback);
  ASSERT_GE(replay.report().disagreement_count, 1);
  EXPECT_NE(replay.report().disagreements.front().find("registration outcome differs"), std::string::npos)
      << replay.report().disagreements.front();
}

// --- reading and translation -------------------------------------------------------------------

TEST(StartupWorkloadReading, AMissingFileIsAnError) {
  EXPECT_THROW(readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/no-such-recording.tsv.gz"), std::runtime_error);
}

TEST(StartupWorkloadReading, AnEmptyOrHeaderOnlyRecordingIsAnError) {
  std::istringstream empty("");
  EXPECT_THROW(parseWorkload(empty), std::runtime_error);
  std::istringstream header_only(
      "# a comment\nseq\tcall\treal_call_ns\toperator\toverload\tkey\tkind\tunboxed\tcpp_signature\tschema\tdebug\n");
  EXPECT_THROW(parseWorkload(header_only), std::runtime_error);
  std::istringstream short_row(
      "seq\tcall\treal_call_ns\toperator\toverload\tkey\tkind\tunboxed\tcpp_signature\tschema\tdebug\n0\tdef\t5\n");
  EXPECT_THROW(parseWorkload(short_row), std::runtime_error);
}

TEST(StartupWorkloadReading, AKeyWeLackIsSkippedAndNamed) {
  std::vector<Row> rows(3);
  rows[0] = Row{0, "def", 1, "aten::f", "", "-", "-", "aten::f(Tensor self) -> Tensor", "d"};
  rows[1] = Row{1, "impl", 1, "aten::f", "", "AutocastMTIA", "fallthrough", "", "d"};
  rows[2] = Row{2, "impl", 1, "aten::f", "", "CPU", "typed", "", "d"};
  const Translation t = translate(rows);
  EXPECT_EQ(t.calls.size(), 2u);
  EXPECT_EQ(t.skipped_keys, (std::map<std::string, long>{{"AutocastMTIA", 1}}));
}

TEST(StartupWorkloadReading, EveryRowOfTheRecordingsIsRead) {
  // seq numbers the calls 0, 1, 2, ... as the recorder made them: a row lost or read twice shows.
  for (const char* release : {"1.13", "2.14"}) {
    const auto& rows = recording(release).rows;
    for (size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i].seq, static_cast<long>(i)) << release;
  }
}

}  // namespace
}  // namespace dispatch::workload
