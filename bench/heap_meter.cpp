#include "heap_meter.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

namespace {

// Single-threaded programs only (no atomics: they would be part of what is measured).
bool counting = false;
long long live_bytes = 0;
long long peak_bytes = 0;

void count(void* p) {
  if (!counting) return;
  live_bytes += static_cast<long long>(malloc_usable_size(p));
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
}

void* allocate(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  count(p);
  return p;
}

void* allocateAligned(size_t size, std::align_val_t align) {
  const auto alignment = static_cast<size_t>(align);
  void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  count(p);
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (counting) live_bytes -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

namespace bench {
void startHeapCounting() { counting = true; }
HeapBytes heapBytes() { return {live_bytes, peak_bytes}; }
void resetHeapPeak() { peak_bytes = live_bytes; }
}  // namespace bench

void* operator new(size_t size) { return allocate(size); }
void* operator new[](size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }
void* operator new(size_t size, std::align_val_t align) { return allocateAligned(size, align); }
void* operator new[](size_t size, std::align_val_t align) { return allocateAligned(size, align); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { release(p); }
