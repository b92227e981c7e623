// Only for running dispatch_torch_bench under valgrind (bench/run.sh sets LD_PRELOAD for the
// callgrind runs of the torch cases). Debian's libtorch_cpu pulls in libhwy (via OpenCV ->
// libjxl), whose static initializer calibrates a timer with RDTSCP. Valgrind 3.19 rejects RDTSCP
// when CPUID does not advertise it (as on this VM) and the process dies with SIGILL before main.
// This replaces that calibration (hwy::platform::TimerResolution, reached through libhwy's PLT);
// nothing on the dispatch path uses it.
#include <cstdint>

namespace hwy::platform {
__attribute__((visibility("default"))) uint64_t TimerResolution() { return 1; }
}  // namespace hwy::platform
