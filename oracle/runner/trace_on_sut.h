#pragma once
// The loop both SUT runners share (SeamRunner, ModelFreeRunner): every action in order, its step
// logged under DISPATCH_FUZZ_TRACE, the first report as "<sut>: step N (<action>): <report>", then
// the runner's end-of-trace check. skipped (optional) receives the number of skipped actions,
// skip_reasons (optional) gains one count per skipped action under its reason.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/runner/step_log.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::oracle {

template <class Runner>
std::optional<std::string> runTraceWith(SystemUnderTest& sut, const std::vector<Action>& actions, size_t* skipped,
                                        std::map<std::string, size_t>* skip_reasons) {
  Runner runner(sut);
  auto report = [&](const std::string& where, const std::string& d) {
    if (skipped) *skipped = runner.skipped();
    return sut.name() + ": " + where + d;
  };
  for (size_t i = 0; i < actions.size(); ++i) {
    if (traceSteps()) logStep(sut.name(), i, toString(actions[i].kind), actions[i].key, describe(actions[i]));
    const size_t skipped_before = runner.skipped();
    const auto broken = runner.step(actions[i]);
    if (skip_reasons && runner.skipped() > skipped_before) ++(*skip_reasons)[runner.lastSkipReason()];
    if (broken) return report("step " + std::to_string(i) + " (" + describe(actions[i]) + "): ", *broken);
  }
  if (auto d = runner.checkAll()) return report("", *d);
  if (skipped) *skipped = runner.skipped();
  return std::nullopt;
}

}  // namespace dispatch::oracle
