// Unit test of the fuzz harness's model memo (harness/model_memo.h): keyset_fuzzer and
// table_index_fuzzer trust it to hand back, for every value, the answer the model computed for
// that value and no other, across the growth of its slot array and its trim().

#include "harness/model_memo.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

using dispatch::fuzz::ModelMemo;

// The model stand-in: a pure function whose answer names its argument.
std::string answerFor(uint64_t key) { return "answer " + std::to_string(key); }

TEST(ModelMemo, ComputesEachKeyOnceAndReturnsItsOwnAnswer) {
  ModelMemo<uint64_t, std::string> memo;
  size_t computed = 0;
  const auto ask = [&](uint64_t key) -> const std::string& {
    return memo.get(key, [&] {
      ++computed;
      return answerFor(key);
    });
  };
  // Keys that differ only in high bits, or by multiples of the slot count, must not be confused.
  const std::vector<uint64_t> keys = {0, 1, 1024, 2048, uint64_t{1} << 40, (uint64_t{1} << 40) + 1, ~uint64_t{0}};
  for (uint64_t k : keys) EXPECT_EQ(ask(k), answerFor(k));
  for (uint64_t k : keys) EXPECT_EQ(ask(k), answerFor(k));
  EXPECT_EQ(computed, keys.size());
  EXPECT_EQ(memo.size(), keys.size());
}

TEST(ModelMemo, AnswersStayPutWhileTheTableGrows) {
  ModelMemo<uint64_t, std::string> memo;
  std::vector<const std::string*> first;
  constexpr uint64_t kKeys = 20000;  // many doublings of the 1024 initial slots
  for (uint64_t k = 0; k < kKeys; ++k) {
    first.push_back(&memo.get(k * 0x10001, [&] { return answerFor(k * 0x10001); }));
  }
  for (uint64_t k = 0; k < kKeys; ++k) {
    const std::string& again = memo.get(k * 0x10001, [] { return std::string("recomputed"); });
    ASSERT_EQ(&again, first[k]) << "key " << k;
    ASSERT_EQ(again, answerFor(k * 0x10001));
  }
}

// Every key in one probe chain: only the key comparison tells them apart.
struct CollidingHash {
  size_t operator()(uint64_t) const { return 7; }
};

TEST(ModelMemo, KeysWithTheSameHashKeepTheirOwnAnswers) {
  ModelMemo<uint64_t, std::string, CollidingHash> memo;
  for (uint64_t k = 0; k < 3000; ++k) memo.get(k, [&] { return answerFor(k); });
  for (uint64_t k = 0; k < 3000; ++k) {
    ASSERT_EQ(memo.get(k, [] { return std::string("recomputed"); }), answerFor(k)) << "key " << k;
  }
}

TEST(ModelMemo, ComputeMayAskTheSameMemo) {
  ModelMemo<uint64_t, uint64_t> memo;
  // fib(n) through the memo: each compute() asks for two smaller keys, growing the table
  // in the middle of an outer get().
  std::function<uint64_t(uint64_t)> fib = [&](uint64_t n) -> uint64_t {
    return memo.get(n, [&] { return n < 2 ? n : fib(n - 1) + fib(n - 2); });
  };
  EXPECT_EQ(fib(90), uint64_t{2880067194370816120});
  for (uint64_t n = 2; n <= 90; ++n) {
    EXPECT_EQ(memo.get(n, [] { return uint64_t{0}; }),
              memo.get(n - 1, [] { return uint64_t{0}; }) + memo.get(n - 2, [] { return uint64_t{0}; }));
  }
}

TEST(ModelMemo, TrimEmptiesOnlyAMemoPastItsCapacity) {
  ModelMemo<uint64_t, std::string> memo(/*capacity=*/4);
  for (uint64_t k = 0; k < 4; ++k) memo.get(k, [&] { return answerFor(k); });
  memo.trim();
  EXPECT_EQ(memo.size(), 4u);
  memo.get(4, [] { return answerFor(4); });
  memo.trim();
  EXPECT_EQ(memo.size(), 0u);
  size_t computed = 0;
  EXPECT_EQ(memo.get(2, [&] {
    ++computed;
    return answerFor(2);
  }),
            answerFor(2));
  EXPECT_EQ(computed, 1u);  // asked afresh after the trim
}

}  // namespace
