#pragma once
// Our dispatcher of one layout, run by the one runner (oracle/runner/seam_runner.h) through its seam
// (oracle/ours/our_dispatcher_sut.h): what the API-sequence fuzzers, the stateful and cross-flavour
// properties, the repro job and the regression tests run a trace on. Not a runner of its own:
// the SUT and the runner side by side, with the dispatcher and the model in reach for checks
// that read them directly.

#include <optional>
#include <string>
#include <vector>

#include "dispatch/flavours.h"
#include "oracle/actions/action.h"
#include "oracle/ours/our_dispatcher_sut.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::oracle {

template <class L>
class OurDispatcherRunner {
 public:
  OurDispatcherRunner() : runner_(sut_) {}
  OurDispatcherRunner(const OurDispatcherRunner&) = delete;
  OurDispatcherRunner& operator=(const OurDispatcherRunner&) = delete;

  // SeamRunner::step and SeamRunner::checkAll; a library bug (InternalError) propagates.
  std::optional<std::string> step(const Action& action) { return runner_.step(action); }
  std::optional<std::string> checkAll() const { return runner_.checkAll(); }

  std::string_view flavour() const noexcept { return L::kName; }
  const BasicDispatcher<L>& dispatcher() const noexcept { return sut_.dispatcher(); }
  const model::ModelDispatcher& model() const noexcept { return runner_.model(); }

 private:
  OurDispatcherSut<L> sut_;  // before runner_: the runner refers to it
  SeamRunner runner_;
};

// Runs the whole trace on a fresh dispatcher of each layout (one after the other, so their TLS
// guards never interleave), then checks the thread's flight recorder at rest
// (CallWitness::restingRecorderDiffers). Returns "<flavour>: step N (<action>): <disagreement>"
// for the first disagreement, "after the trace: the flight recorder: ..." for the recorder, or
// nullopt.
std::optional<std::string> runTraceOnAllFlavours(const std::vector<Action>& actions);

}  // namespace dispatch::oracle
