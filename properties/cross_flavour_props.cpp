// Cross-flavour differential (docs/harness.md §3): the same generated sequence of registrations,
// drops, TLS guards and calls runs on dispatch::full and dispatch::mobile in one binary (one
// after the other, so their thread-local guards never interleave; each flavour is also checked
// against the model by oracle::TraceRunner). Then, step by step:
//   * registrations succeed on both, except a direct fallback for a key mobile has no slot for
//     (mobile refuses it with a clean InvalidKeyError) and a library fallback that full refuses
//     because of a slot mobile does not have (mobile accepts it; the harness releases it again
//     at once so that both flavours keep the same registrations on the keys mobile keeps);
//   * a call whose final key set has a mobile slot gives the same kernel (or the same error
//     kind) on both, the slot holds the same key, and full's key set is a subset of mobile's
//     (full can also mask fallthrough keys mobile has no slot for); a call whose final key set
//     has no mobile slot fails on mobile with a clean NotImplementedError;
//   * every index is within its table or -1 (mobile), and every operator's mobile table and
//     the mobile fallbacks equal full's restricted to the 8 keys mobile keeps.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "action_gen.h"
#include "generators.h"
#include "oracle/names.h"
#include "oracle/trace_runner.h"
#include "prop_support.h"

#include <rapidcheck/state.h>

namespace dispatch::props {
namespace {

using Signature = std::string(const Tensor&, const std::optional<Tensor>&, int64_t);
constexpr int64_t kTag = 7;

// Generation state only: which labels exist (whether or not they succeed on a flavour).
struct CrossModel {
  std::vector<std::pair<int, bool>> handles;
  int guards = 0;
  int next_label = 1;
  GenContext context() const { return {handles, guards, next_label}; }
};
struct NoSut {};

class CrossCommand final : public rc::state::Command<CrossModel, NoSut> {
 public:
  explicit CrossCommand(LabelledAction action) : labelled_(std::move(action)) {}
  void checkPreconditions(const CrossModel& m) const override {
    if (labelled_.action.kind == ActionKind::Drop) {
      RC_PRE(std::any_of(m.handles.begin(), m.handles.end(),
                         [&](const auto& h) { return h.first == labelled_.target; }));
    }
    if (labelled_.action.kind == ActionKind::PopGuard) RC_PRE(m.guards > 0);
  }
  void apply(CrossModel& m) const override {
    if (oracle::isRegistration(labelled_.action.kind)) {
      m.handles.emplace_back(labelled_.label, true);
      m.next_label = std::max(m.next_label, labelled_.label + 1);
    } else if (labelled_.action.kind == ActionKind::Drop) {
      for (auto& h : m.handles) {
        if (h.first == labelled_.target) h.second = false;
      }
    } else if (oracle::isGuard(labelled_.action.kind)) {
      m.guards += labelled_.action.kind == ActionKind::PopGuard ? -1 : 1;
    }
  }
  void show(std::ostream& os) const override { os << describe(labelled_); }
  const LabelledAction& action() const { return labelled_; }

