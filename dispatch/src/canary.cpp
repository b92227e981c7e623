#include "dispatch/canary.h"

#include <cstdio>

namespace dispatch {

const char* activeCanary() noexcept {
#define DISPATCH_DETAIL_CANARY(name) \
  if (DISPATCH_CANARY_IS(name)) return #name;
  DISPATCH_DETAIL_CANARY(mobile_fallback_overflow)
  DISPATCH_DETAIL_CANARY(backend_loop_off_by_one)
  DISPATCH_DETAIL_CANARY(stale_autograd_other)
  DISPATCH_DETAIL_CANARY(mobile_lookup_unchecked)
  DISPATCH_DETAIL_CANARY(alias_fallback_unexpanded)
  DISPATCH_DETAIL_CANARY(remove_clears_backend_bits)
  DISPATCH_DETAIL_CANARY(kernel_stack_erase_front)
  DISPATCH_DETAIL_CANARY(iterator_skips_last_backend)
#undef DISPATCH_DETAIL_CANARY
  return nullptr;
}

namespace {
// A canary build says so loudly, once per process, before anything else runs.
[[maybe_unused]] const bool announced = [] {
  if (const char* name = activeCanary()) {
    std::fprintf(stderr,
                 "*** DISPATCH CANARY BUILD: the bug '%s' is planted on purpose. Never ship this "
                 "build. ***\n",
                 name);
  }
  return true;
}();
}  // namespace

}  // namespace dispatch
