#include "oracle/ours/our_dispatcher_runner.h"

#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {

std::optional<std::string> runTraceOnAllFlavours(const std::vector<Action>& actions) {
  auto disagreement = AllLayouts::firstOf([&]<class L>() {
    OurDispatcherSut<L> sut;
    return runTraceOnSut(sut, actions);
  });
  if (disagreement) return disagreement;
  // Once per trace, not per flavour: the recorder is the thread's, and its dump costs a write
  // per line.
  if (auto wrong = CallWitness::restingRecorderDiffers()) return "after the trace: the flight recorder: " + *wrong;
  return std::nullopt;
}

}  // namespace dispatch::oracle