 private:
  LabelledAction labelled_;
};

struct CallRecord {
  bool found = true;                    // the operator exists
  std::optional<std::string> kernel;    // success: the kernel that produced the result
  uint64_t received = 0;                // success: the key set that kernel received
  std::optional<std::string> error;     // failure: the exception type
  std::string message;
  uint64_t looked_up = 0;               // the key set dispatch indexed with
  int index = 0;                        // its index in this flavour's table
};

struct StepRecord {
  bool registered = false;  // registrations: accepted on this flavour
  bool resynced = false;    // mobile: accepted although full refused it; released again
  bool skipped = false;     // drops: this flavour never made that handle
  std::optional<CallRecord> call;
  std::map<int, std::string> tables;  // operator -> live table (existing operators only)
  std::string fallbacks;
};

struct FlavourRun {
  std::vector<StepRecord> steps;
  std::optional<std::string> problem;  // disagreement with the model, or a library error
};

std::string errorName(const std::exception& e) {
  if (dynamic_cast<const AmbiguousAutogradOtherError*>(&e)) return "AmbiguousAutogradOtherError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const InvalidKeyError*>(&e)) return "InvalidKeyError";
  if (dynamic_cast<const RegistrationError*>(&e)) return "RegistrationError";
  if (dynamic_cast<const OperatorNotFoundError*>(&e)) return "OperatorNotFoundError";
  return std::string("other error: ") + e.what();
}

template <class L>
CallRecord realCall(const BasicDispatcher<L>& d, const Action& s) {
  CallRecord rec;
  const auto handle = d.findOp(OperatorName{oracle::opName(s.op), ""});
  if (!handle) {
    rec.found = false;
    return rec;
  }
  const Tensor self(DispatchKeySet(DispatchKeySet::RAW, s.keys));
  const std::optional<Tensor> other =
      s.other ? std::optional<Tensor>(Tensor(DispatchKeySet(DispatchKeySet::RAW, *s.other)))
              : std::nullopt;
  DispatchKeySet args = self.key_set() | (other ? other->key_set() : DispatchKeySet());
  if (s.kind == ActionKind::CallBoxed && !handle->hasSchema()) args = DispatchKeySet();
  const DispatchKeySet looked_up = s.kind == ActionKind::Redispatch
                                       ? DispatchKeySet(DispatchKeySet::RAW, s.keys)
                                       : handle->entry().computeDispatchKeySet(args);
  rec.looked_up = looked_up.raw_repr();
  rec.index = L::indexOf(looked_up);
  try {
    std::string result;
    if (s.kind == ActionKind::CallBoxed) {
      Stack stack{Value(self), other ? Value(*other) : Value(), Value(kTag)};
      handle->callBoxed(stack);
      result = stack.back().toString();
    } else {
      const auto typed = handle->template typed<Signature>();
      result = s.kind == ActionKind::Redispatch ? typed.redispatch(looked_up, self, other, kTag)
                                                : typed.call(self, other, kTag);
    }
    const size_t at = result.find('@');
    rec.kernel = result.substr(0, at);
    if (at != std::string::npos) rec.received = std::stoull(result.substr(at + 1), nullptr, 16);
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    rec.error = errorName(e);
    rec.message = e.what();
  }
  return rec;
}

template <class L>
FlavourRun runFlavour(const std::vector<LabelledAction>& steps, const FlavourRun* full) {
  FlavourRun run;
  oracle::TraceRunner<L> runner;
  std::map<int, uint32_t> index_of_label;  // label -> position among this flavour's registrations
  uint32_t made = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const LabelledAction& s = steps[i];
    StepRecord rec;
    try {
      uint32_t handle_index = 0;
      bool skip = false;
      if (s.action.kind == ActionKind::Drop) {
        const auto found = index_of_label.find(s.target);
        skip = found == index_of_label.end();
        if (!skip) handle_index = found->second;
      }
      rec.skipped = skip;
      if (!skip) {
        const size_t live_before = runner.model().liveRegistrations().size();
        if (auto problem = runner.step(withDropHandle(s, handle_index))) {
          run.problem = std::string(L::kName) + " flavour disagrees with the model: " + *problem;
        }
        if (oracle::isRegistration(s.action.kind)) {
          rec.registered = runner.model().liveRegistrations().size() > live_before;
        }
        if (!run.problem && oracle::isRegistration(s.action.kind)) {
          if (rec.registered) index_of_label[s.label] = made++;
          if (rec.registered && full != nullptr && !full->steps[i].registered) {
            rec.resynced = true;
            Action drop;
            drop.kind = ActionKind::Drop;
            drop.handle = index_of_label[s.label];
            index_of_label.erase(s.label);
            if (auto problem = runner.step(drop)) {
              run.problem = std::string(L::kName) + " flavour, releasing h" +
                            std::to_string(s.label) + " again: " + *problem;
            }
          }
        }
        if (!run.problem && oracle::isCall(s.action.kind)) rec.call = realCall(runner.dispatcher(), s.action);
      }
    } catch (const std::exception& e) {
      run.problem = std::string(L::kName) + " flavour, step " + std::to_string(i + 1) +
                    ": the library throws " + e.what();
    }
    for (int op = 0; op < oracle::kNumOps; ++op) {
      if (auto handle = runner.dispatcher().findOp(OperatorName{oracle::opName(op), ""})) {
        rec.tables[op] = handle->dumpDispatchTable();
      }
    }
    rec.fallbacks = runner.dispatcher().dumpFallbacks();
    run.steps.push_back(std::move(rec));
    if (run.problem) break;
  }
  return run;
}

// The lines of a table or fallback dump whose key mobile keeps ("CPU: k3 [kernel]").
std::string restrictToMobileKeys(const std::string& dump) {
  static const std::set<std::string> kept = [] {
    std::set<std::string> names;
    for (DispatchKey k : mobileKeptKeys()) names.insert(model::keyName(k));
    return names;
  }();
  std::istringstream in(dump);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (kept.count(line.substr(0, line.find(':')))) out += line + "\n";
  }
  return out;
}

