// LibraryBlock actions (a DISPATCH_LIBRARY, _IMPL or _FRAGMENT block with one registration in
// it): their bytes, the model's rules for them, and both runners over our dispatcher. Each rule
// is shown on our dispatcher's outcome, and a dispatcher that breaks it is caught by the seam.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "delegating_sut.h"
#include "oracle/actions/action_codec.h"
#include "oracle/runner/model_actions.h"
#include "oracle/runner/model_free_runner.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::oracle {
namespace {

using LK = LibraryKind;
using LB = LibraryBody;
constexpr uint8_t kFz = kOwnNamespace, kFy = kOtherNamespace, kWildcard = kWildcardNamespace;

Action block(LK kind, uint8_t ns, LB body, bool qualified = false, int op = 0,
             std::optional<DispatchKey> key = std::nullopt) {
  return Action::libraryBlock({kind, ns, body, qualified}, op, key);
}
const Action kDropFirst{ActionKind::Drop, 0, std::nullopt, 0, 0, std::nullopt};  // handle 0
const uint64_t kCpuTensor = DispatchKeySet(DispatchKey::CPU).raw_repr();
const Action kCallCpu{ActionKind::CallTyped, 0, std::nullopt, 0, kCpuTensor, std::nullopt};

// --- bytes -------------------------------------------------------------------------------------

// Only library_fuzzer's weights pick LibraryBlock, the last kind, and they are registration_fuzzer's
// otherwise: every other target's kind byte reads as before.
TEST(LibraryBlockCodec, OnlyLibraryFuzzersWeightsPickIt) {
  const int library = static_cast<int>(ActionKind::LibraryBlock);
  ASSERT_EQ(library, kNumActionKinds - 1);
  for (int kind = 0; kind < kNumActionKinds; ++kind) {
    if (kind != library) {
      EXPECT_EQ(kLibraryWeights.weight[kind], kRegistrationWeights.weight[kind]) << kind;
    }
  }
  EXPECT_GT(kLibraryWeights.weight[library], 0);
  for (const ActionWeights* weights : {&kRegistrationWeights, &kFallbackWeights, &kKeySetWeights, &kBoxedCallWeights,
                                       &kReleaseKeyWeights}) {
    EXPECT_EQ(weights->weight[library], 0);
  }
}

TEST(LibraryBlockCodec, RandomInputsDecodeToActionsThatEncodeBackToThemselves) {
  std::mt19937 rng(11);
  size_t blocks = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    const auto actions = decodeActions(bytes.data(), bytes.size(), kLibraryWeights);
    for (const Action& a : actions) {
      if (a.kind != ActionKind::LibraryBlock) continue;
      ++blocks;
      EXPECT_EQ(libraryBlockProblem(*a.block, a.op), std::nullopt) << describe(a);
      EXPECT_FALSE(a.key && a.block->kind != LK::Impl) << "only an IMPL block has a key: " << describe(a);
    }
    const auto encoded = encodeActions(actions, kLibraryWeights);
    EXPECT_EQ(decodeActions(encoded.data(), encoded.size(), kLibraryWeights), actions) << "round " << round;
  }
  EXPECT_GT(blocks, 1000u);
}

// The form byte's 32 values name 27 distinct blocks (the common IMPL forms and the two-def forms
// twice); random inputs reach all of them, and IMPL blocks both with and without a key.
TEST(LibraryBlockCodec, EveryFormIsReached) {
  std::mt19937 rng(12);
  std::set<std::tuple<LK, uint8_t, LB, bool>> forms;
  std::set<bool> impl_block_has_key;
  for (int round = 0; round < 4000; ++round) {
    std::vector<uint8_t> bytes(rng() % 32);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    for (const Action& a : decodeActions(bytes.data(), bytes.size(), kLibraryWeights)) {
      if (a.kind != ActionKind::LibraryBlock) continue;
      forms.emplace(a.block->kind, a.block->ns, a.block->body, a.block->qualified);
      if (a.block->kind == LK::Impl) impl_block_has_key.insert(a.key.has_value());
    }
  }
  EXPECT_EQ(forms.size(), 27u);
  EXPECT_TRUE(forms.count({LK::Def, kFy, LB::Nothing, false}));       // a second namespace's claim
  EXPECT_TRUE(forms.count({LK::Impl, kFz, LB::ImplTyped, false}));     // m.impl("op0", ...)
  EXPECT_TRUE(forms.count({LK::Impl, kWildcard, LB::ImplBoxed, true}));  // _ with "fz::op0"
  EXPECT_EQ(impl_block_has_key, (std::set<bool>{false, true}));
}

// The forms the properties pick among (kLibraryBlockForms) are all of the vocabulary, on every
// operator, and each has a form byte.
TEST(LibraryBlockCodec, EveryFormIsOfTheVocabularyAndEncodes) {
  for (const LibraryBlock& form : kLibraryBlockForms) {
    for (int op = 0; op < kNumOps; ++op) {
      EXPECT_EQ(libraryBlockProblem(form, op), std::nullopt) << libraryBlockCpp(form);
      const std::optional<DispatchKey> key =
          form.kind == LK::Impl ? std::optional<DispatchKey>(DispatchKey::CPU) : std::nullopt;
      EXPECT_NO_THROW(encodeActions({Action::libraryBlock(form, op, key)}, kLibraryWeights)) << libraryBlockCpp(form);
    }
  }
}

