#pragma once
// Dispatcher steps as the stateful and cross-flavour properties generate them. A Step is the
// harness's fuzz::Action (so fuzz/harness/TraceRunner runs and checks it) plus stable labels:
// every registration is handle "h<label>", and a drop names the handle it releases, so a shrunk
// counterexample reads as
//     h1 = def fz::op0
//     h2 = impl fz::op0 @ CPU <- typed kernel
//     drop h2
//     fz::op0.call(self={CPU, ADInplaceOrView, AutogradCPU, AutocastCPU}, other=None)

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "action.h"
#include "dispatch_model/model.h"

namespace dispatch::props {

using fuzz::ActionKind;

struct Step {
  ActionKind kind = ActionKind::Def;
  int op = 0;                     // fz::op<op>
  std::optional<DispatchKey> key;  // impl (nullopt: catch-all) and fallbacks
  uint64_t keys = 0;              // guards and redispatch: the set; calls: self's key set
  std::optional<uint64_t> other;  // calls: the optional second tensor
  int label = 0;                  // registrations: the handle's name h<label>
  int target = 0;                 // drop: the label of the handle it releases
};

// A generated sequence; RapidCheck shows it as numbered dispatcher calls.
struct StepList {
  std::vector<Step> steps;
};
void showValue(const StepList& list, std::ostream& os);

// The same steps with the handles renamed h1, h2, ... in order of registration (shrinking leaves
// gaps); a drop follows its handle.
StepList renumbered(std::vector<Step> steps);

bool isRegistration(ActionKind kind);
bool isCall(ActionKind kind);
bool isGuard(ActionKind kind);

// One line, by key names: "h2 = impl fz::op0 @ CPU <- typed kernel".
std::string describe(const Step& step);

// The harness action; handle_index is the position of the dropped handle among the successful
// registrations so far (the TraceRunner's numbering), ignored by every other kind.
fuzz::Action toAction(const Step& step, uint32_t handle_index = 0);

// What generating the next step needs to know about the steps before it.
struct GenContext {
  std::vector<std::pair<int, bool>> handles;  // (label, live) of the registrations so far
  int guards = 0;                             // TLS guards currently pushed
  int next_label = 1;
};

// One step, weighted towards registrations and calls; drops only when there is a handle (mostly
// a live one, sometimes a released one: the double-release error), pop only with a guard.
rc::Gen<Step> genStep(const GenContext& context);

// Applies a registration step to the model exactly as fuzz::TraceRunner does (start-up fallbacks
// all or nothing). Returns the model ids it made, or nullopt if the model refuses it.
std::optional<std::vector<model::RegistrationId>> applyRegistration(model::ModelDispatcher& model,
                                                                    const Step& step);

}  // namespace dispatch::props
