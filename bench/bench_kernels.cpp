#include "bench_env.h"

namespace bench {

// Out of line and reached through a pointer, so the compiler can neither inline nor
// devirtualise it: the floor every dispatched call is compared with.
__attribute__((noinline)) int64_t directKernel(const dispatch::Tensor& t) { return kernelBody(t); }

int64_t (*volatile direct_kernel_ptr)(const dispatch::Tensor&) = &directKernel;

}  // namespace bench
