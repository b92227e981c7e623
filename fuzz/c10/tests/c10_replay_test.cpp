// Every committed input of the registration, fallback and boxed-call fuzzers (corpus and
// regressions), replayed against c10: each disagreement must be a known upstream bug (known_upstream.
// signatures); the counts per bug and the skipped actions are printed for the record
// (docs/c10-harness.md lists them). c10 must be left as found after every input.

#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "c10_sut/c10_system.h"
#include "known_upstream.h"
#include "oracle/actions/action_codec.h"
#include "oracle/actions/committed_inputs.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::fuzz::c10 {
namespace {

void replayAgainstC10(const std::string& target, const oracle::ActionWeights& weights) {
  const auto bugs = readKnownBugs(DISPATCH_C10_KNOWN_UPSTREAM);
  const auto inputs = oracle::committedInputs(DISPATCH_FUZZ_DIR, target);
  ASSERT_FALSE(inputs.empty()) << "no committed inputs of " << target;
  std::map<std::string, int> buckets;
  size_t skipped_actions = 0;
  std::map<std::string, size_t> skip_reasons;
  size_t actions_total = 0;
  for (const auto& input : inputs) {
    const auto actions = oracle::decodeActions(input.bytes.data(), input.bytes.size(), weights);
    actions_total += actions.size();
    const std::string before = c10_sut::c10State();
    std::optional<std::string> disagreement;
    size_t skipped = 0;
    {
      auto sut = c10_sut::makeC10System();
      disagreement = oracle::runTraceOnSut(*sut, actions, &skipped, &skip_reasons);
    }
    skipped_actions += skipped;
    EXPECT_EQ(before, c10_sut::c10State()) << input.path << " left c10 changed";
    if (!disagreement) {
      ++buckets["agrees"];
      continue;
    }
    const auto known = knownBugIn(bugs, *disagreement);
    EXPECT_TRUE(known.has_value()) << input.path << ": unexplained disagreement:\n" << *disagreement;
    ++buckets[known ? "known upstream: " + *known : "UNEXPLAINED"];
  }
  std::cout << target << ": " << inputs.size() << " inputs, " << actions_total << " actions, "
            << skipped_actions << " skipped\n";
  for (const auto& [bucket, count] : buckets) std::cout << "  " << bucket << ": " << count << "\n";
  std::cout << "  skipped, by reason:\n";
  for (const auto& [reason, count] : skip_reasons) std::cout << "    " << count << "  " << reason << "\n";
}

TEST(C10Replay, RegistrationFuzzerInputs) { replayAgainstC10("registration_fuzzer", oracle::kRegistrationWeights); }

TEST(C10Replay, FallbackFuzzerInputs) { replayAgainstC10("fallback_fuzzer", oracle::kFallbackWeights); }

// Declared schemas, typed kernels of chosen signatures, boxed calls on stacks of any shape.
TEST(C10Replay, BoxedCallFuzzerInputs) { replayAgainstC10("boxed_call_fuzzer", oracle::kBoxedCallWeights); }

}  // namespace
}  // namespace dispatch::fuzz::c10
