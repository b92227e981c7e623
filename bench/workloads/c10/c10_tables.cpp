#include "bench/workloads/c10/c10_tables.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/DispatchKeySet.h>
#include <torch/version.h>

#include <stdexcept>

#include "bench/workloads/table_comparison.h"

namespace dispatch::workload {

C10Tables readC10Tables() {
  C10Tables out;
  out.release = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
  // dumpComputedTable's own walk: Undefined, then the runtime keys a full set iterates over.
  out.keys.emplace_back(c10::toString(c10::DispatchKey::Undefined));
  for (c10::DispatchKey k : c10::DispatchKeySet(c10::DispatchKeySet::FULL)) out.keys.emplace_back(c10::toString(k));
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    const auto op = dispatcher.findOp(name);
    if (!op) throw std::runtime_error("c10 lists " + c10::toString(name) + " but findOp does not find it");
    out.tables.emplace(operatorKey(name.name, name.overload_name), op->dumpComputedTable());
  }
  if (out.tables.empty()) throw std::runtime_error("c10 holds no operator: libtorch's registrations did not run");
  return out;
}

void checkRecordedFromThisLibtorch(const Workload& recording, const C10Tables& c10) {
  const std::string release_line = "# libtorch " + c10.release + " ";
  if (recording.comments.empty() || recording.comments.front().rfind(release_line, 0) != 0) {
    throw std::runtime_error("the recording is not of libtorch " + c10.release + ": '" +
                             (recording.comments.empty() ? std::string("(no comment line)") : recording.comments.front()) +
                             "'");
  }
  const std::string count_line = "# c10_after_load\toperators\t";
  for (const std::string& comment : recording.comments) {
    if (comment.rfind(count_line, 0) != 0) continue;
    const std::string recorded = comment.substr(count_line.size());
    if (recorded != std::to_string(c10.tables.size())) {
      throw std::runtime_error("the recording's libtorch held " + recorded + " operators after the load, this one holds " +
                               std::to_string(c10.tables.size()) + ": not the libtorch it was recorded from");
    }
    return;
  }
  throw std::runtime_error("the recording has no '# c10_after_load operators' line");
}

}  // namespace dispatch::workload
