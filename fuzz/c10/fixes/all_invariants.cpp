// c10's own invariant check (OperatorHandle::checkInvariants) over every operator libtorch has
// registered by the time main runs: a fix must keep every one passing. Exit 1 on a failure.
#include <ATen/core/dispatch/Dispatcher.h>

#include <iostream>
#include <string>

int main() {
  const auto names = c10::Dispatcher::singleton().getAllOpNames();
  for (const auto& name : names) {
    auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op) continue;
    try {
      op->checkInvariants();
    } catch (const c10::Error& e) {
      const std::string what = e.what_without_backtrace();
      std::cout << "checkInvariants FAILED on " << name << ": " << what.substr(0, what.find('\n')) << "\n";
      return 1;
    }
  }
  std::cout << names.size() << " operators: checkInvariants holds on every one\n";
  return 0;
}
