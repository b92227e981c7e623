#include "probe.h"

// A CompositeImplicitAutograd kernel, then a kernel for QuantizedCPU (one of the backends that
// share AutogradOther): AutogradOther must become the ambiguous kernel; it keeps the math kernel.
int main() {
  auto def = defineOp();
  auto math = impl(c10::DispatchKey::CompositeImplicitAutograd, "k0");
  auto quantized = impl(c10::DispatchKey::QuantizedCPU, "k1");
  return report({c10::DispatchKey::AutogradOther, c10::DispatchKey::AutogradCPU});
}
