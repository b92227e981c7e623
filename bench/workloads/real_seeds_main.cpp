// real_seeds [--library] --write|--check CORPUS_DIR -- the fuzz seeds made from PyTorch's real
// operators (real_seeds.h) for registration_fuzzer, or with --library for library_fuzzer (each
// registration in a library block): --write replaces every real-* file of CORPUS_DIR
// (fuzz/corpus/registration_fuzzer, fuzz/corpus/library_fuzzer) with the seeds of the committed
// recordings; --check exits 1 unless CORPUS_DIR holds exactly those. Prints, per recording, what was chosen and the rows
// skipped on keys our vocabulary lacks.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "bench/workloads/real_seeds.h"

namespace fs = std::filesystem;
using namespace dispatch::workload;

namespace {

std::vector<uint8_t> fileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  const bool library = argc == 4 && std::string(argv[1]) == "--library";
  const int mode_at = library ? 2 : 1;  // then the corpus folder
  const std::string mode = argc == mode_at + 2 ? argv[mode_at] : "";
  if (mode != "--write" && mode != "--check") {
    std::fprintf(stderr, "usage: %s [--library] --write|--check CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const fs::path corpus = argv[mode_at + 1];
  const SeedTarget target = library ? SeedTarget::Library : SeedTarget::Registration;
  try {
    if (!fs::is_directory(corpus)) throw std::runtime_error("no directory " + corpus.string());
    std::set<std::string> taken;
    std::vector<Seed> seeds;
    for (const SeedPlan& plan : kSeedPlans) {
      const Workload recording =
          readWorkload(std::string(DISPATCH_WORKLOADS_DIR) + "/libtorch-" + plan.release + "-startup.tsv.gz");
      const SeedSet set = makeSeeds(recording.rows, plan, taken);
      long operators = 0;
      for (const Seed& seed : set.seeds) operators += static_cast<long>(seed.operators.size());
      std::printf("libtorch %s: %zu seeds, %ld operators of %ld; shapes: %ld in the recording, %ld taken here, %ld "
                  "taken by an earlier recording\n  rows skipped on keys our vocabulary lacks:",
                  plan.release.c_str(), set.seeds.size(), operators, set.operators, set.shapes, set.shapes_taken,
                  set.shapes_taken_before);
      if (set.skipped_keys.empty()) std::printf(" none");
      for (const auto& [key, count] : set.skipped_keys) std::printf(" %s %ld", key.c_str(), count);
      std::printf("\n");
      for (const Seed& seed : set.seeds) {
        std::printf("  %s: %zu actions\n", seed.file_name.c_str(), seed.actions.size());
        seeds.push_back(seed);
      }
    }
    std::set<std::string> present;
    for (const auto& entry : fs::directory_iterator(corpus)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("real-", 0) == 0) present.insert(name);
    }
    if (mode == "--write") {
      for (const std::string& name : present) fs::remove(corpus / name);
      for (const Seed& seed : seeds) {
        const std::vector<uint8_t> bytes = seedBytes(seed, target);
        std::ofstream(corpus / seed.file_name, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
      std::printf("wrote %zu seeds to %s (removed %zu real-* files first)\n", seeds.size(), corpus.c_str(),
                  present.size());
      return 0;
    }
    long stale = 0;
    for (const Seed& seed : seeds) {
      if (!present.erase(seed.file_name) || fileBytes(corpus / seed.file_name) != seedBytes(seed, target)) {
        std::printf("missing or different: %s\n", seed.file_name.c_str());
        ++stale;
      }
    }
    for (const std::string& name : present) std::printf("not a seed of the recordings: %s\n", name.c_str());
    stale += static_cast<long>(present.size());
    std::printf("%s\n", stale == 0 ? "the corpus holds exactly these seeds" : "the corpus's real-* seeds are stale");
    return stale == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "real_seeds: %s\n", e.what());
    return 2;
  }
}
