// The committed libtorch 1.13.1 start-up recording replayed into our dispatcher (full flavour):
// every operator's computed table equals the one c10 computes in this process, slot by slot,
// each entry the same recorded registration (bench/workloads/table_comparison.h). Then a copy of
// c10's tables with a planted difference is shown to fail the comparison, so the pass means
// something.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "bench/workloads/c10/c10_tables.h"
#include "bench/workloads/table_comparison.h"

namespace dispatch::workload {
namespace {

const Workload& recording() {
  static const Workload loaded = readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-1.13-startup.tsv.gz");
  return loaded;
}

const C10Tables& c10() {
  static const C10Tables tables = readC10Tables();
  return tables;
}

long verdictCount(const TableComparison& report, SlotVerdict verdict) {
  const auto it = report.verdicts.find(verdict);
  return it == report.verdicts.end() ? 0 : it->second;
}

TEST(C10TableComparison, EveryRealOperatorsTableEqualsC10s) {
  ASSERT_NO_THROW(checkRecordedFromThisLibtorch(recording(), c10()));
  const TableComparison report = compareWithReplay(recording().rows, c10().tables, c10().keys);
  std::printf("%s", report.summary().c_str());
  EXPECT_TRUE(report.tablesEqual());
  // Not vacuous: every operator of the recording, every kind of entry met.
  EXPECT_EQ(report.operators, 3199);
  EXPECT_TRUE(report.refused.empty());
  EXPECT_TRUE(report.skipped_keys.empty());
  EXPECT_EQ(report.slots, report.operators * static_cast<long>(ourTableKeys<FullLayout>().size()));
  for (SlotVerdict verdict : {SlotVerdict::Missing, SlotVerdict::Kernel, SlotVerdict::FallthroughKernel,
                              SlotVerdict::Fallback, SlotVerdict::FallthroughFallback}) {
    EXPECT_GT(verdictCount(report, verdict), 0) << toString(verdict);
  }
}

// aten::add.Tensor's table as c10 prints it, with its CPU line changed by `plant`.
template <class Plant>
TableComparison compareWithPlanted(Plant plant) {
  auto tables = c10().tables;
  std::string& table = tables.at("aten::add.Tensor");
  const size_t cpu = table.find("\nCPU: ");
  EXPECT_NE(cpu, std::string::npos) << table;
  const size_t end = table.find('\n', cpu + 1);
  table = table.substr(0, cpu + 1) + plant(table.substr(cpu + 1, end - cpu - 1)) + table.substr(end);
  return compareWithReplay(recording().rows, tables, c10().keys);
}

void expectOneDifference(const TableComparison& report, const std::string& why) {
  EXPECT_FALSE(report.tablesEqual());
  ASSERT_EQ(report.differences.size(), 1u) << report.summary();
  EXPECT_EQ(report.differences.front().op, "aten::add.Tensor");
  EXPECT_EQ(report.differences.front().key, "CPU");
  EXPECT_EQ(report.differences.front().why, why) << report.summary();
}

TEST(C10TableComparison, APlantedDifferenceInACopyOfC10sTablesIsCaught) {
  // Another registration's debug text: a kernel of the same tag that is not the recorded one.
  expectOneDifference(compareWithPlanted([](const std::string&) {
                        return "CPU: registered at a file no kernel was registered in:1 [kernel]";
                      }),
                      "c10's entry matches no recorded registration of that key and debug");
  expectOneDifference(compareWithPlanted([](const std::string& line) {
                        return line.substr(0, line.rfind(" [")) + " [default backend kernel]";
                      }),
                      "the tags differ");
  expectOneDifference(compareWithPlanted([](const std::string& line) { return "CPU: fallthrough" + line.substr(4); }),
                      "one is a fallthrough, the other not");
  // The CPU line gone: c10 would say missing.
  auto without_cpu = c10().tables;
  std::string& table = without_cpu.at("aten::add.Tensor");
  const size_t cpu = table.find("\nCPU: ");
  table.erase(cpu + 1, table.find('\n', cpu + 1) - cpu);
  const TableComparison missing = compareWithReplay(recording().rows, without_cpu, c10().keys);
  expectOneDifference(missing, "only ours holds an entry");
  // An operator c10 lacks.
  auto without_add = c10().tables;
  without_add.erase("aten::add.Tensor");
  const TableComparison absent = compareWithReplay(recording().rows, without_add, c10().keys);
  EXPECT_FALSE(absent.tablesEqual());
  EXPECT_EQ(absent.operators_only_in_ours, std::vector<std::string>{"aten::add.Tensor"});
}

TEST(C10TableComparison, ARecordingOfAnotherLibtorchIsAnError) {
  Workload other = recording();
  other.comments.front() = "# libtorch 2.14 (Debian libtorch-dev 2.14.1+dfsg-1): another release";
  EXPECT_THROW(checkRecordedFromThisLibtorch(other, c10()), std::runtime_error);
  Workload fewer = recording();
  for (std::string& comment : fewer.comments) {
    if (comment.rfind("# c10_after_load\toperators\t", 0) == 0) comment = "# c10_after_load\toperators\t12";
  }
  EXPECT_THROW(checkRecordedFromThisLibtorch(fewer, c10()), std::runtime_error);
}

}  // namespace
}  // namespace dispatch::workload
