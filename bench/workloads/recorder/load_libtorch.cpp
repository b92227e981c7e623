// Loads libtorch (linking it runs every start-up registration) and prints what c10 holds after
// the load, for record.sh to keep beside the recording as its cross-check:
//   c10_after_load<TAB>operators<TAB>N
//   c10_after_load<TAB>kernels<TAB>KEY<TAB>N    (kernels per key over every operator, from dumpState,
//                                               shadowed ones included)
//   c10_after_load<TAB>invariant_failures<TAB>N (operators whose checkInvariants threw)
#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdio>
#include <exception>
#include <map>
#include <sstream>
#include <string>

namespace {

// dumpState lists one line per registered kernel, "<key>: <debug> :: <schema> [ <kernel> ]",
// after four header lines (name, schema, debug, alias analysis kind) that contain no " :: ".
void countKernels(const std::string& dump, std::map<std::string, long>& per_key) {
  std::istringstream lines(dump);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos || line.find(" :: ") == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    // c10 marks alias keys "Autograd[alias]" and shadowed kernels "CPU (inactive)".
    for (const char* mark : {" (inactive)", "[alias]"}) {
      const auto at = key.find(mark);
      if (at != std::string::npos) key.erase(at, std::string(mark).size());
    }
    ++per_key[key];
  }
}

}  // namespace

int main() {
  auto& dispatcher = c10::Dispatcher::singleton();
  const auto names = dispatcher.getAllOpNames();
  std::map<std::string, long> per_key;
  long invariant_failures = 0;
  for (const auto& name : names) {
    const auto op = dispatcher.findOp(name);
    if (!op.has_value()) continue;
    countKernels(op->dumpState(), per_key);
    try {
      op->checkInvariants();
    } catch (const std::exception& e) {
      ++invariant_failures;
      std::fprintf(stderr, "checkInvariants failed for %s: %s\n", name.name.c_str(), e.what());
    }
  }
  std::printf("c10_after_load\toperators\t%zu\n", names.size());
  for (const auto& [key, count] : per_key) std::printf("c10_after_load\tkernels\t%s\t%ld\n", key.c_str(), count);
  std::printf("c10_after_load\tinvariant_failures\t%ld\n", invariant_failures);
  return 0;
}
