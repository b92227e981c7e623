#include "c10_trace_target.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "c10_sut/c10_oracle.h"
#include "c10_sut/c10_system.h"
#include "harness/fuzz_target.h"
#include "known_upstream.h"
#include "libtorch_program.h"
#include "oracle/runner/model_free_runner.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::fuzz::c10 {

namespace {

const std::vector<KnownBug>& knownBugs() {
  static const std::vector<KnownBug> bugs = [] {
    const char* path = std::getenv("DISPATCH_C10_KNOWN_UPSTREAM");
    return path && *path ? readKnownBugs(path) : std::vector<KnownBug>{};
  }();
  return bugs;
}

// What the inputs of this process did, for DISPATCH_C10_COUNTS.
struct Counts {
  size_t inputs = 0;
  size_t actions = 0;
  size_t named_key_actions = 0;
  std::map<std::string, size_t> skip_reasons;
};

Counts& counts() {
  static Counts c;
  return c;
}

void printCounts() {
  const Counts& c = counts();
  size_t skipped = 0;
  for (const auto& [reason, n] : c.skip_reasons) skipped += n;
  std::fprintf(stderr, "c10 counts: %zu inputs, %zu actions (%zu NamedKey), %zu skipped\n", c.inputs, c.actions,
               c.named_key_actions, skipped);
  for (const auto& [reason, n] : c.skip_reasons) std::fprintf(stderr, "  skipped %zu: %s\n", n, reason.c_str());
  size_t accepted = 0;
  size_t refused = 0;
  for (const auto& [key, count] : c10_sut::namedKeyCounts()) {
    std::fprintf(stderr, "  named key %s: %zu accepted, %zu refused\n", key.c_str(), count.accepted, count.refused);
    accepted += count.accepted;
    refused += count.refused;
  }
  std::fprintf(stderr, "c10 counts: NamedKey registrations run on c10: %zu (%zu accepted, %zu refused)\n",
               accepted + refused, accepted, refused);
}

bool counting() {
  static const bool on = [] {
    const char* value = std::getenv("DISPATCH_C10_COUNTS");
    const bool enabled = value && std::string(value) == "1";
    if (enabled) {
      // The tallies first: objects made after std::atexit are destroyed before it calls back.
      counts();
      c10_sut::namedKeyCounts();
      std::atexit(printCounts);
    }
    return enabled;
  }();
  return on;
}

// The known upstream bugs the inputs of this process showed, for the nightly's report: a line on
// the first input that shows one and whenever its count doubles (a run its time limit cuts off
// has said most of it), and the exact counts at exit.
std::map<std::string, size_t>& knownBugsSeen() {
  static std::map<std::string, size_t> seen;
  return seen;
}

void printKnownBugsSeen() {
  for (const auto& [id, n] : knownBugsSeen()) std::fprintf(stderr, "c10 known upstream: %s seen in %zu inputs\n", id.c_str(), n);
}

void noteKnownBug(const std::string& id) {
  static const bool at_exit = [] {
    knownBugsSeen();  // made before std::atexit, so destroyed after it calls back
    return std::atexit(printKnownBugsSeen) == 0;
  }();
  (void)at_exit;
  const size_t n = ++knownBugsSeen()[id];
  if ((n & (n - 1)) == 0) std::fprintf(stderr, "c10 known upstream: %s seen in %zu inputs\n", id.c_str(), n);
}

}  // namespace

int runC10Target(const char* target, const oracle::ActionWeights& weights, const uint8_t* data, size_t size) {
  const auto actions = oracle::decodeActions(data, size, weights);
  auto described = [&] {
    std::ostringstream trace;
    oracle::printTrace(trace, actions);
    return "\ntrace:\n" + trace.str();
  };
  static const std::string start_state = c10_sut::c10State();
  static const c10_sut::C10Oracle judge = c10_sut::oracleFromEnvironment();
  std::map<std::string, size_t> skip_reasons;
  std::optional<std::string> disagreement;
  try {
    auto sut = c10_sut::makeC10System(judge == c10_sut::C10Oracle::ModelFree);
    disagreement = c10_sut::runTrace(judge, *sut, actions, nullptr, &skip_reasons);
  } catch (const std::exception& e) {
    reportBug(target, "harness error", std::string(e.what()) + described());
  }
  if (const std::string now = c10_sut::c10State(); now != start_state) {
    reportBug(target, "the input left c10 changed", "--- before\n" + start_state + "--- after\n" + now + described());
  }
  if (counting()) {
    Counts& c = counts();
    ++c.inputs;
    c.actions += actions.size();
    for (const auto& a : actions) c.named_key_actions += a.kind == oracle::ActionKind::NamedKey;
    for (const auto& [reason, n] : skip_reasons) c.skip_reasons[reason] += n;
  }
  if (!disagreement) return 0;
  if (const auto known = knownBugIn(knownBugs(), *disagreement)) {
    noteKnownBug(*known);
    return -1;
  }
  reportBug(target, judge == c10_sut::C10Oracle::Model ? "c10 and model disagree" : "c10 breaks an oracle",
            *disagreement + described());
}

void printC10InputAsCpp(std::ostream& out, const oracle::ActionWeights& weights, const uint8_t* data,
                        size_t size) {
  const auto actions = oracle::decodeActions(data, size, weights);
  const c10_sut::C10Oracle judge = c10_sut::oracleFromEnvironment();
  std::vector<oracle::Action> ran;
  std::string verdict = judge == c10_sut::C10Oracle::Model ? "c10 agreed with the model on every action"
                                                          : "c10 kept every model-free oracle";
  auto replay = [&](auto& runner) {
    for (size_t i = 0; i < actions.size(); ++i) {
      const size_t skipped = runner.skipped();
      const auto disagreement = runner.step(actions[i]);
      if (runner.skipped() == skipped) ran.push_back(actions[i]);
      if (disagreement) {
        verdict = "step " + std::to_string(i) + ": " + disagreement->substr(0, disagreement->find('\n'));
        return;
      }
    }
  };
  {
    auto sut = c10_sut::makeC10System(judge == c10_sut::C10Oracle::ModelFree);
    if (judge == c10_sut::C10Oracle::Model) {
      oracle::SeamRunner runner(*sut);
      replay(runner);
    } else {
      oracle::ModelFreeRunner runner(*sut);
      replay(runner);
    }
  }
  out << "// dispatch-fuzz-cpp: libtorch\n" << libtorchProgram(ran, "What the harness saw: " + verdict.substr(0, 300));
}

}  // namespace dispatch::fuzz::c10
