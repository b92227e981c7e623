// The c10 system under test itself: it starts from libtorch's start-up state, agrees with the
// model (against 1.13; with the model-free oracles against other releases) on registrations,
// calls and guards, leaves c10 as it found it, and names every key the two vocabularies do not
// share. The upstream bugs it finds: fuzz/c10/tests/c10_known_upstream_test.cpp and
// c10_release_status_test.cpp.

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <iterator>

#include "c10_sut/c10_oracle.h"
#include "c10_sut/c10_system.h"

namespace dispatch::c10_sut {
namespace {

using oracle::Action;
using oracle::ActionKind;

Action impl(DispatchKey key) { return {ActionKind::ImplTyped, 0, key, 0, 0, std::nullopt}; }
const Action kDef{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt};

std::optional<std::string> runOnC10(const std::vector<Action>& actions, C10Oracle judge = defaultOracle()) {
  const std::string before = c10State();
  std::optional<std::string> verdict;
  {
    auto sut = makeC10System(judge == C10Oracle::ModelFree);
    verdict = runTrace(judge, *sut, actions);
  }
  EXPECT_EQ(before, c10State()) << "the trace left c10 changed";
  return verdict;
}

TEST(C10System, EmptyTraceAgreesWithTheModelsStartupState) {
  EXPECT_EQ(runOnC10({kDef}), std::nullopt);
}

TEST(C10System, CallsAndGuardsAgree) {
  const std::vector<Action> actions = {
      kDef,
      impl(DispatchKey::CPU),
      {ActionKind::ImplBoxed, 0, DispatchKey::AutogradCPU, 0, 0, std::nullopt},
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::CallBoxed, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::ExcludeKeys, 0, std::nullopt, 0, ~0ull << 14, std::nullopt},  // no backend bits
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
      {ActionKind::PopGuard, 0, std::nullopt, 0, 0, std::nullopt},
      {ActionKind::Drop, 0, std::nullopt, 1, 0, std::nullopt},
      {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1ull << 0 | 0x1ull << 14, std::nullopt},
  };
  EXPECT_EQ(runOnC10(actions), std::nullopt);
  EXPECT_EQ(runOnC10(actions, C10Oracle::ModelFree), std::nullopt);
}

// The model-free oracles see what they are there for: a slot left stale (stale-autogradother,
// live in every release checked) and, against our own expectation of a guard, a pop that does
// not restore the sets is reported, not passed (C10ReleaseStatus has every bug per release).
TEST(C10System, TheModelFreeOraclesReportAStaleSlot) {
  const auto report = runOnC10({impl(DispatchKey::CompositeImplicitAutograd), impl(DispatchKey::QuantizedCPU)},
                               C10Oracle::ModelFree);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("stale slots (1): AutogradOther (live: kernel k0; computed: ambiguous)"), std::string::npos)
      << *report;
}

// Every key and key-set bit is matched by name; what one side lacks is listed, never guessed.
// The expected lists per release are docs/c10-harness.md's key coverage table.
TEST(C10System, NamesTheKeysTheVocabulariesDoNotShare) {
  const std::string coverage = keyCoverageReport();
  std::cout << "libtorch " << libtorchRelease() << "\n" << coverage;
  const std::string release = libtorchRelease().substr(0, libtorchRelease().rfind('.'));
  std::ifstream expected_file(std::string(DISPATCH_C10_KEY_COVERAGE_DIR) + "/" + release + ".txt");
  ASSERT_TRUE(expected_file) << "no key coverage recorded for libtorch " << release << " in " << DISPATCH_C10_KEY_COVERAGE_DIR;
  const std::string expected{std::istreambuf_iterator<char>(expected_file), std::istreambuf_iterator<char>()};
  EXPECT_EQ(coverage, expected);
}

}  // namespace
}  // namespace dispatch::c10_sut
