#pragma once
// DispatchKeySet: 64 bits, backend bits low, functionality bits above (docs/semantics.md §2).

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <iterator>
#include <string>

#include "dispatch/dispatch_key.h"

namespace dispatch {

// Note [Key Set Encoding]
// Bit b - 1 is backend b (b = 1 .. num_backends); bit num_backends + f - 1 is functionality f
// (f = 1 .. 40). A per-backend runtime key is (functionality bit | backend bit). The runtime keys
// a set holds are its plain functionalities plus the cross product (per-backend functionalities
// x backends): {AutogradCUDA, CPU} == {CUDA, AutogradCPU}. Set difference and remove() clear
// functionality bits only; remove_backend() is the one way to clear a backend bit.
class DispatchKeySet final {
 public:
  enum Full { FULL };
  enum FullAfter { FULL_AFTER };
  enum Raw { RAW };

  static constexpr uint64_t full_backend_mask = (uint64_t{1} << num_backends) - 1;

  constexpr DispatchKeySet() noexcept = default;  // the empty set: all bits zero
  constexpr DispatchKeySet(Full) noexcept
      : repr_((uint64_t{1} << (num_backends + num_functionality_keys - 1)) - 1) {}
  // All backend bits plus every functionality strictly below t's functionality, plus
  // PythonDispatcher (1.13). Only meaningful for functionality-level keys (docs/semantics.md §2.1).
  constexpr DispatchKeySet(FullAfter, DispatchKey t) noexcept
      : repr_(((uint64_t{1} << (num_backends + toUnderlying(toFunctionalityKey(t)) - 1)) - 1) |
              functionalityBit(DispatchKey::PythonDispatcher)) {}
  constexpr DispatchKeySet(Raw, uint64_t bits) noexcept : repr_(bits) {}

  constexpr explicit DispatchKeySet(BackendComponent b) noexcept : repr_(backendBit(b)) {}

  // Undefined and alias keys give the empty set; values outside the enum too.
  constexpr explicit DispatchKeySet(DispatchKey k) noexcept : repr_(bitsOf(k)) {}

  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) noexcept {
    for (auto k : keys) repr_ |= bitsOf(k);
  }
  constexpr DispatchKeySet(std::initializer_list<BackendComponent> backends) noexcept {
    for (auto b : backends) repr_ |= backendBit(b);
  }

  // --- membership ---
  // Both bits of a per-backend runtime key must be present. has(Undefined) is false.
  constexpr bool has(DispatchKey k) const noexcept {
    const uint64_t s = bitsOf(k);
    return s != 0 && (repr_ & s) == s;
  }
  constexpr bool has_backend(BackendComponent b) const noexcept {
    const uint64_t bit = backendBit(b);
    return bit != 0 && (repr_ & bit) != 0;
  }
  constexpr bool has_all(DispatchKeySet ks) const noexcept {
    return (repr_ & ks.repr_) == ks.repr_;
  }
  constexpr bool isSupersetOf(DispatchKeySet ks) const noexcept { return has_all(ks); }
  // Meaningless when ks mixes backend bits and per-backend functionality bits (docs/semantics.md §2.2).
  constexpr bool has_any(DispatchKeySet ks) const noexcept { return (repr_ & ks.repr_) != 0; }
  constexpr bool empty() const noexcept { return repr_ == 0; }
  constexpr uint64_t raw_repr() const noexcept { return repr_; }

