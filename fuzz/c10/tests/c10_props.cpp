// PyTorch's own dispatcher against the model, on random traces (RapidCheck): byte strings
// decoded as the registration and the fallback fuzzer decode them, run on c10 (c10_sut/). Every
// disagreement must be a known upstream bug (known_upstream.signatures); a new one fails the
// property with the shrunk trace. c10 must be left as the trace found it. Label c10.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "c10_sut/c10_system.h"
#include "known_upstream.h"
#include "oracle/actions/action_codec.h"
#include "oracle/runner/seam_runner.h"
#include "prop_support.h"

namespace dispatch::fuzz::c10 {
namespace {

void agreesUpToKnownBugs(const std::vector<uint8_t>& bytes, const oracle::ActionWeights& weights) {
  static const auto bugs = readKnownBugs(DISPATCH_C10_KNOWN_UPSTREAM);
  const auto actions = oracle::decodeActions(bytes.data(), bytes.size(), weights);
  const std::string before = c10_sut::c10State();
  std::optional<std::string> disagreement;
  {
    auto sut = c10_sut::makeC10System();
    disagreement = oracle::runTraceOnSut(*sut, actions);
  }
  if (c10_sut::c10State() != before) RC_FAIL("the trace left c10 changed");
  if (!disagreement) return;
  const auto known = knownBugIn(bugs, *disagreement);
  RC_TAG(known ? *known : std::string("new"));
  if (!known) RC_FAIL("c10 and the model disagree, and it is no known upstream bug:\n" + *disagreement);
}

}  // namespace
}  // namespace dispatch::fuzz::c10

DISPATCH_PROP(C10, RegistrationTracesAgreeUpToKnownBugs, 60, 120, (const std::vector<uint8_t>& bytes)) {
  dispatch::fuzz::c10::agreesUpToKnownBugs(bytes, dispatch::oracle::kRegistrationWeights);
}

DISPATCH_PROP(C10, FallbackTracesAgreeUpToKnownBugs, 60, 120, (const std::vector<uint8_t>& bytes)) {
  dispatch::fuzz::c10::agreesUpToKnownBugs(bytes, dispatch::oracle::kFallbackWeights);
}
