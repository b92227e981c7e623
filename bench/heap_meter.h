#pragma once
// Counts the bytes the program holds on the heap: global operator new/delete are replaced
// (heap_meter.cpp) to keep the live total and its peak, from malloc_usable_size, once counting is
// switched on (off, the replacements only test a flag, so instruction counts of the same binary
// stay those of plain new/delete). A program links heap_meter.cpp to measure the memory of what it
// builds (workload_replay: a dispatcher holding PyTorch's start-up set).
#include <cstddef>

namespace bench {

struct HeapBytes {
  long long live = 0;  // since counting started (blocks allocated before and freed since count negative)
  long long peak = 0;  // since the last resetHeapPeak()
};

// Switch on before anything to be measured is allocated; there is no switching off.
void startHeapCounting();
HeapBytes heapBytes();
// Starts a new peak at the current live total.
void resetHeapPeak();

}  // namespace bench
