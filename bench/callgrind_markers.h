#pragma once
// Brackets the measured call loop for callgrind (the driver and the PyTorch comparison share it);
// no-ops when valgrind's header is not installed. run.sh diffs the counts of N and 2N calls.

#if defined(DISPATCH_BENCH_HAVE_CALLGRIND_H)
#include <valgrind/callgrind.h>
#define BENCH_START() CALLGRIND_START_INSTRUMENTATION
#define BENCH_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define BENCH_START() ((void)0)
#define BENCH_STOP() ((void)0)
#endif
