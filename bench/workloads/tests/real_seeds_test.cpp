// The committed seeds of real operators (fuzz/corpus/registration_fuzzer/real-*, made by
// real_seeds from the committed recordings, bench/workloads/real_seeds.h): they are exactly the
// seeds the recordings give now, and each decodes, with registration_fuzzer's weights, to the
// start-up fallbacks and then its operators' recorded def and impl rows in recorded order: the
// same kinds, keys and operators. The check is shown to fail on a seed with one byte changed.
// library_fuzzer's copies (fuzz/corpus/library_fuzzer/real-*) hold the same rows, each in a
// library block.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>

#include "bench/workloads/real_seeds.h"
#include "oracle/actions/action_codec.h"

namespace dispatch::workload {
namespace {

namespace fs = std::filesystem;
using oracle::Action;
using oracle::ActionKind;

const fs::path kCorpus = fs::path(DISPATCH_FUZZ_DIR) / "corpus" / "registration_fuzzer";
const fs::path kLibraryCorpus = fs::path(DISPATCH_FUZZ_DIR) / "corpus" / "library_fuzzer";

const Workload& recording(const std::string& release) {
  static std::map<std::string, Workload> loaded;
  auto it = loaded.find(release);
  if (it == loaded.end())
    it = loaded.emplace(release, readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-" + release +
                                              "-startup.tsv.gz")).first;
  return it->second;
}

struct PlannedSeed {
  std::string release;
  Seed seed;
};
const std::vector<PlannedSeed>& plannedSeeds() {
  static const std::vector<PlannedSeed> seeds = [] {
    std::vector<PlannedSeed> out;
    std::set<std::string> taken;
    for (const SeedPlan& plan : kSeedPlans) {
      for (Seed& seed : makeSeeds(recording(plan.release).rows, plan, taken).seeds) out.push_back({plan.release, seed});
    }
    return out;
  }();
  return seeds;
}

std::vector<uint8_t> fileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Where decoded actions differ from the recording: the start-up fallbacks, then, for every def and
// impl row of the seed's operators (in recorded order; rows on keys we lack left out), the action
// of that kind, key and operator. Read from the rows themselves, not from the seed's own actions.
std::optional<std::string> mismatchWithRecording(const std::vector<Action>& decoded,
                                                 const std::vector<std::string>& operators,
                                                 const std::vector<Row>& recorded) {
  std::vector<const Row*> rows;
  for (const Row& row : recorded) {
    if (row.call != "def" && row.call != "impl") continue;
    if (std::find(operators.begin(), operators.end(), operatorKey(row.op, row.overload)) == operators.end()) continue;
    if (row.call == "impl" && row.key != "catch-all" && !tryParseDispatchKey(row.key)) continue;
    rows.push_back(&row);
  }
  if (decoded.size() != rows.size() + 1)
    return std::to_string(decoded.size()) + " actions for " + std::to_string(rows.size()) + " rows";
  if (decoded[0] != Action(ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt))
    return "action 0 is not the start-up fallbacks";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = *rows[i];
    const Action& a = decoded[i + 1];
    const std::string kind = row.call == "def"            ? "def"
                             : row.kind == "fallthrough"  ? "impl fallthrough"
                             : row.kind == "typed"        ? "impl typed"
                                                          : "impl boxed";
    const ActionKind expected = kind == "def"                ? ActionKind::Def
                                : kind == "impl fallthrough" ? ActionKind::ImplFallthrough
                                : kind == "impl typed"       ? ActionKind::ImplTyped
                                                             : ActionKind::ImplBoxed;
    const std::string key = a.key ? std::string(toString(*a.key)) : "catch-all";
    const auto op = std::find(operators.begin(), operators.end(), operatorKey(row.op, row.overload)) - operators.begin();
    const bool key_matches = row.call == "def" ? !a.key.has_value() : key == row.key;
    if (a.kind != expected || !key_matches || a.op != op) {
      return "action " + std::to_string(i + 1) + " (" + oracle::describe(a) + ") is not seq " +
             std::to_string(row.seq) + " (" + kind + " " + row.key + " of " + operators[static_cast<size_t>(op)] + ")";
    }
  }
  return std::nullopt;
}

void expectExactlyTheRecordingsSeeds(const fs::path& corpus, SeedTarget target) {
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  std::set<std::string> committed;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (entry.path().filename().string().rfind("real-", 0) == 0) committed.insert(entry.path().filename().string());
  }
  ASSERT_GE(plannedSeeds().size(), 40u);
  ASSERT_LE(plannedSeeds().size(), 60u);
  for (const auto& [release, seed] : plannedSeeds()) {
    EXPECT_TRUE(committed.erase(seed.file_name)) << seed.file_name << " is not committed in " << corpus
                                                 << ": run real_seeds [--library] --write";
    if (fs::exists(corpus / seed.file_name)) {
      EXPECT_EQ(fileBytes(corpus / seed.file_name), seedBytes(seed, target)) << seed.file_name << " is stale";
    }
  }
  EXPECT_TRUE(committed.empty()) << *committed.begin() << " is no seed of the recordings";
}

TEST(RealSeeds, TheCorpusHoldsExactlyTheRecordingsSeeds) {
  expectExactlyTheRecordingsSeeds(kCorpus, SeedTarget::Registration);
}

TEST(RealSeeds, TheLibraryCorpusHoldsExactlyTheRecordingsSeedsInBlocks) {
  expectExactlyTheRecordingsSeeds(kLibraryCorpus, SeedTarget::Library);
}