std::string show(const CallRecord& c) {
  if (!c.found) return "operator not found";
  std::string out = "looked up " + oracle::keySetName(c.looked_up) + " at index " + std::to_string(c.index);
  if (c.kernel) return out + ", ran " + *c.kernel + " with " + oracle::keySetName(c.received);
  return out + ", threw " + *c.error + ": " + c.message.substr(0, 160);
}

bool isSubset(uint64_t a, uint64_t b) { return (a & ~b) == 0; }

// The first way in which mobile fails to agree with full at step i, if any.
std::optional<std::string> compareStep(const Action& s, const StepRecord& f, const StepRecord& m) {
  if (oracle::isRegistration(s.kind) && f.registered != m.registered) {
    const bool direct = s.kind == ActionKind::FallbackDirect ||
                        s.kind == ActionKind::FallthroughDirect;
    const bool library = s.kind == ActionKind::FallbackLibrary ||
                         s.kind == ActionKind::FallthroughLibrary ||
                         s.kind == ActionKind::StartupFallbacks;
    const bool absent_on_mobile = s.key && model::isRuntimeKey(*s.key) &&
                                  model::tableIndex(*s.key, model::Flavour::Mobile) < 0;
    if (f.registered && !(direct && absent_on_mobile)) {
      return std::string("full accepts the registration but mobile refuses it");
    }
    if (m.registered && !library) return std::string("mobile accepts the registration but full refuses it");
  }
  if (f.call && m.call) {
    const CallRecord& fc = *f.call;
    const CallRecord& mc = *m.call;
    if (fc.found != mc.found) return std::string("the operator exists on one flavour only");
    if (fc.found) {
      if (fc.index < -1 || fc.index >= num_runtime_entries) {
        return "full indexes out of range: " + std::to_string(fc.index);
      }
      if (mc.index < -1 || mc.index >= MobileLayout::kNumEntries) {
        return "mobile indexes out of range: " + std::to_string(mc.index);
      }
      if (mc.index < 0) {
        if (mc.kernel || mc.error != "NotImplementedError") {
          return "the key set has no mobile slot, so mobile must refuse the call with a clean "
                 "NotImplementedError; it " + show(mc);
        }
      } else {
        const DispatchKey mobile_key = model::tableSlots(model::Flavour::Mobile)[static_cast<size_t>(mc.index)];
        if (fc.index < 0 ||
            model::tableSlots(model::Flavour::Full)[static_cast<size_t>(fc.index)] != mobile_key) {
          return "mobile dispatches on its slot for " + model::keyName(mobile_key) +
                 ", full on a different key";
        }
        if (mc.kernel.has_value() != fc.kernel.has_value() ||
            (mc.kernel && *mc.kernel != *fc.kernel) || (mc.error && *mc.error != *fc.error)) {
          return "the call differs on a key mobile keeps (" + model::keyName(mobile_key) + ")";
        }
        if (mc.kernel && !isSubset(fc.received, mc.received)) {
          return "full's kernel received keys mobile's did not";
        }
      }
    }
  }
  for (const auto& [op, table] : f.tables) {
    auto found = m.tables.find(op);
    if (found == m.tables.end()) return "operator " + oracle::opName(op) + " exists on full only";
    if (restrictToMobileKeys(table) != found->second) {
      return "the table of " + oracle::opName(op) + " on the keys mobile keeps differs:\n" +
             lineDiff(restrictToMobileKeys(table), found->second);
    }
  }
  if (m.tables.size() != f.tables.size()) return std::string("an operator exists on mobile only");
  if (restrictToMobileKeys(f.fallbacks) != m.fallbacks) {
    return "the fallbacks of the keys mobile keeps differ:\n" +
           lineDiff(restrictToMobileKeys(f.fallbacks), m.fallbacks);
  }
  return std::nullopt;
}

