#include "oracle/ours/our_dispatcher_runner.h"

#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {

std::optional<std::string> runTraceOnAllFlavours(const std::vector<Action>& actions) {
  return AllLayouts::firstOf([&]<class L>() {
    OurDispatcherSut<L> sut;
    return runTraceOnSut(sut, actions);
  });
}

}  // namespace dispatch::oracle