TEST(LibraryBlockCodec, TheEncoderRefusesWhatNoFormByteMakes) {
  const auto encode = [](const Action& a) { return encodeActions({a}, kLibraryWeights); };
  EXPECT_THROW(encode(block(LK::Impl, kFy, LB::ImplTyped, false)), std::invalid_argument);  // "fy::op0"
  EXPECT_THROW(encode(block(LK::Def, kFz, LB::Nothing, false, 0, DispatchKey::CPU)), std::invalid_argument);
  EXPECT_THROW(encode(block(LK::Def, kFz, LB::ImplFallthrough)), std::invalid_argument);  // no such form
  Action without_block = block(LK::Def, kFz, LB::Nothing);
  without_block.block.reset();
  EXPECT_THROW(encode(without_block), std::invalid_argument);
  EXPECT_THROW(encodeActions({block(LK::Def, kFz, LB::Nothing)}, kRegistrationWeights), std::invalid_argument);
}

TEST(LibraryBlockCodec, ItPrintsAsTheBlockAndAsCpp) {
  EXPECT_EQ(describe(block(LK::Impl, kFz, LB::ImplTyped, false, 1, DispatchKey::AutogradCPU)),
            "DISPATCH_LIBRARY_IMPL(fz, AutogradCPU) { m.impl(\"op1\", typed kernel) }");
  EXPECT_EQ(describe(block(LK::Def, kFy, LB::Nothing)), "DISPATCH_LIBRARY(fy) { }");
  EXPECT_EQ(describe(block(LK::Fragment, kFz, LB::Def, false, 2)),
            "DISPATCH_LIBRARY_FRAGMENT(fz) { m.def(fz::op2(Tensor self, Tensor? other, int tag) -> str) }");
  EXPECT_EQ(toCpp(block(LK::Impl, kWildcard, LB::ImplBoxed, true, 3, DispatchKey::CPU)),
            "Action::libraryBlock({dispatch::oracle::LibraryKind::Impl, 2, dispatch::oracle::LibraryBody::ImplBoxed, "
            "true}, 3, DispatchKey::CPU)");
}

// --- the rules, on our dispatcher and the model ------------------------------------------------

// Our dispatcher (full layout), each block's outcome kept: what it refused, and why in the
// model's words.
class RecordingSut final : public DelegatingSut {
 public:
  std::string name() const override { return "recording"; }
  SutOutcome libraryBlock(const LibraryBlock& b, int op, std::optional<DispatchKey> key,
                          const std::string& kernel) override {
    SutOutcome outcome = real_.libraryBlock(b, op, key, kernel);
    refusals.push_back(outcome.error);
    return outcome;
  }
  std::vector<std::optional<model::ErrorKind>> refusals;
};

// The refusals of the trace's blocks on our dispatcher, in order (nullopt: opened), with the
// seam runner checking that the model agrees at every step and at the end.
std::vector<std::optional<model::ErrorKind>> blockRefusals(const std::vector<Action>& trace) {
  RecordingSut sut;
  SeamRunner seam(sut);
  for (const Action& a : trace) EXPECT_EQ(seam.step(a), std::nullopt) << describe(a);
  EXPECT_EQ(seam.checkAll(), std::nullopt);
  EXPECT_EQ(seam.skipped(), 0u);
  return sut.refusals;
}

constexpr std::optional<model::ErrorKind> kOpened = std::nullopt;
constexpr std::optional<model::ErrorKind> kRefused = model::ErrorKind::Registration;

TEST(LibraryBlockRules, OneDefBlockPerNamespaceUntilItIsDropped) {
  EXPECT_EQ(blockRefusals({block(LK::Def, kFz, LB::Nothing), block(LK::Def, kFy, LB::Nothing),
                           block(LK::Def, kFz, LB::Nothing), block(LK::Fragment, kFz, LB::Nothing), kDropFirst,
                           block(LK::Def, kFz, LB::Def)}),
            (std::vector{kOpened, kOpened, kRefused, kOpened, kOpened}));
}

TEST(LibraryBlockRules, ARefusedRegistrationClosesTheBlockAndEndsItsClaim) {
  // The second block's def is refused (op0 has one): its namespace claim goes with it.
  EXPECT_EQ(blockRefusals({block(LK::Fragment, kFz, LB::Def), block(LK::Def, kFz, LB::Def),
                           block(LK::Def, kFz, LB::Nothing)}),
            (std::vector{kOpened, kRefused, kOpened}));
}

