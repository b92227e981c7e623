#include "probe.h"

// A CompositeImplicitAutograd kernel, then a CompositeExplicitAutograd one: the math kernel must
// leave the autograd and nested slots (CompositeExplicitAutograd counts as a backend kernel
// there); they keep it.
int main() {
  auto def = defineOp();
  auto math = impl(c10::DispatchKey::CompositeImplicitAutograd, "k0");
  auto explicit_ = impl(c10::DispatchKey::CompositeExplicitAutograd, "k1");
  return report({c10::DispatchKey::AutogradPrivateUse3, c10::DispatchKey::NestedTensorCPU, c10::DispatchKey::CPU});
}
