// Model-based stateful test (rc::state): random sequences of registrations (def, impl on runtime
// keys, alias keys and the catch-all, direct and library fallbacks, real and fallthrough, on any
// key including aliases and keys absent on mobile, the start-up fallback set), drops of any
// handle in any order (double releases included), thread-local include / exclude guards, calls
// with random tensor key sets, boxed calls and redispatches, on each flavour.
//
// After every command:
//   * fuzz::TraceRunner::step has compared the outcome (registration result, call result or
//     error kind) with the reference model, the touched tables, and run checkInvariants;
//   * every slot of every operator's table and the fallback table equal the model's
//     (TraceRunner::checkAll);
//   * a command that fails, and every call or guard, leaves the dispatcher exactly as it was
//     (snapshot of every dumpState, live and recomputed table, and the fallbacks).
// Each case runs in a forked child (prop_support.h), so a crash is a shrinkable failure.

#include <algorithm>
#include <memory>
#include <sstream>

#include "generators.h"
#include "prop_support.h"
#include "steps.h"
#include "trace_runner.h"

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
  std::vector<Handle> handles;  // successful registrations in order (TraceRunner's numbering)
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
  fuzz::TraceRunner<L> runner;
  std::vector<std::string> log;
  int next_kernel = 0;  // mirrors the runner's kernel names: k<n> for impls, fb<n> for fallbacks
};

template <class L>
class StepCommand final : public rc::state::Command<StatefulModel, StatefulSut<L>> {
 public:
  explicit StepCommand(Step step) : step_(std::move(step)) {}

  void checkPreconditions(const StatefulModel& m) const override {
    if (step_.kind == ActionKind::Drop) RC_PRE(m.indexOf(step_.target).has_value());
    if (step_.kind == ActionKind::PopGuard) RC_PRE(m.guards > 0);
  }

  void apply(StatefulModel& m) const override {
    if (isRegistration(step_.kind)) {
      if (auto ids = applyRegistration(m.md, step_)) {
        m.handles.push_back({step_.label, false, std::move(*ids)});
      }
      m.next_label = std::max(m.next_label, step_.label + 1);
    } else if (step_.kind == ActionKind::Drop) {
      auto& handle = m.handles[*m.indexOf(step_.target)];
      for (auto id : handle.ids) m.md.drop(id);  // a second drop is refused, as on the real side
      handle.dropped = true;
    } else if (step_.kind == ActionKind::IncludeKeys || step_.kind == ActionKind::ExcludeKeys) {
      ++m.guards;
    } else if (step_.kind == ActionKind::PopGuard) {
      --m.guards;
    }
  }

  void run(const StatefulModel& m, StatefulSut<L>& sut) const override {
    const StatefulModel next = this->nextState(m);
    uint32_t handle_index = 0;
    bool changes_dispatcher = false;
    std::string note;
    if (isRegistration(step_.kind)) {
      changes_dispatcher = next.handles.size() > m.handles.size();
      const int kernel = sut.next_kernel++;
      const bool is_impl = step_.kind == ActionKind::ImplTyped ||
                           step_.kind == ActionKind::ImplBoxed ||
                           step_.kind == ActionKind::ImplFallthrough;
      if (step_.kind != ActionKind::Def && step_.kind != ActionKind::StartupFallbacks) {
        note = std::string(" [kernel ") + (is_impl ? "k" : "fb") + std::to_string(kernel) + "]";
      }
      note += changes_dispatcher ? "  -> registered" : "  -> refused (model)";
    } else if (step_.kind == ActionKind::Drop) {
      const size_t index = *m.indexOf(step_.target);
      handle_index = static_cast<uint32_t>(index);
      changes_dispatcher = !m.handles[index].dropped;
      note = changes_dispatcher ? "  -> released" : "  -> already released: must be refused";
    }
    sut.log.push_back(describe(step_) + note);

    const std::string before = dispatcherSnapshot(sut.runner.dispatcher());
    const std::string tls_before = tlsSnapshot();
    std::optional<std::string> problem;
    try {
      problem = sut.runner.step(toAction(step_, handle_index));
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
    if (!problem && !isGuard(step_.kind) && tlsSnapshot() != tls_before) {
      problem = "this step changed the thread-local keys: before " + tls_before + ", after " +
                tlsSnapshot();
    }
    if (!problem && sut.runner.model().liveRegistrations().size() !=
                        next.md.liveRegistrations().size()) {
      problem = "harness drift: the generator's model and the runner's model disagree on the "
                "live registrations (fix properties/steps.cpp applyRegistration)";
    }
    if (problem) RC_FAIL(report(sut, *problem));
  }

  void show(std::ostream& os) const override { os << describe(step_); }
  const Step& step() const { return step_; }

 private:
  std::string report(const StatefulSut<L>& sut, const std::string& problem) const {
    std::ostringstream out;
    out << L::kName << " flavour, step " << sut.log.size() << " of this case: "
        << readableDisagreement(problem)
        << "\n\nThe case so far (thread-local keys now: " << tlsSnapshot() << "):\n";
    for (size_t i = 0; i < sut.log.size(); ++i) out << "  " << i + 1 << ". " << sut.log[i] << "\n";
    return out.str();
  }

  Step step_;
};

template <class L>
void statefulCase() {
  using Command = rc::state::Command<StatefulModel, StatefulSut<L>>;
  using Commands = std::vector<std::shared_ptr<const Command>>;
  const model::Flavour flavour = L::kHasAbsentKeys ? model::Flavour::Mobile : model::Flavour::Full;
  const StatefulModel initial(flavour);
  auto make = [](Step s) {
    return std::shared_ptr<const Command>(std::make_shared<const StepCommand<L>>(std::move(s)));
  };
  // Generated (and shrunk) by rc::state; shown as a numbered list of dispatcher calls.
  const StepList list = *rc::gen::map(
      rc::state::gen::commands(initial,
                               [make](const StatefulModel& m) {
                                 return rc::gen::map(genStep(m.context()), make);
                               }),
      [](const Commands& commands) {
        std::vector<Step> steps;
        for (const auto& c : commands) steps.push_back(static_cast<const StepCommand<L>&>(*c).step());
        return renumbered(std::move(steps));
      });
  Commands commands;
  for (const Step& s : list.steps) commands.push_back(make(s));
  isolate([&] {
    StatefulSut<L> sut;
    rc::state::runAll(commands, initial, sut);
  });
}

}  // namespace

DISPATCH_PROP(Stateful, FullDispatcherAgreesWithModel, 150, 60, ()) { statefulCase<FullLayout>(); }

DISPATCH_PROP(Stateful, MobileDispatcherAgreesWithModel, 150, 60, ()) {
  statefulCase<MobileLayout>();
}

}  // namespace dispatch::props
