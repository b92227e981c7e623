// What every stale-slot repro shares: kernels that say who they are, and a probe that compares
// a slot of the live dispatch table with c10's own recomputation of it (dumpComputedTable).
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A boxed kernel that returns its own name, so a probe can tell kernels apart by calling them
// (c10's checkInvariants compares function pointers only, which kernels of one type share).
struct Named final : c10::OperatorKernel {
  explicit Named(std::string n) : name(std::move(n)) {}
  void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack* stack) {
    stack->clear();
    stack->emplace_back(name);
  }
  std::string name;
};
torch::CppFunction kernel(const std::string& name) {
  return torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Named>(name)).debug(name);
}

// The operator of every repro: repro::op, defined as long as the returned library lives.
std::unique_ptr<torch::Library> defineOp() {
  auto lib = std::make_unique<torch::Library>(torch::Library::DEF, "repro", c10::nullopt, __FILE__, __LINE__);
  lib->def("op(Tensor self) -> str");
  return lib;
}

std::unique_ptr<torch::Library> impl(c10::optional<c10::DispatchKey> key, const std::string& name) {
  auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "repro", key, __FILE__, __LINE__);
  lib->impl("op", kernel(name));
  return lib;
}

// The live slot: what a call that lands on `key` runs (redispatch reads the live table; a
// fallthrough or the ambiguous kernel raises an error that names it). Probe only keys without a
// start-up fallback: libtorch's own (e.g. the Autograd<backend> ones) expect real arguments.
std::string live(const c10::OperatorHandle& op, c10::DispatchKey key) {
  if (!op.hasComputedKernelForDispatchKey(key)) return "missing";
  torch::jit::Stack stack;
  try {
    op.redispatchBoxed(c10::DispatchKeySet(key), &stack);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (what.find("fallthrough") != std::string::npos) return "fallthrough";
    if (what.find("mapped to AutogradOther") != std::string::npos) return "ambiguous";
    return "error: " + what.substr(0, what.find('\n'));
  }
  return stack.empty() || !stack.back().isString() ? "a start-up kernel" : stack.back().toStringRef();
}

// The slot as c10 recomputes it, in the same words as live().
std::string computed(const c10::OperatorHandle& op, c10::DispatchKey key) {
  std::istringstream table(op.dumpComputedTable());
  const std::string prefix = c10::toString(key) + std::string(": ");
  for (std::string line; std::getline(table, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string entry = line.substr(prefix.size());
    if (entry.rfind("fallthrough ", 0) == 0) return "fallthrough";
    if (entry.find("[ambiguous autogradother]") != std::string::npos) return "ambiguous";
    const std::string name = entry.substr(0, entry.find(" ["));
    return name.rfind("k", 0) == 0 ? name : "a start-up kernel";
  }
  return "missing";
}

// Prints each slot, live against computed, and c10's own invariant check; 1 while a slot is stale.
int report(const std::vector<c10::DispatchKey>& keys) {
  auto op = c10::Dispatcher::singleton().findOp(c10::OperatorName("repro::op", ""));
  int status = 0;
  for (auto key : keys) {
    const std::string observed = live(*op, key), expected = computed(*op, key);
    std::cout << c10::toString(key) << ": observed " << observed << ", expected " << expected
              << (observed == expected ? "" : "  <- STALE") << "\n";
    if (observed != expected) status = 1;
  }
  try {
    op->checkInvariants();
    std::cout << "checkInvariants: holds\n";
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    std::cout << "checkInvariants: FAILED (" << what.substr(0, what.find('\n')) << ")\n";
    status = 1;
  }
  return status;
}

}  // namespace
