#pragma once
// c10's computed dispatch tables of every operator libtorch holds, read in this process (linking
// libtorch ran its start-up registrations), as text for bench/workloads/table_comparison.h. This
// header names no libtorch type.
#include <map>
#include <string>
#include <vector>

#include "bench/workloads/workload.h"

namespace dispatch::workload {

struct C10Tables {
  std::string release;                        // "1.13": the headers' TORCH_VERSION_MAJOR.MINOR
  std::vector<std::string> keys;              // every key dumpComputedTable can print: Undefined, the runtime keys
  std::map<std::string, std::string> tables;  // operatorKey(name, overload) -> dumpComputedTable()
};

// Throws std::runtime_error when c10 holds no operator.
C10Tables readC10Tables();

// Throws std::runtime_error unless the recording was made from this libtorch: the same release
// ("# libtorch X.Y" in its first line) and as many operators as its "c10_after_load operators"
// line says c10 held after the load.
void checkRecordedFromThisLibtorch(const Workload& recording, const C10Tables& c10);

}  // namespace dispatch::workload
