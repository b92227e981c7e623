#pragma once
// The body shared by the API-sequence fuzzers: decode a trace with the target's action weights,
// run it on every declared flavour against the model, and report the first disagreement.

#include <sstream>

#include "harness/fuzz_target.h"
#include "oracle/actions/action_codec.h"
#include "oracle/ours/cell_recorder.h"
#include "oracle/ours/our_dispatcher_runner.h"

namespace dispatch::fuzz {

inline int runTraceTarget(const char* target, const oracle::ActionWeights& weights,
                          const uint8_t* data, size_t size) {
  const std::vector<oracle::Action> actions = oracle::decodeActions(data, size, weights);
  // The trace is described only for a report: printing every input cost more than running it.
  auto described = [&] {
    std::ostringstream trace;
    oracle::printTrace(trace, actions);
    return "\ntrace:\n" + trace.str();
  };
  try {
    if (auto disagreement = oracle::runTraceOnAllFlavours(actions)) {
      reportBug(target, "dispatcher and model disagree", *disagreement + described());
    }
  } catch (const std::exception& e) {
    reportBug(target, "library error", std::string(e.what()) + described());
  }
  if (oracle::CellRecorder* cells = oracle::CellRecorder::active()) cells->endInput(target);
  return 0;
}

inline void printTraceInput(std::ostream& out, const oracle::ActionWeights& weights,
                            const uint8_t* data, size_t size) {
  oracle::printTrace(out, oracle::decodeActions(data, size, weights));
}

// printInputAsCpp for trace targets: one Action initializer per line, describe() as a comment.
inline void printTraceInputAsCpp(std::ostream& out, const oracle::ActionWeights& weights,
                                 const uint8_t* data, size_t size) {
  const std::vector<oracle::Action> actions = oracle::decodeActions(data, size, weights);
  out << "// dispatch-fuzz-cpp: actions\n";
  for (size_t i = 0; i < actions.size(); ++i) {
    out << oracle::toCpp(actions[i]) << ",  // " << i << ": " << oracle::describe(actions[i]) << "\n";
  }
}

}  // namespace dispatch::fuzz
