// Unit test of the structure-aware mutator (harness/trace_mutator.h): every output decodes to
// whole actions (the mutation's own list, re-read by the target's decoder), and each operation
// does what it says: insert adds one action, delete removes one, duplicate copies one, swap
// exchanges two neighbours, a field change alters exactly the field it names, a splice is a
// prefix of one trace and a suffix of the other.

#include "harness/trace_mutator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using dispatch::fuzz::Actions;
using dispatch::fuzz::ActionField;
using dispatch::fuzz::ActionSource;
using dispatch::fuzz::Rng;
using dispatch::fuzz::TraceEdit;
using dispatch::oracle::Action;
using dispatch::oracle::ActionWeights;
using dispatch::oracle::decodeActions;
using dispatch::oracle::encodeActions;

const ActionWeights* const kTraceWeights[] = {&dispatch::oracle::kRegistrationWeights,
                                              &dispatch::oracle::kFallbackWeights,
                                              &dispatch::oracle::kLibraryWeights};
constexpr int kRounds = 400;

// A decoded trace of 0 .. 20 random actions (what the fuzzer hands the mutator).
Actions randomTrace(const ActionWeights& weights, Rng& rng) {
  std::vector<uint8_t> bytes(rng() % 48);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return decodeActions(bytes.data(), bytes.size(), weights);
}

Actions without(Actions actions, size_t index) {
  actions.erase(actions.begin() + static_cast<std::ptrdiff_t>(index));
  return actions;
}

// The fields a ChangeField may alter, and what else must stay as it was.
bool equalExcept(Action a, Action b, ActionField field) {
  switch (field) {
    case ActionField::Operator: b.op = a.op; break;
    case ActionField::Key:
      b.key = a.key;
      b.keys = a.keys;
      b.other = a.other;
      break;
    case ActionField::KernelKind: b.kind = a.kind; break;
    case ActionField::Handle: b.handle = a.handle; break;
    case ActionField::Block:
      b.block = a.block;
      b.key = a.key;
      break;
    case ActionField::Signature: b.signature = a.signature; break;
    case ActionField::Stack: b.call = a.call; break;
  }
  return a == b;
}

TEST(TraceMutator, InsertAddsOneActionAndKeepsTheRest) {
  for (const ActionWeights* weights : kTraceWeights) {
    const ActionSource source(*weights, {});
    Rng rng(1);
    for (int round = 0; round < kRounds; ++round) {
      const Actions before = randomTrace(*weights, rng);
      Actions after = before;
      const auto done = dispatch::fuzz::insertAction(after, source, rng);
      ASSERT_TRUE(done);
      EXPECT_EQ(done->edit, TraceEdit::Insert);
      ASSERT_EQ(after.size(), before.size() + 1);
      EXPECT_EQ(without(after, done->index), before);
    }
  }
}

TEST(TraceMutator, DeleteRemovesTheActionItNames) {
  Rng rng(2);
  for (int round = 0; round < kRounds; ++round) {
    const Actions before = randomTrace(dispatch::oracle::kRegistrationWeights, rng);
    Actions after = before;
    const auto done = dispatch::fuzz::deleteAction(after, rng);
    if (before.empty()) {
      EXPECT_FALSE(done);
      continue;
    }
    ASSERT_TRUE(done);
    EXPECT_EQ(after, without(before, done->index));
  }
}

TEST(TraceMutator, DuplicateCopiesOneActionToAnotherPlace) {
  Rng rng(3);
  for (int round = 0; round < kRounds; ++round) {
    const Actions before = randomTrace(dispatch::oracle::kFallbackWeights, rng);
    Actions after = before;
    const auto done = dispatch::fuzz::duplicateAction(after, ActionSource(dispatch::oracle::kFallbackWeights, {}), rng);
    if (before.empty()) {
      EXPECT_FALSE(done);
      continue;
    }
    ASSERT_TRUE(done);
    EXPECT_EQ(after[done->index], before[done->source]);
    EXPECT_EQ(without(after, done->index), before);
  }
}

TEST(TraceMutator, SwapExchangesTwoDifferentNeighbours) {
  Rng rng(4);
  int swapped = 0;
  for (int round = 0; round < kRounds; ++round) {
    const Actions before = randomTrace(dispatch::oracle::kRegistrationWeights, rng);
    Actions after = before;
    const auto done = dispatch::fuzz::swapNeighbours(after, rng);
    if (!done) {
      EXPECT_EQ(after, before);
      continue;
    }
    ++swapped;
    const size_t i = done->index;
    EXPECT_NE(before[i], before[i + 1]);
    EXPECT_EQ(after[i], before[i + 1]);
    EXPECT_EQ(after[i + 1], before[i]);
    Actions back = after;
    std::swap(back[i], back[i + 1]);
    EXPECT_EQ(back, before);
  }
  EXPECT_GT(swapped, kRounds / 2);
}

