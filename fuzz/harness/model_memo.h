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
#include <memory>
#include <type_traits>
#include <utility>

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
  ModelMemo(const ModelMemo&) = delete;
  ModelMemo& operator=(const ModelMemo&) = delete;

  // The answer for `key`, computing it with compute() the first time it is asked.
  template <class Compute>
  MODEL_MEMO_NO_COVERAGE const Value& get(const Key& key, Compute&& compute) {
    Slot* const slots = slots_.get();
    if (slots != nullptr) {
      for (size_t i = slotOf(key); slots[i].value != nullptr; i = (i + 1) & mask_) {
        if (slots[i].key == key) return *slots[i].value;
      }
    }
    const Value& answer = values_.emplace_back(std::forward<Compute>(compute)());
    if (2 * values_.size() > mask_) rehash(slots == nullptr ? kInitialSlots : 2 * (mask_ + 1));
    insert(Slot{key, &answer});  // probed again: compute() may have asked this memo too
    return answer;
  }

  void trim() {
    if (values_.size() <= capacity_) return;
    slots_.reset();
    mask_ = 0;
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
  // is the integer itself, and masking its low bits would cluster the set values. Plain
  // integers are hashed here, not through std::hash: a function built without coverage does
  // not inline one built with it (clang keeps the two apart), so every std:: call in these
  // lookups would stay a call.
  MODEL_MEMO_NO_COVERAGE size_t slotOf(const Key& key) const {
    uint64_t h = 0;
    if constexpr (std::is_integral_v<Key> && std::is_same_v<Hash, std::hash<Key>>) {
      h = static_cast<uint64_t>(key);
    } else {
      h = static_cast<uint64_t>(Hash{}(key));
    }
    return static_cast<size_t>((h * 0x9e3779b97f4a7c15ULL) >> shift_);
  }

  MODEL_MEMO_NO_COVERAGE void insert(const Slot& slot) {
    Slot* const slots = slots_.get();
    size_t i = slotOf(slot.key);
    while (slots[i].value != nullptr) i = (i + 1) & mask_;
    slots[i] = slot;
  }

  // Grows the slot array; the answers stay where they are (only the slots move).
  void rehash(size_t slot_count) {
    std::unique_ptr<Slot[]> old = std::move(slots_);
    const size_t old_count = old ? mask_ + 1 : 0;
    slots_ = std::make_unique<Slot[]>(slot_count);
    mask_ = slot_count - 1;
    shift_ = 64;
    for (size_t n = slot_count; n > 1; n >>= 1) --shift_;
    for (size_t i = 0; i < old_count; ++i) {
      if (old[i].value != nullptr) insert(old[i]);
    }
  }

  size_t capacity_;
  std::unique_ptr<Slot[]> slots_;  // a power of two of them, at most half used
  size_t mask_ = 0;                // slot count - 1
  unsigned shift_ = 64;            // 64 - log2(slot count)
  std::deque<Value> values_;
};

}  // namespace dispatch::fuzz
