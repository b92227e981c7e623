#pragma once
// Fuzz seeds from PyTorch's real operators (bench/workloads/README.md "Seeds from the real
// world"): a real operator's def and impls, in the order libtorch made them, as the actions of
// registration_fuzzer (and c10_registration_fuzzer, which starts from that corpus), or in library
// blocks for library_fuzzer, on one of the operators fz::op0 .. op3. Each impl keeps its key (catch-all stays catch-all, alias keys stay
// alias keys) and its kind (typed, boxed, fallthrough); every seed starts with the 1.13 start-up
// fallbacks, which libtorch registers before any impl. Rows on keys our vocabulary lacks are
// skipped and counted by key.
//
// Which operators: they are grouped by shape (the set of (key, kind) of their impls, after the
// skipped keys); the groups are taken most common first, one operator each (the first libtorch
// registers). The first `single` groups make a seed of one operator each; the next groups are
// packed, up to four operators and the action cap per seed, into `packed` seeds.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/workloads/workload.h"
#include "oracle/actions/action.h"

namespace dispatch::workload {

struct SeedPlan {
  std::string release;  // "1.13": bench/workloads/libtorch-<release>-startup.tsv.gz
  size_t single = 0;    // seeds of one operator
  size_t packed = 0;    // seeds of up to four operators
};
// The committed seeds' plans, in order; a later plan skips the shapes an earlier one took.
extern const std::vector<SeedPlan> kSeedPlans;

struct Seed {
  std::string file_name;               // "real-1.13-07-aten.mul.Tensor+2": release, index, first operator, others
  std::vector<std::string> operators;  // operatorKey()s; operators[N] is fz::opN
  std::vector<Row> rows;               // the rows replayed, in recorded order (skipped ones left out)
  std::vector<oracle::Action> actions; // StartupFallbacks, then one action per row
};

struct SeedSet {
  std::vector<Seed> seeds;
  long operators = 0;         // in the recording
  long shapes = 0;            // distinct shapes among them
  long shapes_taken = 0;      // shapes with an operator in a seed
  long shapes_taken_before = 0;  // shapes an earlier plan took (not taken again)
  std::map<std::string, long> skipped_keys;  // rows skipped in the chosen operators, by key
};

// The seeds of one plan. `taken`: shapes earlier plans took; the plan's own are added.
SeedSet makeSeeds(const std::vector<Row>& rows, const SeedPlan& plan, std::set<std::string>& taken);

// The action a def or impl row becomes on fz::op<op>; throws std::invalid_argument for another
// row or a key our vocabulary lacks.
oracle::Action actionOf(const Row& row, int op);

// Which fuzz target a seed is for: registration_fuzzer reads the actions as they are;
// library_fuzzer's seeds make each registration in a library block, as PyTorch's own are made
// (inLibraryBlock).
enum class SeedTarget { Registration, Library };

// A def as DISPATCH_LIBRARY_FRAGMENT(fz) { m.def(schema) }, an impl as
// DISPATCH_LIBRARY_IMPL(fz, key) { m.impl("opN", kernel) } (a catch-all: the block without a
// key); any other action as it is.
oracle::Action inLibraryBlock(const oracle::Action& a);

// A seed's actions for the target, and their input bytes.
std::vector<oracle::Action> seedActions(const Seed& seed, SeedTarget target);
std::vector<uint8_t> seedBytes(const Seed& seed, SeedTarget target = SeedTarget::Registration);

}  // namespace dispatch::workload
