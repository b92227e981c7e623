// c10_table_comparison [RECORDING] -- replays a recorded start-up workload (default: the committed
// libtorch 1.13.1 one) into our dispatcher, full flavour, and compares every operator's computed
// table with the one c10 computes in this very process (it links libtorch, whose start-up made
// those registrations), slot by slot, keys matched by name (bench/workloads/README.md "c10's
// tables beside ours"). Prints the figures and every difference.
// Exit status: 0 every table equal, 1 some differ, 2 the comparison could not be made (no
// recording, a recording of another libtorch, no operators).
#include <cstdio>
#include <exception>
#include <string>

#include "bench/workloads/c10/c10_tables.h"
#include "bench/workloads/table_comparison.h"

int main(int argc, char** argv) {
  using namespace dispatch::workload;
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [RECORDING]\n", argv[0]);
    return 2;
  }
  const std::string path =
      argc == 2 ? argv[1] : std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-1.13-startup.tsv.gz";
  try {
    const Workload recording = readWorkload(path);
    const C10Tables c10 = readC10Tables();
    checkRecordedFromThisLibtorch(recording, c10);
    const TableComparison report = compareWithReplay(recording.rows, c10.tables, c10.keys);
    std::printf("%s: libtorch %s, c10's computed tables against ours after the replay\n%s", path.c_str(),
                c10.release.c_str(), report.summary().c_str());
    std::printf("verdict: %s\n", report.tablesEqual() ? "every table equal" : "tables differ");
    return report.tablesEqual() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "c10_table_comparison: %s\n", e.what());
    return 2;
  }
}
