#include "probe.h"

// A CompositeExplicitAutograd kernel and a CompositeImplicitAutograd one, then the first is
// dropped: the autograd and nested slots must take the math kernel again; they stay as they were.
int main() {
  auto def = defineOp();
  auto explicit_ = impl(c10::DispatchKey::CompositeExplicitAutograd, "k0");
  auto math = impl(c10::DispatchKey::CompositeImplicitAutograd, "k1");
  explicit_.reset();
  return report({c10::DispatchKey::AutogradPrivateUse3, c10::DispatchKey::NestedTensorCPU, c10::DispatchKey::CPU});
}
