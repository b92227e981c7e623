// A main() for builds without libFuzzer (any compiler, any preset): runs every file given, and
// every file inside every directory given, through the target once. A failing input aborts.
// `--print` decodes instead of running (see fuzz_target.cpp).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "harness/fuzz_target.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {
void runFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::fprintf(stderr, "Running: %s\n", path.c_str());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}
}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (argv[i][0] == '-') continue;  // libFuzzer-style flags are accepted and ignored
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> entries;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) entries.push_back(entry.path());
      }
      std::sort(entries.begin(), entries.end());
      files.insert(files.end(), entries.begin(), entries.end());
    } else if (std::filesystem::exists(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  for (const auto& file : files) runFile(file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "Executed %zu inputs in %.3f s (%.0f inputs/s)\n", files.size(), seconds,
               seconds > 0 ? static_cast<double>(files.size()) / seconds : 0.0);
  return 0;
}
