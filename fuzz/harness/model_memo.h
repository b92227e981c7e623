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
// (first thing in LLVMFuzzerTestOneInput): references returned by get() stay valid until then
// (answers live in a std::deque, which never moves its elements when it grows).
//
// Speed: a lookup is the harness's cost, not the library's, and it runs for every value of every
// input. It is an open-addressing table (linear probing, power-of-two size, at most half full)
// rather than std::unordered_map, whose lookup (a division per hash, a node walk) was a tenth of
// table_index_fuzzer's time, and the lookup is built without coverage instrumentation
// (MODEL_MEMO_NO_COVERAGE): its branches say nothing about the library, yet under
// -fsanitize=fuzzer each of them called a trace-cmp hook and added features for libFuzzer to
// collect after every input. compute() runs the model, which keeps its own instrumentation.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#if defined(__clang__)
#define MODEL_MEMO_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define MODEL_MEMO_NO_COVERAGE
#endif

namespace dispatch::fuzz {

template <class Key, class Value, class Hash = std::hash<Key>>
class ModelMemo {
 public:
  explicit ModelMemo(size_t capacity = size_t{1} << 16) : capacity_(capacity) {}

  // The answer for `key`, computing it with compute() the first time it is asked.
  template <class Compute>
  MODEL_MEMO_NO_COVERAGE const Value& get(const Key& key, Compute&& compute) {
    if (!slots_.empty()) {
      for (size_t i = slotOf(key); slots_[i].value != nullptr; i = next(i)) {
        if (slots_[i].key == key) return *slots_[i].value;
      }
    }
    const Value& answer = values_.emplace_back(std::forward<Compute>(compute)());
    if (2 * values_.size() > slots_.size()) rehash(slots_.empty() ? kInitialSlots : 2 * slots_.size());
    insert(Slot{key, &answer});  // probed again: compute() may have asked this memo too
    return answer;
  }

  void trim() {
    if (values_.size() <= capacity_) return;
    slots_.clear();
    values_.clear();
  }

  size_t size() const { return values_.size(); }

 private:
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    Key key{};
    const Value* value = nullptr;  // nullptr: an empty slot
  };

  // The caller's hash, spread over the high bits (Fibonacci hashing): std::hash of an integer
  // is the integer itself, and masking its low bits would cluster the set values.
  MODEL_MEMO_NO_COVERAGE size_t slotOf(const Key& key) const {
    const uint64_t h = static_cast<uint64_t>(Hash{}(key)) * 0x9e3779b97f4a7c15ULL;
    return static_cast<size_t>(h >> shift_);
  }

  MODEL_MEMO_NO_COVERAGE size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  MODEL_MEMO_NO_COVERAGE void insert(const Slot& slot) {
    size_t i = slotOf(slot.key);
    while (slots_[i].value != nullptr) i = next(i);
    slots_[i] = slot;
  }

  // Grows the slot array; the answers stay where they are (only the slots move).
  MODEL_MEMO_NO_COVERAGE void rehash(size_t slot_count) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(slot_count, Slot{});
    shift_ = 64;
    for (size_t n = slot_count; n > 1; n >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.value != nullptr) insert(s);
    }
  }

  size_t capacity_;
  std::vector<Slot> slots_;  // a power of two, at most half of them used
  std::deque<Value> values_;
  unsigned shift_ = 64;  // 64 - log2(slots_.size())
};

}  // namespace dispatch::fuzz