// A library seed's block as the plain action it registers the same way: a FRAGMENT block's def
// as a def, an IMPL block's short-named impl as the impl on the block's key (none: catch-all).
// Anything else stays as it is (and then fails the comparison with the recording).
Action plainOf(const Action& a) {
  if (a.kind != ActionKind::LibraryBlock || !a.block || a.block->ns != 0 || a.block->qualified) return a;
  using oracle::LibraryBody;
  using oracle::LibraryKind;
  const oracle::LibraryBlock& b = *a.block;
  if (b.kind == LibraryKind::Fragment && b.body == LibraryBody::Def) {
    return Action(ActionKind::Def, a.op, std::nullopt, 0, 0, std::nullopt);
  }
  if (b.kind != LibraryKind::Impl) return a;
  const ActionKind kind = b.body == LibraryBody::ImplTyped         ? ActionKind::ImplTyped
                          : b.body == LibraryBody::ImplBoxed       ? ActionKind::ImplBoxed
                          : b.body == LibraryBody::ImplFallthrough ? ActionKind::ImplFallthrough
                                                                   : ActionKind::LibraryBlock;
  return kind == ActionKind::LibraryBlock ? a : Action(kind, a.op, a.key, 0, 0, std::nullopt);
}

TEST(RealSeeds, EachLibrarySeedDecodesToTheSameRegistrationsInBlocks) {
  for (const auto& [release, seed] : plannedSeeds()) {
    const std::vector<uint8_t> bytes = fileBytes(kLibraryCorpus / seed.file_name);
    ASSERT_FALSE(bytes.empty()) << seed.file_name;
    const auto decoded = oracle::decodeActions(bytes.data(), bytes.size(), oracle::kLibraryWeights);
    std::vector<Action> plain;
    size_t blocks = 0;
    for (const Action& a : decoded) {
      blocks += a.kind == ActionKind::LibraryBlock;
      plain.push_back(plainOf(a));
    }
    EXPECT_EQ(blocks + 1, decoded.size()) << seed.file_name << ": every registration in a block";
    EXPECT_EQ(mismatchWithRecording(plain, seed.operators, recording(release).rows), std::nullopt) << seed.file_name;
  }
}

TEST(RealSeeds, EachSeedDecodesToItsOperatorsRecordedRegistrations) {
  std::set<std::string> shapes, kinds, keys;
  for (const auto& [release, seed] : plannedSeeds()) {
    const std::vector<uint8_t> bytes = fileBytes(kCorpus / seed.file_name);
    ASSERT_FALSE(bytes.empty()) << seed.file_name;
    const auto decoded = oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights);
    EXPECT_EQ(decoded, seed.actions) << seed.file_name;
    EXPECT_EQ(mismatchWithRecording(decoded, seed.operators, recording(release).rows), std::nullopt) << seed.file_name;
    EXPECT_LE(seed.operators.size(), static_cast<size_t>(oracle::kNumOps));
    for (const Row& row : seed.rows) {
      if (row.call != "impl") continue;
      kinds.insert(row.kind);
      keys.insert(row.key);
    }
  }
  // Diverse: every kernel kind, catch-all and alias keys, many keys.
  for (const char* kind : {"typed", "boxed", "fallthrough"}) EXPECT_TRUE(kinds.count(kind)) << kind;
  for (const char* key : {"catch-all", "Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "CPU"})
    EXPECT_TRUE(keys.count(key)) << key;
  EXPECT_GE(keys.size(), 20u);
}

TEST(RealSeeds, TheDecodingCheckCatchesAChangedByte) {
  const Seed& seed = plannedSeeds().front().seed;
  const auto& rows = recording(plannedSeeds().front().release).rows;
  std::vector<uint8_t> bytes = seedBytes(seed);
  ASSERT_EQ(mismatchWithRecording(oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights),
                                  seed.operators, rows),
            std::nullopt);
  // Every byte changed in turn: whenever the actions decoded change, the check says so.
  size_t changing = 0;
  const auto original = oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights);
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> changed = bytes;
    changed[at] = static_cast<uint8_t>(changed[at] + 101);
    const auto decoded = oracle::decodeActions(changed.data(), changed.size(), oracle::kRegistrationWeights);
    if (decoded == original) continue;
    ++changing;
    EXPECT_NE(mismatchWithRecording(decoded, seed.operators, rows), std::nullopt) << "byte " << at;
  }
  EXPECT_GT(changing, bytes.size() / 2);
  // Another operator's rows are not this seed's.
  EXPECT_NE(mismatchWithRecording(oracle::decodeActions(bytes.data(), bytes.size(), oracle::kRegistrationWeights),
                                  plannedSeeds().back().seed.operators, rows),
            std::nullopt);
}

TEST(RealSeeds, AKeyWeLackIsSkippedAndCounted) {
  std::vector<Row> rows(3);
  rows[0] = Row{0, "def", 1, "aten::f", "", "-", "-", "aten::f(Tensor self) -> Tensor", "d"};
  rows[1] = Row{1, "impl", 1, "aten::f", "", "AutocastMTIA", "fallthrough", "", "d"};
  rows[2] = Row{2, "impl", 1, "aten::f", "", "CPU", "typed", "", "d"};
  std::set<std::string> taken;
  const SeedSet set = makeSeeds(rows, SeedPlan{"test", 1, 0}, taken);
  ASSERT_EQ(set.seeds.size(), 1u);
  EXPECT_EQ(set.skipped_keys, (std::map<std::string, long>{{"AutocastMTIA", 1}}));
  EXPECT_EQ(set.seeds[0].actions.size(), 3u);  // start-up fallbacks, def, the CPU impl
  EXPECT_THROW(actionOf(rows[1], 0), std::invalid_argument);
}

}  // namespace
}  // namespace dispatch::workload
