// The registration fuzzer's actions against PyTorch's own dispatcher (c10 in libtorch): each
// input runs on a fresh c10 system under test (c10_sut/). Against 1.13.1 it is checked against
// the model after every action (tables, outcomes, thread-local keys) and with c10's
// OperatorHandle::checkInvariants after every registration and drop; against other releases
// (or with DISPATCH_C10_ORACLE=model-free) by the model-free oracles (c10_sut/c10_oracle.h),
// with every live slot probed. Afterwards c10 must be exactly as the input found it.
// Sanitizers and coverage see our code only (libtorch is not instrumented).
//
// DISPATCH_C10_KNOWN_UPSTREAM=<fuzz/c10/known_upstream.signatures>: an input that only shows a
// known upstream bug is skipped (and kept out of the corpus), so a campaign goes on past them.

#include <cstdlib>
#include <sstream>

#include "c10_sut/c10_oracle.h"
#include "c10_sut/c10_system.h"
#include "harness/trace_target.h"
#include "known_upstream.h"
#include "libtorch_program.h"
#include "oracle/runner/model_free_runner.h"
#include "oracle/runner/seam_runner.h"

namespace {

constexpr const char* kTarget = "c10_registration_fuzzer";

const std::vector<dispatch::fuzz::c10::KnownBug>& knownBugs() {
  static const std::vector<dispatch::fuzz::c10::KnownBug> bugs = [] {
    const char* path = std::getenv("DISPATCH_C10_KNOWN_UPSTREAM");
    return path && *path ? dispatch::fuzz::c10::readKnownBugs(path)
                         : std::vector<dispatch::fuzz::c10::KnownBug>{};
  }();
  return bugs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dispatch;
  const auto actions = oracle::decodeActions(data, size, oracle::kRegistrationWeights);
  auto described = [&] {
    std::ostringstream trace;
    oracle::printTrace(trace, actions);
    return "\ntrace:\n" + trace.str();
  };
  static const std::string start_state = c10_sut::c10State();
  static const c10_sut::C10Oracle judge = c10_sut::oracleFromEnvironment();
  std::optional<std::string> disagreement;
  try {
    auto sut = c10_sut::makeC10System(judge == c10_sut::C10Oracle::ModelFree);
    disagreement = c10_sut::runTrace(judge, *sut, actions);
  } catch (const std::exception& e) {
    fuzz::reportBug(kTarget, "harness error", std::string(e.what()) + described());
  }
  if (const std::string now = c10_sut::c10State(); now != start_state) {
    fuzz::reportBug(kTarget, "the input left c10 changed",
                    "--- before\n" + start_state + "--- after\n" + now + described());
  }
  if (!disagreement) return 0;
  if (fuzz::c10::knownBugIn(knownBugs(), *disagreement)) return -1;
  fuzz::reportBug(kTarget, judge == c10_sut::C10Oracle::Model ? "c10 and model disagree" : "c10 breaks an oracle",
                  *disagreement + described());
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printTraceInput(out, oracle::kRegistrationWeights, data, size);
}

// --print-cpp: a standalone program against libtorch (fuzz/c10/libtorch_program.h) replaying the
// actions the seam runner ran on c10, up to the first disagreement.
void dispatch::fuzz::printInputAsCpp(std::ostream& out, const uint8_t* data, size_t size) {
  const auto actions = oracle::decodeActions(data, size, oracle::kRegistrationWeights);
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
  out << "// dispatch-fuzz-cpp: libtorch\n"
      << c10::libtorchProgram(ran, "What the harness saw: " + verdict.substr(0, 300));
}
