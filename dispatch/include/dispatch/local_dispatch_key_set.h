#pragma once
// Thread-local included/excluded key sets and their RAII guards (docs/semantics.md §5.5).

#include "dispatch/key_sets.h"

namespace dispatch {

namespace detail {
// Constant-initialised with the defaults (no run-time initialisation, no XOR on the call path;
// PyTorch XORs with the defaults so that its zero-initialised TLS means "defaults"). `kept` is
// what a call ANDs with: every key but the excluded ones, and every backend bit (set difference
// keeps backend bits, Note [Key Set Encoding]).
struct RawLocalDispatchKeySet {
  uint64_t included;
  uint64_t excluded;
  uint64_t kept;
};
constexpr RawLocalDispatchKeySet makeRawLocalDispatchKeySet(DispatchKeySet included,
                                                            DispatchKeySet excluded) noexcept {
  return {included.raw_repr(), excluded.raw_repr(),
          ~excluded.raw_repr() | DispatchKeySet::full_backend_mask};
}
inline thread_local RawLocalDispatchKeySet raw_local_dispatch_key_set =
    makeRawLocalDispatchKeySet(default_included_set, default_excluded_set);
}  // namespace detail

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

inline LocalDispatchKeySet tls_local_dispatch_key_set() noexcept {
  const auto& raw = detail::raw_local_dispatch_key_set;
  return {DispatchKeySet(DispatchKeySet::RAW, raw.included),
          DispatchKeySet(DispatchKeySet::RAW, raw.excluded)};
}

// ((args | included) - excluded): two operations with memory operands.
inline DispatchKeySet applyTlsToArgs(DispatchKeySet args) noexcept {
  const auto& raw = detail::raw_local_dispatch_key_set;
  return DispatchKeySet(DispatchKeySet::RAW, (args.raw_repr() | raw.included) & raw.kept);
}

// Replaces the whole thread-local state (used by guards and by tests that restore a snapshot).
inline void set_tls_local_dispatch_key_set(LocalDispatchKeySet ks) noexcept {
  detail::raw_local_dispatch_key_set = detail::makeRawLocalDispatchKeySet(ks.included, ks.excluded);
}

// Restores the state it found when it goes out of scope.
class LocalDispatchKeySetGuard {
 public:
  LocalDispatchKeySetGuard() noexcept : saved_(tls_local_dispatch_key_set()) {}
  ~LocalDispatchKeySetGuard() { set_tls_local_dispatch_key_set(saved_); }
  LocalDispatchKeySetGuard(const LocalDispatchKeySetGuard&) = delete;
  LocalDispatchKeySetGuard& operator=(const LocalDispatchKeySetGuard&) = delete;

 private:
  LocalDispatchKeySet saved_;
};

// Adds keys to the included set for its lifetime.
class IncludeDispatchKeyGuard : LocalDispatchKeySetGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet ks) noexcept {
    auto tls = tls_local_dispatch_key_set();
    tls.included = tls.included | ks;
    set_tls_local_dispatch_key_set(tls);
  }
  explicit IncludeDispatchKeyGuard(DispatchKey k) noexcept
      : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
};

// Adds keys to the excluded set for its lifetime.
class ExcludeDispatchKeyGuard : LocalDispatchKeySetGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet ks) noexcept {
    auto tls = tls_local_dispatch_key_set();
    tls.excluded = tls.excluded | ks;
    set_tls_local_dispatch_key_set(tls);
  }
  explicit ExcludeDispatchKeyGuard(DispatchKey k) noexcept
      : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
};

// Dispatch below autograd: excludes every autograd key (c10's AutoDispatchBelowAutograd).
class AutoDispatchBelowAutograd : public ExcludeDispatchKeyGuard {
 public:
  AutoDispatchBelowAutograd() noexcept : ExcludeDispatchKeyGuard(autograd_dispatch_keyset) {}
};

// Dispatch below ADInplaceOrView too (c10's AutoDispatchBelowADInplaceOrView).
class AutoDispatchBelowADInplaceOrView : public ExcludeDispatchKeyGuard {
 public:
  AutoDispatchBelowADInplaceOrView() noexcept
      : ExcludeDispatchKeyGuard(autograd_dispatch_keyset_with_ADInplaceOrView) {}
};

}  // namespace dispatch
