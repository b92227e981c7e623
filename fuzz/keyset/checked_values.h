#pragma once
// The set values keyset_fuzzer has already checked in full during the current input.
//
// A DispatchKeySet is its raw value and nothing else, and the library is pure computation, so
// every derived query (iteration, size, has, the highest-* queries) on a value already checked in
// this input would repeat the earlier check exactly. Runner::checkEntry compares the raw value of
// every set that enters the pool and runs the derived checks once per distinct value. Per input
// only: what an input covers must not depend on the inputs before it.

#include <cstddef>
#include <cstdint>

#include "keyset/key_lists.h"  // KEYSET_HARNESS_ONLY

namespace dispatch::fuzz::keyset {

class CheckedValues {
 public:
  // True the first time `raw` is offered (the caller then checks it); false after that. When the
  // list is full a value is always new: checked again rather than forgotten.
  // A plain array: this function is built without coverage, and such a function does not
  // inline std::array's (instrumented) operator[] (see key_lists.h).
  KEYSET_HARNESS_ONLY bool firstTime(uint64_t raw) {
    for (size_t i = 0; i < size_; ++i) {
      if (values_[i] == raw) return false;
    }
    if (size_ < kCapacity) values_[size_++] = raw;
    return true;
  }

 private:
  static constexpr size_t kCapacity = 128;
  uint64_t values_[kCapacity] = {};  // NOLINT(modernize-avoid-c-arrays): see firstTime
  size_t size_ = 0;
};

}  // namespace dispatch::fuzz::keyset
