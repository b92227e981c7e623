// The fuzzers' incremental check (SeamRunner::step: only what an action can have changed,
// against the model's memoised rows) agrees with the full check (SeamRunner::checkAll: every
// operator slot by slot against entries recomputed from scratch, the printed tables, the
// fallbacks, checkInvariants) after EVERY step, on every committed corpus and regression input
// of the trace fuzzers and on random byte strings decoded as they decode them. Every declared
// flavour.
//
// So the speed-up cannot hide a bug: a step whose incremental check passes while the full check
// finds a difference (an action that changed another operator's row, a stale memo) fails here,
// and so does a memoised row that differs from its recomputation.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/actions/action_codec.h"
#include "oracle/ours/our_dispatcher_runner.h"
#include "prop_support.h"

namespace dispatch::props {
namespace {

// The first step after which the two checks disagree, or the memo differs from recomputation;
// any disagreement with the model is reported too (these inputs must all pass).
template <class L>
std::optional<std::string> checkersDisagree(const std::vector<oracle::Action>& actions) {
  oracle::OurDispatcherRunner<L> runner;
  for (size_t i = 0; i < actions.size(); ++i) {
    const std::string at = std::string(L::kName) + " step " + std::to_string(i) + " (" +
                           oracle::describe(actions[i]) + "): ";
    if (auto incremental = runner.step(actions[i])) return at + "model disagreement: " + *incremental;
    if (auto full = runner.checkAll()) {
      return at + "the incremental check passed but the full check finds: " + *full;
    }
    const model::ModelDispatcher& m = runner.model();
    const auto& slots = model::tableSlots(m.flavour());
    for (int op = 0; op < oracle::kNumOps; ++op) {
      const std::string name = oracle::opName(op);
      const auto& memo = m.computedRow(name);
      for (size_t s = 0; s < slots.size(); ++s) {
        if (!(memo[s] == m.computedEntry(name, slots[s]))) {
          return at + "the model's memoised row of " + name + " is stale at slot " +
                 std::to_string(s) + ": " + model::toString(memo[s]) + " instead of " +
                 model::toString(m.computedEntry(name, slots[s]));
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> checkersDisagreeOnAnyFlavour(const std::vector<oracle::Action>& actions) {
  return AllLayouts::firstOf([&]<class L>() { return checkersDisagree<L>(actions); });
}

std::vector<std::filesystem::path> inputsOf(const std::string& target) {
  std::vector<std::filesystem::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const std::filesystem::path dir = std::filesystem::path(DISPATCH_FUZZ_DIR) / kind / target;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  return files;
}

void checkCommittedInputs(const std::string& target, const oracle::ActionWeights& weights) {
  const auto files = inputsOf(target);
  ASSERT_FALSE(files.empty()) << "no committed inputs of " << target << " under " << DISPATCH_FUZZ_DIR;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto problem = checkersDisagreeOnAnyFlavour(oracle::decodeActions(bytes.data(), bytes.size(), weights));
    EXPECT_FALSE(problem.has_value()) << file << ": " << *problem;
  }
}

TEST(CheckerAgreement, RegistrationFuzzerInputs) {
  checkCommittedInputs("registration_fuzzer", oracle::kRegistrationWeights);
}

TEST(CheckerAgreement, FallbackFuzzerInputs) {
  checkCommittedInputs("fallback_fuzzer", oracle::kFallbackWeights);
}

void randomBytesAgree(const std::vector<uint8_t>& bytes, const oracle::ActionWeights& weights) {
  const auto actions = oracle::decodeActions(bytes.data(), bytes.size(), weights);
  if (auto problem = checkersDisagreeOnAnyFlavour(actions)) RC_FAIL(*problem);
}

}  // namespace

DISPATCH_PROP(CheckerAgreement, RandomRegistrationTraces, 40, 200, (const std::vector<uint8_t>& bytes)) {
  randomBytesAgree(bytes, oracle::kRegistrationWeights);
}

DISPATCH_PROP(CheckerAgreement, RandomFallbackTraces, 40, 200, (const std::vector<uint8_t>& bytes)) {
  randomBytesAgree(bytes, oracle::kFallbackWeights);
}

}  // namespace dispatch::props