  // --- algebra ---
  constexpr DispatchKeySet operator|(DispatchKeySet o) const noexcept { return raw(repr_ | o.repr_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const noexcept { return raw(repr_ & o.repr_); }
  constexpr DispatchKeySet operator^(DispatchKeySet o) const noexcept { return raw(repr_ ^ o.repr_); }
  // Keeps every backend bit of *this (Note [Key Set Encoding]).
  constexpr DispatchKeySet operator-(DispatchKeySet o) const noexcept {
    return raw(repr_ & (full_backend_mask | ~o.repr_));
  }
  constexpr DispatchKeySet& operator|=(DispatchKeySet o) noexcept { repr_ |= o.repr_; return *this; }
  constexpr DispatchKeySet& operator&=(DispatchKeySet o) noexcept { repr_ &= o.repr_; return *this; }
  constexpr bool operator==(const DispatchKeySet&) const noexcept = default;

  [[nodiscard]] constexpr DispatchKeySet add(DispatchKey k) const noexcept {
    return raw(repr_ | bitsOf(k));
  }
  [[nodiscard]] constexpr DispatchKeySet add(DispatchKeySet ks) const noexcept { return *this | ks; }
  // Clears only k's functionality bit: {CPU, CUDA}.remove(CPU) removes Dense for all backends.
  [[nodiscard]] constexpr DispatchKeySet remove(DispatchKey k) const noexcept {
    return raw(repr_ & ~(bitsOf(k) & ~full_backend_mask));
  }
  [[nodiscard]] constexpr DispatchKeySet remove_backend(BackendComponent b) const noexcept {
    return raw(repr_ & ~backendBit(b));
  }

  // --- priority queries (docs/semantics.md §2.5) ---
  static constexpr uint8_t indexOfHighestBit(uint64_t x) noexcept {
    return static_cast<uint8_t>(64 - std::countl_zero(x));
  }
  // Undefined when there is no functionality bit. Raw patterns above the last functionality give
  // values past EndOfFunctionalityKeys, which no consumer indexes with (see table_layout.h).
  constexpr DispatchKey highestFunctionalityKey() const noexcept {
    const uint8_t i = indexOfHighestBit(repr_);
    if (i <= num_backends) return DispatchKey::Undefined;
    return static_cast<DispatchKey>(i - num_backends);
  }
  constexpr BackendComponent highestBackendKey() const noexcept {
    return static_cast<BackendComponent>(indexOfHighestBit(repr_ & full_backend_mask));
  }
  constexpr DispatchKey highestPriorityTypeId() const noexcept {
    const DispatchKey f = highestFunctionalityKey();
    if (isPerBackendFunctionalityKey(f)) {
      return toRuntimePerBackendFunctionalityKey(f, highestBackendKey());
    }
    return f;
  }
  // 0-based index of the highest backend bit; 0 both for CPU and for "no backend".
  constexpr uint8_t getBackendIndex() const noexcept {
    return indexOfHighestBit((repr_ & full_backend_mask) >> 1);
  }

  // --- iteration: runtime keys only, ascending priority (docs/semantics.md §2.6) ---
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = DispatchKey;
    using difference_type = std::ptrdiff_t;
    using reference = DispatchKey;
    using pointer = void;

    constexpr iterator() noexcept = default;
    constexpr DispatchKey operator*() const noexcept {
      if (functionality_ >= num_functionality_keys) return DispatchKey::EndOfFunctionalityKeys;
      const auto f = static_cast<DispatchKey>(functionality_);
      if (!isPerBackendFunctionalityKey(f)) return f;
      return toRuntimePerBackendFunctionalityKey(f, static_cast<BackendComponent>(backend_));
    }
    constexpr iterator& operator++() noexcept {
      advance();
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      iterator old = *this;
      advance();
      return old;
    }
    constexpr bool operator==(const iterator& o) const noexcept {
      return functionality_ == o.functionality_ && backend_ == o.backend_;
    }

   private:
    friend class DispatchKeySet;
    static constexpr uint8_t kEnd = num_functionality_keys;

    constexpr explicit iterator(uint64_t repr) noexcept : repr_(repr) {
      // Start "before" functionality 1 and step onto the first runtime key.
      functionality_ = 0;
      backend_ = 0;
      advance();
    }

    // Moves to the next (functionality, backend) position that names a runtime key.
    constexpr void advance() noexcept {
      if (functionality_ >= kEnd) return;
      const uint64_t backends = repr_ & full_backend_mask;
      if (functionality_ != 0 && isPerBackendFunctionalityKey(static_cast<DispatchKey>(functionality_))) {
        uint64_t higher = backends & ~((uint64_t{1} << backend_) - 1);  // bits >= backend_
        if (higher != 0) {
          backend_ = static_cast<uint8_t>(std::countr_zero(higher) + 1);
          return;
        }
      }
      for (;;) {
        const uint64_t above =
            (repr_ >> num_backends) & ~((uint64_t{1} << functionality_) - 1);  // f > current
        const uint64_t valid = above & ((uint64_t{1} << (kEnd - 1)) - 1);     // f <= 40
        if (valid == 0) {
          functionality_ = kEnd;
          backend_ = 0;
          return;
        }
        functionality_ = static_cast<uint8_t>(std::countr_zero(valid) + 1);
        backend_ = 0;
        if (!isPerBackendFunctionalityKey(static_cast<DispatchKey>(functionality_))) return;
        if (backends != 0) {
          backend_ = static_cast<uint8_t>(std::countr_zero(backends) + 1);
          return;
        }
      }
    }

    uint64_t repr_ = 0;
    uint8_t functionality_ = kEnd;  // 1..40, or kEnd
    uint8_t backend_ = 0;           // BackendComponent value of the current per-backend key
  };

  constexpr iterator begin() const noexcept { return iterator(repr_); }
  constexpr iterator end() const noexcept { return iterator(); }

  // Number of runtime keys the iterator yields.
  constexpr int size() const noexcept {
    int n = 0;
    for ([[maybe_unused]] DispatchKey k : *this) ++n;
    return n;
  }

 private:
  static constexpr DispatchKeySet raw(uint64_t bits) noexcept { return DispatchKeySet(RAW, bits); }
  static constexpr uint64_t backendBit(BackendComponent b) noexcept {
    const uint8_t v = toUnderlying(b);
    return (v == 0 || v > num_backends) ? 0 : uint64_t{1} << (v - 1);
  }
  static constexpr uint64_t functionalityBit(DispatchKey f) noexcept {
    const uint16_t v = toUnderlying(f);
    return (v == 0 || v > num_functionality_keys) ? 0 : uint64_t{1} << (num_backends + v - 1);
  }
  // S(k) of docs/semantics.md §2.1. The sentinel EndOfFunctionalityKeys yields its bit (outside FULL).
  static constexpr uint64_t bitsOf(DispatchKey k) noexcept {
    if (k <= DispatchKey::EndOfFunctionalityKeys) return functionalityBit(k);
    if (k <= DispatchKey::EndOfRuntimeBackendKeys) {
      return functionalityBit(toFunctionalityKey(k)) | backendBit(toBackendComponent(k));
    }
    return 0;  // alias keys and values outside the enum are not representable
  }

  uint64_t repr_ = 0;
};

// Prints "DispatchKeySet(k1, k2, ...)" in iteration order (lowest priority first).
std::string toString(DispatchKeySet ks);
std::ostream& operator<<(std::ostream& out, DispatchKeySet ks);

static_assert(DispatchKeySet(DispatchKey::CPU).raw_repr() == 0x4001);
static_assert(DispatchKeySet(DispatchKey::CUDA).raw_repr() == 0x4002);
static_assert(DispatchKeySet(DispatchKey::QuantizedCPU).raw_repr() == 0x80001);
static_assert(DispatchKeySet(DispatchKey::AutogradCPU).raw_repr() == 0x2000000001);
static_assert(DispatchKeySet(DispatchKey::FPGA).raw_repr() == 0x8000);
static_assert(DispatchKeySet(DispatchKey::Dense).raw_repr() == 0x4000);
static_assert(DispatchKeySet(DispatchKeySet::FULL).raw_repr() == 0x003FFFFFFFFFFFFF);
static_assert(DispatchKeySet(DispatchKeySet::FULL).size() == 105);
static_assert(!DispatchKeySet(DispatchKeySet::FULL).has(DispatchKey::EndOfFunctionalityKeys));

}  // namespace dispatch
