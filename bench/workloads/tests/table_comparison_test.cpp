// The table comparison (bench/workloads/table_comparison.h) against a copy of our own tables,
// printed as c10 prints its tables (the "#<seq> " of each debug name taken off): a slice of the
// 1.13.1 recording compares equal, slot by slot, each entry resolved to its recorded row; each
// planted difference is caught and named. The comparison with c10 itself needs libtorch
// (bench/workloads/c10/, label c10); this part runs pre-merge.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "bench/workloads/table_comparison.h"

namespace dispatch::workload {
namespace {

const std::vector<Row>& slice() {
  static const std::vector<Row> rows =
      operatorSlice(readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-1.13-startup.tsv.gz").rows, 10);
  return rows;
}

// Our computed tables after replaying `rows`, in c10's words: "#<seq> " removed from each debug.
std::map<std::string, std::string> oursAsC10Prints(const std::vector<Row>& rows) {
  Replay<FullLayout> replay;
  for (Call& call : translate(rows).calls) EXPECT_FALSE(replay.apply(std::move(call)).has_value());
  static const std::regex seq(R"(^([^:\n]+: (?:fallthrough )?)#[0-9]+ )", std::regex::multiline);
  std::map<std::string, std::string> tables;
  for (const OperatorName& name : replay.dispatcher().getAllOpNames()) {
    tables[operatorKey(name.name, name.overload_name)] =
        std::regex_replace(replay.dispatcher().findOp(name)->dumpComputedTable(), seq, "$1");
  }
  return tables;
}

long verdictCount(const TableComparison& report, SlotVerdict verdict) {
  const auto it = report.verdicts.find(verdict);
  return it == report.verdicts.end() ? 0 : it->second;
}

TEST(TableComparison, OurTablesAsC10WouldPrintThemCompareEqual) {
  const auto tables = oursAsC10Prints(slice());
  ASSERT_GE(tables.size(), 200u);
  const TableComparison report = compareWithReplay(slice(), tables, ourTableKeys<FullLayout>());
  EXPECT_TRUE(report.tablesEqual()) << report.summary();
  EXPECT_EQ(report.operators, static_cast<long>(tables.size()));
  EXPECT_EQ(report.slots, report.operators * static_cast<long>(ourTableKeys<FullLayout>().size()));
  for (SlotVerdict verdict : {SlotVerdict::Missing, SlotVerdict::Kernel, SlotVerdict::FallthroughKernel,
                              SlotVerdict::Fallback, SlotVerdict::FallthroughFallback}) {
    EXPECT_GT(verdictCount(report, verdict), 0) << toString(verdict);
  }
  EXPECT_EQ(verdictCount(report, SlotVerdict::Different), 0);
}

// The first operator whose table has a CPU kernel line, and that table with the line replaced.
struct Planted {
  std::string op;
  std::map<std::string, std::string> tables;
};
template <class Plant>
Planted plantOnCpu(Plant plant) {
  Planted planted{"", oursAsC10Prints(slice())};
  for (auto& [op, table] : planted.tables) {
    const size_t cpu = table.find("\nCPU: ");
    if (cpu == std::string::npos || table.find(" [kernel]", cpu) > table.find('\n', cpu + 1)) continue;
    const size_t end = table.find('\n', cpu + 1);
    table = table.substr(0, cpu + 1) + plant(table.substr(cpu + 1, end - cpu - 1)) + table.substr(end);
    planted.op = op;
    return planted;
  }
  ADD_FAILURE() << "no operator of the slice has a CPU kernel";
  return planted;
}

void expectOneDifference(const Planted& planted, const std::string& why) {
  const TableComparison report = compareWithReplay(slice(), planted.tables, ourTableKeys<FullLayout>());
  EXPECT_FALSE(report.tablesEqual());
  ASSERT_EQ(report.differences.size(), 1u) << report.summary();
  EXPECT_EQ(report.differences.front().op, planted.op);
  EXPECT_EQ(report.differences.front().key, "CPU");
  EXPECT_EQ(report.differences.front().why, why);
}

TEST(TableComparison, EachPlantedDifferenceIsCaught) {
  expectOneDifference(plantOnCpu([](const std::string&) { return "CPU: registered at nowhere.cpp:1 [kernel]"; }),
                      "c10's entry matches no recorded registration of that key and debug");
  expectOneDifference(
      plantOnCpu([](const std::string& line) { return line.substr(0, line.rfind(" [")) + " [math kernel]"; }),
      "the tags differ");
  expectOneDifference(plantOnCpu([](const std::string& line) { return "CPU: fallthrough" + line.substr(4); }),
                      "one is a fallthrough, the other not");
  expectOneDifference(plantOnCpu([](const std::string&) { return "CPU: ambiguous_autogradother [ambiguous autogradother]"; }),
                      "the tags differ");
  // The line gone: the other side says missing.
  expectOneDifference(plantOnCpu([](const std::string&) { return std::string(); }), "only ours holds an entry");
}

TEST(TableComparison, AnOperatorOrAKeyOnlyOneSideHasIsCounted) {
  auto tables = oursAsC10Prints(slice());
  const std::string dropped = tables.begin()->first;
  tables.erase(tables.begin());
  tables["aten::not_in_ours."] = "";
  const TableComparison operators = compareWithReplay(slice(), tables, ourTableKeys<FullLayout>());
  EXPECT_FALSE(operators.tablesEqual());
  EXPECT_EQ(operators.operators_only_in_ours, std::vector<std::string>{dropped});
  EXPECT_EQ(operators.operators_only_in_c10, std::vector<std::string>{"aten::not_in_ours."});

  // A key only the other side prints, never holding anything: counted, and the tables still equal.
  auto keys = ourTableKeys<FullLayout>();
  keys.push_back("KeyOnlyTheOtherHas");
  const TableComparison extra_key = compareWithReplay(slice(), oursAsC10Prints(slice()), keys);
  EXPECT_TRUE(extra_key.tablesEqual()) << extra_key.summary();
  EXPECT_EQ(extra_key.keys_only_in_c10, (std::map<std::string, long>{{"KeyOnlyTheOtherHas", 0}}));
  // A key the other side lacks where ours holds entries: not equal.
  keys = ourTableKeys<FullLayout>();
  std::erase(keys, "CPU");
  auto without_cpu = oursAsC10Prints(slice());
  static const std::regex cpu_line(R"(^CPU: .*\n)", std::regex::multiline);
  for (auto& [op, table] : without_cpu) table = std::regex_replace(table, cpu_line, "");
  const TableComparison lacking = compareWithReplay(slice(), without_cpu, keys);
  EXPECT_FALSE(lacking.tablesEqual());
  EXPECT_GT(lacking.keys_only_in_ours.at("CPU"), 0);
  EXPECT_TRUE(lacking.differences.empty()) << lacking.summary();
}

TEST(TableComparison, ADebugTextOfSeveralRowsIsOnlyTheSameDebug) {
  // Two default-backend kernels of one debug text: c10's entry resolves to both rows.
  std::vector<Row> rows(3);
  rows[0] = Row{0, "def", 1, "aten::f", "", "-", "-", "aten::f(Tensor self) -> Tensor", "d"};
  rows[1] = Row{1, "impl", 1, "aten::f", "", "CompositeExplicitAutograd", "typed", "", "same"};
  rows[2] = Row{2, "impl", 1, "aten::f", "", "CompositeExplicitAutogradNonFunctional", "typed", "", "same"};
  const TableComparison report = compareWithReplay(rows, oursAsC10Prints(rows), ourTableKeys<FullLayout>());
  EXPECT_TRUE(report.tablesEqual()) << report.summary();
  EXPECT_GT(verdictCount(report, SlotVerdict::SameDebugOnly), 0);
  EXPECT_EQ(verdictCount(report, SlotVerdict::Kernel), 0);
}

TEST(TableComparison, AMalformedTableIsAnError) {
  EXPECT_THROW(parseComputedTable("CPU registered at x [kernel]\n"), std::runtime_error);
  EXPECT_THROW(parseComputedTable("CPU: x [kernel]\nCPU: y [kernel]\n"), std::runtime_error);
  EXPECT_EQ(parseComputedTable("CPU: fallthrough d [backend fallback]\n").at("CPU"),
            (TableSlot{true, "d", "backend fallback"}));
  EXPECT_THROW(compareWithReplay(slice(), {}, ourTableKeys<FullLayout>()), std::runtime_error);
}

}  // namespace
}  // namespace dispatch::workload
