#pragma once
// Dispatcher actions as the stateful and cross-flavour properties generate them: oracle Actions
// (oracle::OurDispatcherRunner runs and checks them, as it does the fuzz targets'), each with a stable
// handle label: every registration is handle "h<label>", and a drop names the label it releases
// (the runner's drop handle, an index among the registrations made so far, is only known when
// the trace runs). A shrunk counterexample reads as
//     h1 = def fz::op0(Tensor self, Tensor? other, int tag) -> str
//     h2 = impl typed fz::op0 @ CPU
//     drop h2
//     call fz::op0(self=DispatchKeySet(CPU, ...) [0x...], other=None)

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/actions/action_codec.h"

namespace dispatch::props {

using oracle::Action;
using oracle::ActionKind;

struct LabelledAction {
  Action action;
  int label = 0;   // registrations: the handle's name h<label>
  int target = 0;  // drops: the label of the handle it releases
};

// A generated sequence; RapidCheck shows it as numbered dispatcher calls.
struct LabelledTrace {
  std::vector<LabelledAction> actions;
};
void showValue(const LabelledTrace& trace, std::ostream& os);

// The same actions with the handles renamed h1, h2, ... in order of registration (shrinking
// leaves gaps); a drop follows its handle.
LabelledTrace renumbered(std::vector<LabelledAction> actions);

// One line: "h2 = " + oracle::describe(action) for registrations, "drop h<target>" for drops.
std::string describe(const LabelledAction& labelled);

// The action to run, with the drop's handle set to handle_index (the position of the dropped
// handle among the registrations that succeeded so far: the runner's numbering).
Action withDropHandle(const LabelledAction& labelled, uint32_t handle_index);

// What generating the next action needs to know about the ones before it.
struct GenContext {
  std::vector<std::pair<int, bool>> handles;  // (label, live) of the registrations so far
  int guards = 0;                             // TLS guards currently pushed
  int next_label = 1;
};

// How often the properties pick each kind: registrations and calls dominate, every kind stays
// reachable.
extern const oracle::ActionWeights kPropertyWeights;

// One action; drops only when there is a handle (mostly a live one, sometimes a released one:
// the double-release error), pop only with a guard.
rc::Gen<LabelledAction> genLabelledAction(const GenContext& context);

// Where one case concentrates, so that its registrations meet on the same operator and keys and
// reach deep table states (three kernels on chosen keys, then drops) within the pre-merge case
// counts: two keys that decide tables, and fz::op0 for most actions.
struct Focus {
  std::vector<DispatchKey> keys;  // impls and fallbacks pick among these most of the time
  bool one_operator = false;      // genOneOperatorFocus: see there
};
rc::Gen<Focus> genFocus();
// A focus on one operator's kernels and drops, for the deep stateful property: every
// registration, drop and call on fz::op0; impls on four distinct keys that decide tables, the
// first of them most often (kernels stack four deep on it), the others often enough that four
// keys hold kernels; fallbacks mostly on other keys (slots no kernel decides); drops of live
// handles only, the newest or any. Five actions on one operator are then the common case of a
// short sequence, not a rare one (the deep bugs of bench/bugs/deep/ need exactly that).
rc::Gen<Focus> genOneOperatorFocus();
// genLabelledAction, concentrated on the focus (empty keys: not concentrated).
rc::Gen<LabelledAction> genLabelledAction(const GenContext& context, const Focus& focus);

}  // namespace dispatch::props
