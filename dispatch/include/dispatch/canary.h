#pragma once
// Planted-bug canaries (issue: prove the harness catches what it exists for). The build defines
// DISPATCH_CANARY_<name>=1 for at most one canary; a normal build defines none and every check
// below is 0. Keep this list in sync with sanitizer_builds/canaries.cmake.

#ifndef DISPATCH_CANARY_mobile_fallback_overflow
#define DISPATCH_CANARY_mobile_fallback_overflow 0
#endif
#ifndef DISPATCH_CANARY_backend_loop_off_by_one
#define DISPATCH_CANARY_backend_loop_off_by_one 0
#endif
#ifndef DISPATCH_CANARY_stale_autograd_other
#define DISPATCH_CANARY_stale_autograd_other 0
#endif
#ifndef DISPATCH_CANARY_mobile_lookup_unchecked
#define DISPATCH_CANARY_mobile_lookup_unchecked 0
#endif
#ifndef DISPATCH_CANARY_alias_fallback_unexpanded
#define DISPATCH_CANARY_alias_fallback_unexpanded 0
#endif
#ifndef DISPATCH_CANARY_remove_clears_backend_bits
#define DISPATCH_CANARY_remove_clears_backend_bits 0
#endif
#ifndef DISPATCH_CANARY_kernel_stack_erase_front
#define DISPATCH_CANARY_kernel_stack_erase_front 0
#endif
#ifndef DISPATCH_CANARY_iterator_skips_last_backend
#define DISPATCH_CANARY_iterator_skips_last_backend 0
#endif

#define DISPATCH_CANARY_IS(name) (DISPATCH_CANARY_##name)

namespace dispatch {
// The planted canary's name, or nullptr in a normal build.
const char* activeCanary() noexcept;
}  // namespace dispatch
