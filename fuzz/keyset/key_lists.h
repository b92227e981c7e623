#pragma once
// keyset_fuzzer's key lists: what the library's iteration of a set yielded, in a fixed buffer
// (no allocation per set), and the harness-only comparisons of such lists with the model's.
//
// The comparisons run for every set and every key of it, and they are the harness's, not the
// library's: under -fsanitize=fuzzer each comparison in them called a trace-cmp hook, and the
// hooks were a third of the fuzzer's time while telling libFuzzer nothing about the library.
// They are built without coverage instrumentation (KEYSET_HARNESS_ONLY) and never call library
// code, so every library call stays in instrumented code (the library's key-set code is inline
// and is compiled into the target; an inlined copy in an uninstrumented function would be
// invisible to libFuzzer).

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "oracle/model/model.h"

#if defined(__clang__)
#define KEYSET_HARNESS_ONLY [[gnu::noinline]] __attribute__((no_sanitize("coverage")))
#else
#define KEYSET_HARNESS_ONLY [[gnu::noinline]]
#endif

namespace dispatch::fuzz::keyset {

// The runtime keys of FULL, the largest set (docs/semantics.md §2.6).
inline constexpr size_t kMaxRuntimeKeys = 105;

// The keys an iteration yielded. It holds one key more than any set has, so the caller can stop
// an iteration that does not end and still see that it yielded too many.
class KeyList {
 public:
  static constexpr size_t kCapacity = kMaxRuntimeKeys + 1;
  bool full() const { return size_ == kCapacity; }
  void push(DispatchKey k) { keys_[size_++] = k; }  // only when !full()
  const DispatchKey* data() const { return keys_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::vector<DispatchKey> toVector() const { return {keys_.begin(), keys_.begin() + static_cast<long>(size_)}; }

 private:
  std::array<DispatchKey, kCapacity> keys_{};
  size_t size_ = 0;
};

KEYSET_HARNESS_ONLY inline bool sameKeys(const DispatchKey* a, size_t a_size, const DispatchKey* b, size_t b_size) {
  if (a_size != b_size) return false;
  for (size_t i = 0; i < a_size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}
inline bool sameKeys(const KeyList& a, const std::vector<DispatchKey>& b) {
  return sameKeys(a.data(), a.size(), b.data(), b.size());
}
inline bool sameKeys(const KeyList& a, const KeyList& b) { return sameKeys(a.data(), a.size(), b.data(), b.size()); }

// The position of the first key that is not a runtime key in strictly ascending priority (the
// model's order of every runtime key, model::allRuntimeKeys), or keys.size() when there is none.
KEYSET_HARNESS_ONLY inline size_t firstOutOfOrder(const KeyList& keys) {
  // rank[value] = 1 + position in allRuntimeKeys(); 0 for a value that is no runtime key.
  static const std::array<uint8_t, 1 << 16> rank = [] {
    std::array<uint8_t, 1 << 16> r{};
    const auto& order = dispatch::model::allRuntimeKeys();
    for (size_t i = 0; i < order.size(); ++i) r[toUnderlying(order[i])] = static_cast<uint8_t>(i + 1);
    return r;
  }();
  static_assert(kMaxRuntimeKeys < 255);
  // Raw pointers in the loop: std::array's and KeyList's accessors are instrumented, and a
  // function built without coverage does not inline them (they would stay calls per key).
  const uint8_t* const ranks = rank.data();
  const DispatchKey* const data = keys.data();
  const size_t size = keys.size();
  unsigned previous = 0;
  for (size_t i = 0; i < size; ++i) {
    const unsigned r = ranks[static_cast<uint16_t>(data[i])];
    if (r == 0 || r <= previous) return i;
    previous = r;
  }
  return size;
}

}  // namespace dispatch::fuzz::keyset