std::string report(const std::vector<LabelledAction>& steps, const FlavourRun& full,
                   const FlavourRun& mobile, size_t failed_at, const std::string& problem) {
  std::ostringstream out;
  out << "step " << failed_at + 1 << ": " << readableDisagreement(problem)
      << "\n\nThe sequence (full | mobile):\n";
  for (size_t i = 0; i < steps.size() && i <= failed_at; ++i) {
    out << "  " << i + 1 << ". " << describe(steps[i]) << "\n";
    auto outcome = [&](const FlavourRun& run) -> std::string {
      if (i >= run.steps.size()) return "(not run)";
      const StepRecord& r = run.steps[i];
      if (oracle::isRegistration(steps[i].action.kind)) {
        return std::string(r.registered ? "registered" : "refused") +
               (r.resynced ? ", released again (full refused it)" : "");
      }
      if (r.skipped) return "skipped (this flavour never made the handle)";
      if (r.call) return show(*r.call);
      return "ok";
    };
    const ActionKind kind = steps[i].action.kind;
    if (oracle::isRegistration(kind) || oracle::isCall(kind) || kind == ActionKind::Drop) {
      out << "       full:   " << outcome(full) << "\n       mobile: " << outcome(mobile) << "\n";
    }
  }
  return out.str();
}

}  // namespace

DISPATCH_PROP(CrossFlavour, MobileAgreesWithFullOnTheKeysItKeeps, 150, 50, ()) {
  using Command = rc::state::Command<CrossModel, NoSut>;
  using Commands = std::vector<std::shared_ptr<const Command>>;
  // Generated and shrunk by rc::state (drops stay valid), shown as numbered dispatcher calls.
  const LabelledTrace trace = *rc::gen::map(
      rc::state::gen::commands(CrossModel{},
                               [](const CrossModel& m) {
                                 return rc::gen::map(genLabelledAction(m.context()), [](LabelledAction a) {
                                   return std::shared_ptr<const Command>(
                                       std::make_shared<const CrossCommand>(std::move(a)));
                                 });
                               }),
      [](const Commands& commands) {
        std::vector<LabelledAction> actions;
        for (const auto& c : commands) actions.push_back(static_cast<const CrossCommand&>(*c).action());
        return renumbered(std::move(actions));
      });
  const std::vector<LabelledAction>& steps = trace.actions;

  isolate([&] {
    const FlavourRun full = runFlavour<FullLayout>(steps, nullptr);
    const FlavourRun mobile = runFlavour<MobileLayout>(steps, &full);
    for (const FlavourRun* run : {&full, &mobile}) {
      if (run->problem) {
        RC_FAIL(report(steps, full, mobile, run->steps.size() - 1, *run->problem));
      }
    }
    for (size_t i = 0; i < steps.size(); ++i) {
      if (auto problem = compareStep(steps[i].action, full.steps[i], mobile.steps[i])) {
        RC_FAIL(report(steps, full, mobile, i, *problem));
      }
    }
  });
}

}  // namespace dispatch::props