TEST(TraceMutator, ChangeFieldAltersExactlyTheNamedField) {
  for (const ActionWeights* weights : kTraceWeights) {
    const ActionSource source(*weights, {});
    Rng rng(5);
    int seen[dispatch::fuzz::kNumActionFields] = {};
    for (int round = 0; round < kRounds * 4; ++round) {
      const Actions before = randomTrace(*weights, rng);
      Actions after = before;
      const auto done = dispatch::fuzz::changeField(after, source, rng);
      if (!done) {
        EXPECT_EQ(after, before);
        continue;
      }
      ASSERT_TRUE(done->field);
      ++seen[static_cast<int>(*done->field)];
      ASSERT_EQ(after.size(), before.size());
      for (size_t i = 0; i < before.size(); ++i) {
        if (i != done->index) {
          EXPECT_EQ(after[i], before[i]);
        }
      }
      EXPECT_NE(after[done->index], before[done->index]);
      EXPECT_TRUE(equalExcept(after[done->index], before[done->index], *done->field))
          << "round " << round << ": changed more than field " << static_cast<int>(*done->field);
    }
    // Block belongs to library blocks (weights that pick them), Signature and Stack to
    // declared-schema actions (declared_mutator_test.cpp).
    const bool blocks = weights->weight[static_cast<int>(dispatch::oracle::ActionKind::LibraryBlock)] > 0;
    for (int field = 0; field < dispatch::fuzz::kNumActionFields; ++field) {
      const bool changes = field <= static_cast<int>(ActionField::Handle) ||
                           (blocks && field == static_cast<int>(ActionField::Block));
      if (changes) {
        EXPECT_GT(seen[field], 0) << "field " << field << " never changed";
      } else {
        EXPECT_EQ(seen[field], 0) << "field " << field << " changed";
      }
    }
  }
}

TEST(TraceMutator, SpliceIsAPrefixOfOneAndASuffixOfTheOther) {
  Rng rng(6);
  const ActionWeights& weights = dispatch::oracle::kRegistrationWeights;
  for (int round = 0; round < kRounds; ++round) {
    const Actions first = randomTrace(weights, rng);
    const Actions second = randomTrace(weights, rng);
    const Actions spliced = dispatch::fuzz::spliceTraces(first, second, ActionSource(weights, {}), rng);
    ASSERT_LE(spliced.size(), weights.max_actions);
    bool explained = false;
    for (size_t i = 0; i <= first.size() && !explained; ++i) {
      for (size_t j = 0; j <= second.size() && !explained; ++j) {
        Actions candidate(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(i));
        candidate.insert(candidate.end(), second.begin() + static_cast<std::ptrdiff_t>(j), second.end());
        if (candidate.size() > weights.max_actions) candidate.resize(weights.max_actions);
        explained = candidate == spliced;
      }
    }
    EXPECT_TRUE(explained) << "round " << round;
  }
}

// The byte-level entry point: whatever it does, the output decodes, and a structural edit's
// output decodes to exactly one edit away from the input (re-encoding loses nothing).
TEST(TraceMutator, EveryMutatedInputDecodesAndStaysWithinMaxSize) {
  for (const ActionWeights* weights : kTraceWeights) {
    Rng rng(7);
    int structural = 0;
    int by_bytes = 0;
    for (int round = 0; round < kRounds * 4; ++round) {
      const Actions trace = randomTrace(*weights, rng);
      const std::vector<uint8_t> input = encodeActions(trace, *weights);
      const size_t max_size = 512;
      std::vector<uint8_t> data(max_size);
      std::copy(input.begin(), input.end(), data.begin());
      bool bytes_called = false;
      const auto stand_in = [&](uint8_t* d, size_t size, size_t) {
        bytes_called = true;
        d[0] ^= 1;  // any byte change; what libFuzzer does is not under test here
        return size == 0 ? size_t{1} : size;
      };
      const size_t size = dispatch::fuzz::mutateTrace(*weights, data.data(), input.size(), max_size,
                                                      static_cast<unsigned>(rng()), stand_in);
      ASSERT_LE(size, max_size);
      const Actions after = decodeActions(data.data(), size, *weights);
      EXPECT_LE(after.size(), weights->max_actions);
      if (bytes_called) {
        ++by_bytes;
        continue;
      }
      ++structural;
      // One edit: the lengths differ by at most one, and the output re-encodes to itself.
      const auto diff = static_cast<long>(after.size()) - static_cast<long>(trace.size());
      EXPECT_LE(diff < 0 ? -diff : diff, 1);
      EXPECT_EQ(encodeActions(after, *weights), std::vector<uint8_t>(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(size)));
    }
    EXPECT_GT(by_bytes, 0);
    EXPECT_GT(structural, by_bytes);  // a quarter of the calls go to the byte mutators
  }
}

TEST(TraceMutator, CrossOverDecodesToASpliceOfItsInputs) {
  Rng rng(8);
  const ActionWeights& weights = dispatch::oracle::kFallbackWeights;
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<uint8_t> a = encodeActions(randomTrace(weights, rng), weights);
    const std::vector<uint8_t> b = encodeActions(randomTrace(weights, rng), weights);
    std::vector<uint8_t> out(512);
    const size_t size = dispatch::fuzz::crossOverTraces(weights, a.data(), a.size(), b.data(), b.size(),
                                                        out.data(), out.size(), static_cast<unsigned>(rng()));
    if (size == 0) continue;
    const Actions spliced = decodeActions(out.data(), size, weights);
    const Actions first = decodeActions(a.data(), a.size(), weights);
    const Actions second = decodeActions(b.data(), b.size(), weights);
    EXPECT_NE(spliced, first);
    // A prefix of the first input, then the rest from the second.
    size_t prefix = 0;
    while (prefix < first.size() && prefix < spliced.size() && spliced[prefix] == first[prefix]) ++prefix;
    bool explained = false;
    for (size_t cut = 0; cut <= prefix && !explained; ++cut) {
      const Actions rest(spliced.begin() + static_cast<std::ptrdiff_t>(cut), spliced.end());
      if (spliced.size() == weights.max_actions) {  // cut short: a run of the second, not its end
        explained = std::search(second.begin(), second.end(), rest.begin(), rest.end()) != second.end();
      } else {
        explained = rest.size() <= second.size() &&
                    std::equal(rest.begin(), rest.end(), second.end() - static_cast<std::ptrdiff_t>(rest.size()));
      }
    }
    EXPECT_TRUE(explained) << "round " << round;
  }
}

}  // namespace
