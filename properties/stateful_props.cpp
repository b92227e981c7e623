// Model-based stateful test (rc::state): random sequences of registrations (def, impl on runtime
// keys, alias keys and the catch-all, direct and library fallbacks, real and fallthrough, on any
// key including aliases and keys absent on mobile, the start-up fallback set), drops of any
// handle in any order (double releases included), thread-local include / exclude guards, calls
// with random tensor key sets, boxed calls and redispatches, on each flavour. Each case
// concentrates on a few keys that decide tables and on fz::op0 (action_gen.h Focus), so that
// the pre-merge case counts reach states five or more actions deep on one operator.
//
// After every command:
//   * oracle::SeamRunner::step has compared the outcome (registration result, call result or
//     error kind) with the reference model, the touched tables, and run checkInvariants;
//   * every slot of every operator's table and the fallback table equal the model's
//     (SeamRunner::checkAll);
//   * a command that fails, and every call or guard, leaves the dispatcher exactly as it was
//     (snapshot of every dumpState, live and recomputed table, and the fallbacks).
// Each case runs in a forked child (prop_support.h), so a crash is a shrinkable failure.

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>

#include "action_gen.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/runner/model_actions.h"
#include "oracle/ours/our_dispatcher_runner.h"
#include "prop_support.h"

#include <rapidcheck/state.h>

namespace dispatch::props {
namespace {

// The rc::state model: what generation and preconditions need, and the model dispatcher that
// predicts which registrations succeed (so drops can name live handles).
struct StatefulModel {
  explicit StatefulModel(model::Flavour flavour) : md(flavour) {}

  struct Handle {
    int label = 0;
    bool dropped = false;
    std::vector<model::RegistrationId> ids;
  };

  model::ModelDispatcher md;
  Focus focus;                  // where this case's actions concentrate (fixed for the case)
  std::vector<Handle> handles;  // successful registrations in order (OurDispatcherRunner's numbering)
  int guards = 0;
  int next_label = 1;

  GenContext context() const {
    GenContext c;
    for (const Handle& h : handles) c.handles.emplace_back(h.label, !h.dropped);
    c.guards = guards;
    c.next_label = next_label;
    return c;
  }
  // The newest handle with this label (labels are unique unless shrinking regenerated a step).
  std::optional<size_t> indexOf(int label) const {
    for (size_t i = handles.size(); i-- > 0;) {
      if (handles[i].label == label) return i;
    }
    return std::nullopt;
  }
};

// The system under test: the harness's runner (a real dispatcher plus its own model), and a
// readable log of this case for the failure message.
template <class L>
struct StatefulSut {
  oracle::OurDispatcherRunner<L> runner;
  std::vector<std::string> log;
  int next_kernel = 0;  // mirrors the runner's kernel names: k<n> for impls, fb<n> for fallbacks
};

template <class L>
class ActionCommand final : public rc::state::Command<StatefulModel, StatefulSut<L>> {
 public:
  explicit ActionCommand(LabelledAction action) : labelled_(std::move(action)) {}

  void checkPreconditions(const StatefulModel& m) const override {
    if (labelled_.action.kind == ActionKind::Drop) RC_PRE(m.indexOf(labelled_.target).has_value());
    if (labelled_.action.kind == ActionKind::PopGuard) RC_PRE(m.guards > 0);
  }

  void apply(StatefulModel& m) const override {
    if (oracle::isRegistration(labelled_.action.kind)) {
      // The trace runner's own model side; kernel names do not decide success.
      oracle::ModelRegistration reg = oracle::registerOnModel(m.md, labelled_.action, "k");
      if (reg.result.ok()) m.handles.push_back({labelled_.label, false, std::move(reg.ids)});
      m.next_label = std::max(m.next_label, labelled_.label + 1);
    } else if (labelled_.action.kind == ActionKind::Drop) {
      auto& handle = m.handles[*m.indexOf(labelled_.target)];
      for (auto id : handle.ids) m.md.drop(id);  // a second drop is refused, as on the real side
      handle.dropped = true;
    } else if (oracle::isGuard(labelled_.action.kind)) {
      m.guards += labelled_.action.kind == ActionKind::PopGuard ? -1 : 1;
    }
  }

