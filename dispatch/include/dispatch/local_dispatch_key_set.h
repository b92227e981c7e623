#pragma once
// Thread-local included/excluded key sets and their RAII guards (spec 5.5).

#include "dispatch/key_sets.h"

namespace dispatch {

namespace detail {
// Stored XOR'ed with the defaults so that the zero-initialised TLS means "defaults".
struct RawLocalDispatchKeySet {
  uint64_t included_xor_default = 0;
  uint64_t excluded_xor_default = 0;
};
inline thread_local RawLocalDispatchKeySet raw_local_dispatch_key_set;
}  // namespace detail

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

inline LocalDispatchKeySet tls_local_dispatch_key_set() noexcept {
  const auto& raw = detail::raw_local_dispatch_key_set;
  return {DispatchKeySet(DispatchKeySet::RAW,
                         raw.included_xor_default ^ default_included_set.raw_repr()),
          DispatchKeySet(DispatchKeySet::RAW,
                         raw.excluded_xor_default ^ default_excluded_set.raw_repr())};
}

// Replaces the whole thread-local state (used by guards and by tests that restore a snapshot).
inline void set_tls_local_dispatch_key_set(LocalDispatchKeySet ks) noexcept {
  detail::raw_local_dispatch_key_set = {
      ks.included.raw_repr() ^ default_included_set.raw_repr(),
      ks.excluded.raw_repr() ^ default_excluded_set.raw_repr()};
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