TEST(LibraryBlockRules, NamesAndSchemasMustBeOfTheBlocksNamespace) {
  EXPECT_EQ(blockRefusals({block(LK::Impl, kFy, LB::ImplBoxed, true, 0, DispatchKey::CPU),
                           block(LK::Fragment, kFy, LB::Def), block(LK::Def, kFy, LB::ImplTyped, true),
                           block(LK::Impl, kWildcard, LB::ImplBoxed, true, 0, DispatchKey::CPU),
                           block(LK::Impl, kFz, LB::ImplTyped, false, 0, DispatchKey::CPU),
                           block(LK::Impl, kFz, LB::ImplTyped, true, 0, DispatchKey::CPU), kCallCpu}),
            (std::vector{kRefused, kRefused, kRefused, kOpened, kOpened, kOpened}));
}

TEST(LibraryBlockRules, TheWildcardTakesOnlyImplBlocksAndDefsOnlyDefOrFragmentBlocks) {
  EXPECT_EQ(blockRefusals({block(LK::Def, kWildcard, LB::Nothing), block(LK::Fragment, kWildcard, LB::Nothing),
                           block(LK::Impl, kFz, LB::Def, false, 0, DispatchKey::CPU),
                           block(LK::Impl, kWildcard, LB::Nothing, false, 0, DispatchKey::CPU)}),
            (std::vector{kRefused, kRefused, kRefused, kOpened}));
}

TEST(LibraryBlockRules, AnImplBlocksKeyIsItsKernelsKeyAndCatchAllIsNone) {
  // CatchAll (Undefined's value) and no key both make the catch-all; a building block is refused
  // by the impl, a value outside the enum by the block itself.
  const auto invalid_key = static_cast<DispatchKey>(999);
  EXPECT_EQ(blockRefusals({block(LK::Impl, kFz, LB::ImplTyped, false, 0, DispatchKey::Undefined),
                           block(LK::Impl, kFz, LB::ImplBoxed, false, 0, std::nullopt),
                           block(LK::Impl, kFz, LB::ImplTyped, false, 0, DispatchKey::Dense),
                           block(LK::Impl, kFz, LB::ImplTyped, false, 0, invalid_key), kCallCpu}),
            (std::vector{kOpened, kOpened, std::optional(model::ErrorKind::InvalidKey),
                         std::optional(model::ErrorKind::InvalidKey)}));
}

// A dispatcher that opens every DEF block as a FRAGMENT: no namespace is ever claimed.
class ClaimlessSut final : public DelegatingSut {
 public:
  std::string name() const override { return "claimless"; }
  SutOutcome libraryBlock(const LibraryBlock& b, int op, std::optional<DispatchKey> key,
                          const std::string& kernel) override {
    LibraryBlock as_fragment = b;
    if (as_fragment.kind == LK::Def) as_fragment.kind = LK::Fragment;
    return real_.libraryBlock(as_fragment, op, key, kernel);
  }
};

// A dispatcher whose short names in a block all go to fz::op0.
class ShortNamesToOp0Sut final : public DelegatingSut {
 public:
  std::string name() const override { return "short names to op0"; }
  SutOutcome libraryBlock(const LibraryBlock& b, int op, std::optional<DispatchKey> key,
                          const std::string& kernel) override {
    return real_.libraryBlock(b, b.qualified ? op : 0, key, kernel);
  }
};

TEST(LibraryBlockRules, TheSeamCatchesADispatcherThatBreaksThem) {
  ClaimlessSut claimless;
  const auto report = runTraceOnSut(claimless, {block(LK::Def, kFz, LB::Nothing), block(LK::Def, kFz, LB::Nothing)});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->rfind("claimless: step 1 (DISPATCH_LIBRARY(fz) { })", 0), 0u) << *report;
  ShortNamesToOp0Sut short_names;
  EXPECT_TRUE(runTraceOnSut(short_names, {block(LK::Impl, kFz, LB::ImplTyped, false, 2, DispatchKey::CPU)}));
  ShortNamesToOp0Sut qualified_names;  // a fresh one: the first kept its kernel
  EXPECT_EQ(runTraceOnSut(qualified_names, {block(LK::Impl, kFz, LB::ImplTyped, true, 2, DispatchKey::CPU)}),
            std::nullopt);
}

TEST(LibraryBlockRules, TheModelFreeRunnerJudgesBlocksLikeRegistrations) {
  OurDispatcherSut<FullLayout> sut;
  size_t skipped = 0;
  EXPECT_EQ(runTraceModelFree(sut,
                              {block(LK::Def, kFz, LB::Def), block(LK::Impl, kFz, LB::ImplTyped, false, 0, DispatchKey::CPU),
                               block(LK::Def, kFz, LB::Nothing), block(LK::Impl, kFy, LB::ImplBoxed, true),
                               block(LK::Fragment, kFz, LB::ImplFallthrough, false, 1), kCallCpu},
                              &skipped),
            std::nullopt);
  EXPECT_EQ(skipped, 0u);
}

TEST(LibraryBlockRules, AnActionOutsideTheVocabularyIsRefusedNotRun) {
  OurDispatcherSut<FullLayout> sut;
  SeamRunner seam(sut);
  EXPECT_THROW(seam.step(block(LK::Impl, kWildcard, LB::ImplTyped, false, 0, DispatchKey::CPU)), std::invalid_argument);
}

}  // namespace
}  // namespace dispatch::oracle
