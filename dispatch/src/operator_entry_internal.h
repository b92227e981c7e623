#pragma once
// What operator_entry.cpp and operator_entry_invariants.cpp share: the keys a table can hold and
// the alias-kernel summary a row recomputation reads. Private to the library's sources.

#include <map>
#include <vector>

#include "dispatch/operator_entry.h"

namespace dispatch {

namespace detail {
// Whether every registration, drop and fallback change compares the refreshed row with its full
// recomputation (Note [Table Equals Recomputation]): sanitizer and fuzz builds
// (dispatch/CMakeLists.txt), not release builds.
#ifndef DISPATCH_CHECK_TABLE_REFRESH
#define DISPATCH_CHECK_TABLE_REFRESH 0
#endif
inline constexpr bool kCheckTableRefresh = DISPATCH_CHECK_TABLE_REFRESH != 0;

// Undefined, then every runtime key in ascending priority: the keys a table can hold.
template <class Fn>
void forEachTableKey(Fn&& fn) {
  fn(DispatchKey::Undefined);
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) fn(k);
}

// A table key of layout L and its slot.
struct SlotKey {
  DispatchKey key;
  int index;
};

// The keys of forEachTableKey that have a slot in L, in that order, listed once per layout: a
// row recomputation runs on every registration, and walking all runtime keys with the key-set
// iterator and asking each for its slot was a tenth of a fuzz input's cost.
template <class L>
const std::vector<SlotKey>& slotKeys() {
  static const std::vector<SlotKey> keys = [] {
    std::vector<SlotKey> listed;
    forEachTableKey([&](DispatchKey k) {
      if (const int index = L::indexOf(k); index >= 0) listed.push_back({k, index});
    });
    return listed;
  }();
  return keys;
}
}  // namespace detail

// What a row recomputation needs to know about the alias kernels, gathered once per row.
template <class L>
struct BasicOperatorEntry<L>::KernelSummary {
  const AnnotatedKernel* cia = nullptr;
  const AnnotatedKernel* cia_nested = nullptr;
  const AnnotatedKernel* cea = nullptr;
  const AnnotatedKernel* ceanf = nullptr;
  const AnnotatedKernel* autograd = nullptr;
  // The entry's kernel lists, read in place: a copy of their runtime keys cost a heap
  // allocation per registration, and only steps 4 and 6 read them, with a CIA kernel.
  const std::map<DispatchKey, KernelList>* kernels = nullptr;

  // hasKernelForAnyDispatchKey of docs/semantics.md §4.4: alias entries do not count (they sort
  // last in the map: the alias keys end the enum).
  bool anyKernelIn(DispatchKeySet ks) const {
    for (const auto& [key, list] : *kernels) {
      if (isAliasDispatchKey(key)) break;
      if (ks.has(key)) return true;
    }
    return false;
  }
};

}  // namespace dispatch
