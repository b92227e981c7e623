#include "probe.h"

// A CompositeImplicitAutograd kernel, then a kernel for NestedTensorCPU: AutogradNestedTensor must
// stop taking the math kernel (a nested backend now has its own kernel); it keeps it.
int main() {
  auto def = defineOp();
  auto math = impl(c10::DispatchKey::CompositeImplicitAutograd, "k0");
  auto nested = impl(c10::DispatchKey::NestedTensorCPU, "k1");
  return report({c10::DispatchKey::AutogradNestedTensor, c10::DispatchKey::NestedTensorCPU});
}
