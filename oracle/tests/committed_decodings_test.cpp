// Every committed input of the action vocabulary's targets decodes to the actions it decoded to
// when it was committed: a codec change must add choices, never move old ones. Pinned per
// folder as the number of inputs and a digest of their decodings (each action described and
// printed as C++, inputs in path order) in committed_decodings.txt. A folder whose inputs
// change (a corpus merge) needs its line rewritten: the failure prints the line it computed.
// DISPATCH_DECODINGS_DUMP=<file> also writes every input's decoding there, to diff a dump made
// before a change against one made after it (which input moved, and how).
// table_index_fuzzer's inputs are not actions (their decoder is the target's own).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/actions/action_codec.h"

namespace dispatch::oracle {
namespace {

struct PinnedFolder {
  const char* folder;  // relative to the repository
  const ActionWeights* weights;
};

const PinnedFolder kFolders[] = {
    {"fuzz/corpus/registration_fuzzer", &kRegistrationWeights},
    {"fuzz/regressions/registration_fuzzer", &kRegistrationWeights},
    {"fuzz/corpus/fallback_fuzzer", &kFallbackWeights},
    {"fuzz/corpus/library_fuzzer", &kLibraryWeights},
    {"fuzz/corpus/keyset_fuzzer", &kKeySetWeights},
    {"fuzz/corpus/boxed_call_fuzzer", &kBoxedCallWeights},
    {"fuzz/regressions/boxed_call_fuzzer", &kBoxedCallWeights},
    // c10_registration_fuzzer reads registration_fuzzer's bytes.
    {"fuzz/c10/known_upstream", &kRegistrationWeights},
    {"fuzz/c10/harness_regressions", &kRegistrationWeights},
    // The c10 targets' corpora: registration_fuzzer's inputs distilled by each target on c10.
    {"fuzz/corpus/c10_registration_fuzzer", &kRegistrationWeights},
    {"fuzz/corpus/c10_release_keys_fuzzer", &kReleaseKeyWeights},
};

uint64_t fnv1a(uint64_t hash, const std::string& text) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3u;
  }
  return hash;
}

// Every field of every action: the readable trace, then each action as C++.
std::string decodingText(const std::vector<uint8_t>& bytes, const ActionWeights& weights) {
  const std::vector<Action> actions = decodeActions(bytes.data(), bytes.size(), weights);
  std::ostringstream out;
  printTrace(out, actions);
  for (const Action& a : actions) out << toCpp(a) << "\n";
  return out.str();
}

struct FolderDecoding {
  size_t inputs = 0;
  std::string line;  // "<folder> <inputs> <digest>"
};

FolderDecoding decodeFolder(const PinnedFolder& pinned, std::ostream* dump) {
  const std::filesystem::path dir = std::filesystem::path(DISPATCH_SOURCE_DIR) / pinned.folder;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  uint64_t digest = 0xcbf29ce484222325u;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::string text = std::string(pinned.folder) + "/" + path.filename().string() + "\n" +
                             decodingText(bytes, *pinned.weights);
    digest = fnv1a(digest, text);
    if (dump) *dump << text;
  }
  std::ostringstream line;
  line << pinned.folder << " " << paths.size() << " " << std::hex << digest;
  return {paths.size(), line.str()};
}

std::map<std::string, std::string> pinnedLines() {
  std::ifstream in(DISPATCH_COMMITTED_DECODINGS);
  std::map<std::string, std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    lines[line.substr(0, line.find(' '))] = line;
  }
  return lines;
}

TEST(CommittedDecodings, EveryCommittedInputDecodesAsPinned) {
  const auto pinned = pinnedLines();
  EXPECT_EQ(pinned.size(), std::size(kFolders)) << "expected one line per folder in " << DISPATCH_COMMITTED_DECODINGS;
  const char* dump_path = std::getenv("DISPATCH_DECODINGS_DUMP");
  std::ofstream dump;
  if (dump_path && *dump_path) dump.open(dump_path);
  for (const PinnedFolder& folder : kFolders) {
    const FolderDecoding now = decodeFolder(folder, dump.is_open() ? &dump : nullptr);
    EXPECT_GT(now.inputs, 0u) << folder.folder << " holds no input";
    const auto it = pinned.find(folder.folder);
    if (it == pinned.end()) {
      ADD_FAILURE() << "no line for " << folder.folder << "; now: " << now.line;
      continue;
    }
    EXPECT_EQ(it->second, now.line) << "the inputs of " << folder.folder
                               << " decode differently (or were added or removed): pinned vs now";
  }
}

}  // namespace
}  // namespace dispatch::oracle
