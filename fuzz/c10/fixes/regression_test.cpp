// Regression tests for the stale-table family, in the style of PyTorch's
// aten/src/ATen/core/op_registration/op_registration_test.cpp: register and drop kernels in
// every order and require c10's own invariant (every slot equals its recomputation) after each
// step.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

using c10::DispatchKey;

// Distinct functions, so that checkInvariants (which compares function pointers) tells them apart.
template <int I>
at::Tensor kernel(const at::Tensor& x) {
  return x;
}
torch::CppFunction kernelNumber(size_t i) {
  switch (i) {
    case 0: return torch::CppFunction(TORCH_FN(kernel<0>));
    case 1: return torch::CppFunction(TORCH_FN(kernel<1>));
    case 2: return torch::CppFunction(TORCH_FN(kernel<2>));
    default: return torch::CppFunction(TORCH_FN(kernel<3>));
  }
}

void expectTableEqualsRecomputation(const std::string& after) {
  auto op = c10::Dispatcher::singleton().findSchema({"_test_stale::fn", ""});
  ASSERT_TRUE(op.has_value());
  EXPECT_NO_THROW(op->checkInvariants()) << "after " << after;
}

// Registers one kernel per key of `keys` in `ctor_order`, then drops them in `dtor_order`,
// checking the invariant after every step.
void runInOrder(const std::vector<DispatchKey>& keys, const std::vector<size_t>& ctor_order,
                const std::vector<size_t>& dtor_order) {
  auto m = MAKE_TORCH_LIBRARY(_test_stale);
  m.def("fn(Tensor x) -> Tensor");
  std::vector<std::unique_ptr<torch::Library>> impls(keys.size());
  std::string steps;
  for (size_t i : ctor_order) {
    impls[i] = std::make_unique<torch::Library>(torch::Library::IMPL, "_test_stale", keys[i], __FILE__, __LINE__);
    impls[i]->impl("fn", kernelNumber(i));
    steps += std::string(" +") + c10::toString(keys[i]);
    expectTableEqualsRecomputation(steps);
  }
  for (size_t i : dtor_order) {
    impls[i].reset();
    steps += std::string(" -") + c10::toString(keys[i]);
    expectTableEqualsRecomputation(steps);
  }
}

// Every registration order, each with every drop order (test_dispatch.py's commute()).
void expectCommutes(const std::vector<DispatchKey>& keys) {
  std::vector<size_t> ctor_order(keys.size());
  std::iota(ctor_order.begin(), ctor_order.end(), 0);
  do {
    std::vector<size_t> dtor_order(keys.size());
    std::iota(dtor_order.begin(), dtor_order.end(), 0);
    do {
      runInOrder(keys, ctor_order, dtor_order);
    } while (std::next_permutation(dtor_order.begin(), dtor_order.end()));
  } while (std::next_permutation(ctor_order.begin(), ctor_order.end()));
}

// test: stale-autogradother
TEST(OperatorRegistrationStaleTableTest, givenMathKernel_whenRegisteringAutogradOtherBackend_thenAutogradOtherBecomesAmbiguous) {
  expectCommutes({DispatchKey::CompositeImplicitAutograd, DispatchKey::QuantizedCPU});
  expectCommutes({DispatchKey::CompositeImplicitAutograd, DispatchKey::SparseCPU});
}

// test: stale-autogradnestedtensor
TEST(OperatorRegistrationStaleTableTest, givenMathKernel_whenRegisteringNestedTensorBackend_thenAutogradNestedTensorDropsMathKernel) {
  expectCommutes({DispatchKey::CompositeImplicitAutograd, DispatchKey::NestedTensorCPU});
}

// test: stale-after-compositeexplicitautograd stale-after-dropping-compositeexplicitautograd
TEST(OperatorRegistrationStaleTableTest, givenMathKernel_whenRegisteringOrDroppingCompositeExplicitAutograd_thenAutogradAndNestedSlotsFollow) {
  expectCommutes({DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeExplicitAutograd});
}

// test: all
TEST(OperatorRegistrationStaleTableTest, givenCompositeAndBackendKernels_thenEveryOrderKeepsTableEqualToRecomputation) {
  expectCommutes({DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeExplicitAutograd,
                  DispatchKey::QuantizedCPU, DispatchKey::NestedTensorCPU});
}

}  // namespace
