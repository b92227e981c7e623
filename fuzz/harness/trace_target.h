#pragma once
// The body shared by the API-sequence fuzzers: decode a trace with the target's action weights,
// run it on both flavours against the model, and report the first disagreement.

#include <sstream>

#include "cell_recorder.h"
#include "fuzz_target.h"
#include "trace_runner.h"

namespace dispatch::fuzz {

inline int runTraceTarget(const char* target, const ActionWeights& weights, const uint8_t* data,
                          size_t size) {
  const std::vector<Action> actions = decodeActions(data, size, weights);
  std::ostringstream trace;
  printTrace(trace, actions);
  try {
    if (auto disagreement = runTraceOnAllFlavours(actions)) {
      reportBug(target, "dispatcher and model disagree", *disagreement + "\ntrace:\n" + trace.str());
    }
  } catch (const std::exception& e) {
    reportBug(target, "library error", std::string(e.what()) + "\ntrace:\n" + trace.str());
  }
  if (CellRecorder* cells = CellRecorder::active()) cells->endInput(target);
  return 0;
}

inline void printTraceInput(std::ostream& out, const ActionWeights& weights, const uint8_t* data,
                            size_t size) {
  printTrace(out, decodeActions(data, size, weights));
}

// printInputAsCpp for trace targets: one Action initializer per line, describe() as a comment.
inline void printTraceInputAsCpp(std::ostream& out, const ActionWeights& weights,
                                 const uint8_t* data, size_t size) {
  const std::vector<Action> actions = decodeActions(data, size, weights);
  out << "// dispatch-fuzz-cpp: actions\n";
  for (size_t i = 0; i < actions.size(); ++i) {
    out << toCpp(actions[i]) << ",  // " << i << ": " << describe(actions[i]) << "\n";
  }
}

}  // namespace dispatch::fuzz
