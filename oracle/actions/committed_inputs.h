#pragma once
// The committed fuzz inputs of one target (fuzz/corpus/<target> and fuzz/regressions/<target>),
// read as data by the tests that replay them through another runner.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace dispatch::oracle {

struct CommittedInput {
  std::filesystem::path path;
  std::vector<uint8_t> bytes;
};

// Sorted by path, so failures name the same file first on every machine.
inline std::vector<CommittedInput> committedInputs(const std::filesystem::path& fuzz_dir,
                                                   const std::string& target) {
  std::vector<CommittedInput> inputs;
  for (const char* kind : {"corpus", "regressions"}) {
    const std::filesystem::path dir = fuzz_dir / kind / target;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      inputs.push_back({entry.path(), {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()}});
    }
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const CommittedInput& a, const CommittedInput& b) { return a.path < b.path; });
  return inputs;
}

}  // namespace dispatch::oracle
