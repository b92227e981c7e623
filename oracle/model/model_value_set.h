#pragma once
// The reference model's set of small values (oracle/model/model_key_set.h): the functionalities, the
// backends or the unknown functionality values of a KeySet. An ordered set of the values
// 0 .. N-1 of an enum or int, kept as one flag per value (std::bitset), so that building and
// combining key sets allocates nothing: under ASan a std::set per part made every model answer
// cost a hundred times the library call it checks. It is still a set of values, indexed by the
// value itself; it knows nothing of the library's raw bit layout.
//
// Every member is always inlined: an out-of-line copy would be shared by the linker between the
// model's objects (built without coverage instrumentation in the fuzz preset) and the harness's
// (instrumented), and the model would then run the instrumented copy.

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <set>

#define DISPATCH_MODEL_INLINE [[gnu::always_inline]] inline

namespace dispatch::model {

template <class T, int N>
class ValueSet {
 public:
  using value_type = T;

  ValueSet() = default;

  // Ascending values, as std::set iterates.
  class const_iterator {
   public:
    DISPATCH_MODEL_INLINE const_iterator(const ValueSet* set, int index) : set_(set), index_(index) { skipAbsent(); }
    DISPATCH_MODEL_INLINE T operator*() const { return static_cast<T>(index_); }
    DISPATCH_MODEL_INLINE const_iterator& operator++() {
      ++index_;
      skipAbsent();
      return *this;
    }
    DISPATCH_MODEL_INLINE bool operator==(const const_iterator& o) const { return index_ == o.index_; }

   private:
    DISPATCH_MODEL_INLINE void skipAbsent() {
      while (index_ < N && !set_->flags_[static_cast<size_t>(index_)]) ++index_;
    }
    const ValueSet* set_;
    int index_;
  };
  using iterator = const_iterator;

  DISPATCH_MODEL_INLINE const_iterator begin() const { return {this, 0}; }
  DISPATCH_MODEL_INLINE const_iterator end() const { return {this, N}; }

  // A value outside 0 .. N-1 is a model bug: std::bitset::set throws std::out_of_range.
  DISPATCH_MODEL_INLINE void insert(T v) { flags_.set(index(v)); }
  DISPATCH_MODEL_INLINE void erase(T v) {
    if (inRange(v)) flags_.reset(index(v));
  }
  DISPATCH_MODEL_INLINE size_t count(T v) const { return inRange(v) && flags_[index(v)] ? 1 : 0; }
  DISPATCH_MODEL_INLINE bool empty() const { return flags_.none(); }
  DISPATCH_MODEL_INLINE size_t size() const { return flags_.count(); }
  // The largest value; only for a non-empty set.
  DISPATCH_MODEL_INLINE T max() const {
    int i = N - 1;
    while (i > 0 && !flags_[static_cast<size_t>(i)]) --i;
    return static_cast<T>(i);
  }

  // Union, intersection, symmetric difference, difference, subset.
  DISPATCH_MODEL_INLINE ValueSet operator|(const ValueSet& o) const { return ValueSet(flags_ | o.flags_); }
  DISPATCH_MODEL_INLINE ValueSet operator&(const ValueSet& o) const { return ValueSet(flags_ & o.flags_); }
  DISPATCH_MODEL_INLINE ValueSet operator^(const ValueSet& o) const { return ValueSet(flags_ ^ o.flags_); }
  DISPATCH_MODEL_INLINE ValueSet minus(const ValueSet& o) const { return ValueSet(flags_ & ~o.flags_); }
  DISPATCH_MODEL_INLINE bool isSubsetOf(const ValueSet& o) const { return (flags_ & ~o.flags_).none(); }

  bool operator==(const ValueSet&) const = default;
  DISPATCH_MODEL_INLINE friend bool operator==(const ValueSet& a, const std::set<T>& b) {
    return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
  }

 private:
  explicit ValueSet(const std::bitset<N>& flags) : flags_(flags) {}
  DISPATCH_MODEL_INLINE static bool inRange(T v) { return 0 <= static_cast<long>(v) && static_cast<long>(v) < N; }
  DISPATCH_MODEL_INLINE static size_t index(T v) { return static_cast<size_t>(static_cast<long>(v)); }

  std::bitset<N> flags_;
};

}  // namespace dispatch::model

#undef DISPATCH_MODEL_INLINE