  void run(const StatefulModel& m, StatefulSut<L>& sut) const override {
    const StatefulModel next = this->nextState(m);
    uint32_t handle_index = 0;
    bool changes_dispatcher = false;
    std::string note;
    if (oracle::isRegistration(labelled_.action.kind)) {
      changes_dispatcher = next.handles.size() > m.handles.size();
      const int kernel = sut.next_kernel++;
      const Action& a = labelled_.action;
      const bool is_block = a.kind == ActionKind::LibraryBlock;
      const bool makes_kernel = oracle::isImpl(a.kind) || (is_block && oracle::isLibraryImpl(a.block->body));
      if (a.kind != ActionKind::Def && a.kind != ActionKind::StartupFallbacks && (!is_block || makes_kernel)) {
        note = std::string(" [kernel ") + (makes_kernel ? "k" : "fb") + std::to_string(kernel) + "]";
      }
      note += changes_dispatcher ? "  -> registered" : "  -> refused (model)";
    } else if (labelled_.action.kind == ActionKind::Drop) {
      const size_t index = *m.indexOf(labelled_.target);
      handle_index = static_cast<uint32_t>(index);
      changes_dispatcher = !m.handles[index].dropped;
      note = changes_dispatcher ? "  -> released" : "  -> already released: must be refused";
    }
    sut.log.push_back(describe(labelled_) + note);

    const std::string before = dispatcherSnapshot(sut.runner.dispatcher());
    const std::string tls_before = tlsSnapshot();
    std::optional<std::string> problem;
    try {
      problem = sut.runner.step(withDropHandle(labelled_, handle_index));
      if (!problem) problem = sut.runner.checkAll();
    } catch (const InternalError& e) {
      problem = std::string("the library reports an internal error (a failed invariant): ") +
                e.what();
    } catch (const std::exception& e) {
      problem = std::string("unexpected exception: ") + e.what();
    }
    if (!problem && !changes_dispatcher) {
      const std::string after = dispatcherSnapshot(sut.runner.dispatcher());
      if (after != before) {
        problem = "this step must leave the dispatcher unchanged, but it changed it:\n" +
                  lineDiff(before, after);
      }
    }
    if (!problem && !oracle::isGuard(labelled_.action.kind) && tlsSnapshot() != tls_before) {
      problem = "this step changed the thread-local keys: before " + tls_before + ", after " +
                tlsSnapshot();
    }
    if (!problem && sut.runner.model().liveRegistrations().size() !=
                        next.md.liveRegistrations().size()) {
      problem = "harness drift: the generator's model and the runner's model disagree on the "
                "live registrations (oracle::registerOnModel is not what OurDispatcherRunner does)";
    }
    if (problem) RC_FAIL(report(sut, *problem));
  }

  void show(std::ostream& os) const override { os << describe(labelled_); }
  const LabelledAction& action() const { return labelled_; }

 private:
  std::string report(const StatefulSut<L>& sut, const std::string& problem) const {
    std::ostringstream out;
    out << L::kName << " flavour, step " << sut.log.size() << " of this case: "
        << readableDisagreement(problem)
        << "\n\nThe case so far (thread-local keys now: " << tlsSnapshot() << "):\n";
    for (size_t i = 0; i < sut.log.size(); ++i) out << "  " << i + 1 << ". " << sut.log[i] << "\n";
    return out.str();
  }

  LabelledAction labelled_;
};

// One case: a sequence concentrated by `focus` (a few keys and fz::op0, so that the pre-merge
// counts reach deep states on one operator: several kernels on chosen keys, then drops). Its
// length is drawn from 1 .. size + 1, size RapidCheck's (growing from 0 over the cases), or
// `fixed_size` for every case: then the first cases are as deep as the last.
template <class L>
void statefulCase(const rc::Gen<Focus>& focus, std::optional<int> fixed_size = std::nullopt) {
  using Command = rc::state::Command<StatefulModel, StatefulSut<L>>;
  using Commands = std::vector<std::shared_ptr<const Command>>;
  StatefulModel initial(oracle::kModelFlavour<L>);
  initial.focus = *focus;
  auto make = [](LabelledAction a) {
    return std::shared_ptr<const Command>(std::make_shared<const ActionCommand<L>>(std::move(a)));
  };
  // Generated (and shrunk) by rc::state; shown as a numbered list of dispatcher calls.
  auto commands_gen = rc::state::gen::commands(initial, [make](const StatefulModel& m) {
    return rc::gen::map(genLabelledAction(m.context(), m.focus), make);
  });
  if (fixed_size) commands_gen = rc::gen::resize(*fixed_size, std::move(commands_gen));
  const LabelledTrace trace = *rc::gen::map(
      std::move(commands_gen),
      [](const Commands& commands) {
        std::vector<LabelledAction> actions;
        for (const auto& c : commands) actions.push_back(static_cast<const ActionCommand<L>&>(*c).action());
        return renumbered(std::move(actions));
      });
  Commands commands;
  for (const LabelledAction& a : trace.actions) commands.push_back(make(a));
  isolate([&] {
    StatefulSut<L> sut;
    rc::state::runAll(commands, initial, sut);
  });
}

}  // namespace

DISPATCH_LAYOUT_PROP(Stateful, DispatcherAgreesWithModel, 150, 120) { statefulCase<L>(genFocus()); }

// The same checks on sequences concentrated on one operator's kernels and drops
// (genOneOperatorFocus), so that states five or more actions deep on it are reached by
// construction within the pre-merge case counts, not by luck.
// Every case up to 61 actions long (no growth from short sequences), so that each one can reach
// the five-action states.
DISPATCH_LAYOUT_PROP(StatefulOneOperator, DeepStatesAgreeWithModel, 100, 60) {
  statefulCase<L>(genOneOperatorFocus(), 60);
}

}  // namespace dispatch::props
