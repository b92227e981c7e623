#pragma once
// A memo of the reference model's answers, kept across the inputs of one fuzzing process.
//
// Why: the model (oracle/model*.h) is deliberately plain code, and under ASan an answer that
// walks its sets or sorts its lists costs many times the library call it checks. It is also a
// pure function of its arguments, so each distinct question needs computing only once; libFuzzer's
// mutants repeat most of their parent's values, so most questions are answered from here. The
// library is still called, and compared, for every value of every input: only the expected
// side is remembered. Crash inputs replay the same way in a fresh process (the memo then
// starts empty and computes the same answers).
//
// A memo grows between inputs, so libFuzzer's per-input leak check would run every input that
// adds an answer twice: the targets using it set detect_leaks = 0 in their fuzz/options.
//
// Memory: trim() empties a memo that has grown past its capacity. Call it only between inputs
// (first thing in LLVMFuzzerTestOneInput): references returned by get() stay valid until then,
// because std::unordered_map never moves its elements on insertion.

#include <cstddef>
#include <functional>
#include <unordered_map>
#include <utility>

namespace dispatch::fuzz {

template <class Key, class Value, class Hash = std::hash<Key>>
class ModelMemo {
 public:
  explicit ModelMemo(size_t capacity = size_t{1} << 16) : capacity_(capacity) {}

  // The answer for `key`, computing it with compute() the first time it is asked.
  template <class Compute>
  const Value& get(const Key& key, Compute&& compute) {
    if (auto it = map_.find(key); it != map_.end()) return it->second;
    return map_.emplace(key, std::forward<Compute>(compute)()).first->second;
  }

  void trim() {
    if (map_.size() > capacity_) map_.clear();
  }

 private:
  size_t capacity_;
  std::unordered_map<Key, Value, Hash> map_;
};

}  // namespace dispatch::fuzz
