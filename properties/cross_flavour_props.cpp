// Cross-flavour differential (docs/harness.md §3): the same generated sequence of registrations,
// drops, TLS guards and calls runs on dispatch::full and on every trimmed flavour of the build
// (dispatch::AllLayouts: mobile, lite, ... and drawn ones) in one binary (one after the other,
// so their thread-local guards never interleave; each flavour is also checked against the model
// by oracle::OurDispatcherRunner). Then, step by step, for each trimmed flavour T whose per-backend keys
// are all CPU's (see the property body for why the others are checked against the model only):
//   * registrations succeed on both, except a direct fallback for a key T has no slot for
//     (T refuses it with a clean InvalidKeyError) and a library fallback that full refuses
//     because of a slot T does not have (T accepts it; the harness releases it again at once
//     so that both flavours keep the same registrations on the keys T keeps);
//   * a call whose final key set has a slot in T gives the same kernel (or the same error
//     kind) on both, the slot holds the same key, and full's key set is a subset of T's
//     (full can also mask fallthrough keys T has no slot for); a call whose final key set
//     has no slot in T fails there with a clean NotImplementedError;
//   * every index is within its table or -1 (T), and every operator's table and the fallbacks
//     of T equal full's restricted to the keys T keeps.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include "action_gen.h"
#include "generators.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/actions/names.h"
#include "oracle/ours/our_dispatcher_runner.h"
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
  bool resynced = false;    // trimmed: accepted although full refused it; released again
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
  oracle::OurDispatcherRunner<L> runner;
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

// A trimmed flavour as the comparison with full sees it: the model's copy of its slots.
struct Trimmed {
  std::string name;
  model::Flavour flavour;
  int num_entries = 0;
  std::set<std::string> kept;  // key names
};
template <class L>
Trimmed trimmedOf() {
  Trimmed t{std::string(L::kName), oracle::kModelFlavour<L>, L::kNumEntries, {}};
  for (DispatchKey k : model::tableSlots(t.flavour)) t.kept.insert(model::keyName(k));
  return t;
}

// The lines of a table or fallback dump whose key the trimmed flavour keeps ("CPU: k3 [kernel]").
std::string restrictToKeptKeys(const std::string& dump, const Trimmed& t) {
  std::istringstream in(dump);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (t.kept.count(line.substr(0, line.find(':')))) out += line + "\n";
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

// The first way in which trimmed flavour t fails to agree with full at step i, if any.
std::optional<std::string> compareStep(const Action& s, const StepRecord& f, const StepRecord& m,
                                       const Trimmed& t) {
  const std::string& name = t.name;
  if (oracle::isRegistration(s.kind) && f.registered != m.registered) {
    const bool direct = s.kind == ActionKind::FallbackDirect ||
                        s.kind == ActionKind::FallthroughDirect;
    const bool library = s.kind == ActionKind::FallbackLibrary ||
                         s.kind == ActionKind::FallthroughLibrary ||
                         s.kind == ActionKind::StartupFallbacks;
    const bool absent = s.key && model::isRuntimeKey(*s.key) && model::tableIndex(*s.key, t.flavour) < 0;
    if (f.registered && !(direct && absent)) {
      return "full accepts the registration but " + name + " refuses it";
    }
    if (m.registered && !library) return name + " accepts the registration but full refuses it";
  }
  if (f.call && m.call) {
    const CallRecord& fc = *f.call;
    const CallRecord& mc = *m.call;
    if (fc.found != mc.found) return std::string("the operator exists on one flavour only");
    if (fc.found) {
      if (fc.index < -1 || fc.index >= num_runtime_entries) {
        return "full indexes out of range: " + std::to_string(fc.index);
      }
      if (mc.index < -1 || mc.index >= t.num_entries) {
        return name + " indexes out of range: " + std::to_string(mc.index);
      }
      if (mc.index < 0) {
        if (mc.kernel || mc.error != "NotImplementedError") {
          return "the key set has no " + name + " slot, so " + name +
                 " must refuse the call with a clean NotImplementedError; it " + show(mc);
        }
      } else {
        const DispatchKey kept_key = model::tableSlots(t.flavour)[static_cast<size_t>(mc.index)];
        if (fc.index < 0 ||
            model::tableSlots(model::Flavour::Full)[static_cast<size_t>(fc.index)] != kept_key) {
          return name + " dispatches on its slot for " + model::keyName(kept_key) +
                 ", full on a different key";
        }
        if (mc.kernel.has_value() != fc.kernel.has_value() ||
            (mc.kernel && *mc.kernel != *fc.kernel) || (mc.error && *mc.error != *fc.error)) {
          return "the call differs on a key " + name + " keeps (" + model::keyName(kept_key) + ")";
        }
        if (mc.kernel && !isSubset(fc.received, mc.received)) {
          return "full's kernel received keys " + name + "'s did not";
        }
      }
    }
  }
  for (const auto& [op, table] : f.tables) {
    auto found = m.tables.find(op);
    if (found == m.tables.end()) return "operator " + oracle::opName(op) + " exists on full only";
    if (restrictToKeptKeys(table, t) != found->second) {
      return "the table of " + oracle::opName(op) + " on the keys " + name + " keeps differs:\n" +
             lineDiff(restrictToKeptKeys(table, t), found->second);
    }
  }
  if (m.tables.size() != f.tables.size()) return "an operator exists on " + name + " only";
  if (restrictToKeptKeys(f.fallbacks, t) != m.fallbacks) {
    return "the fallbacks of the keys " + name + " keeps differ:\n" +
           lineDiff(restrictToKeptKeys(f.fallbacks, t), m.fallbacks);
  }
  return std::nullopt;
}

std::string report(const std::vector<LabelledAction>& steps, const FlavourRun& full,
                   const FlavourRun& trimmed, const std::string& name, size_t failed_at,
                   const std::string& problem) {
  std::ostringstream out;
  out << "step " << failed_at + 1 << ": " << readableDisagreement(problem)
      << "\n\nThe sequence (full | " << name << "):\n";
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
      out << "       full:   " << outcome(full) << "\n       " << name << ": " << outcome(trimmed)
          << "\n";
    }
  }
  return out.str();
}

}  // namespace

DISPATCH_PROP(CrossFlavour, TrimmedFlavoursAgreeWithFullOnTheKeysTheyKeep, 150, 50, ()) {
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
    if (full.problem) RC_FAIL(report(steps, full, full, "full", full.steps.size() - 1, *full.problem));
    AllLayouts::forEach([&]<class L>() {
      if constexpr (!std::is_same_v<L, FullLayout>) {
        const Trimmed t = trimmedOf<L>();
        const FlavourRun trimmed = runFlavour<L>(steps, &full);
        if (trimmed.problem) {
          RC_FAIL(report(steps, full, trimmed, t.name, trimmed.steps.size() - 1, *trimmed.problem));
        }
        // Step-by-step agreement with full holds where every per-backend key T keeps is CPU's
        // (mobile, lite, mobile_gpu). A table keeping XLA's autograd key but not CUDA's cannot
        // mask AutogradCUDA's fallthrough (keys without a slot are never masked,
        // docs/semantics.md §6.4), so CUDA arguments with XLA added by TLS land on AutogradXLA
        // there and on XLA in full: a real difference, found by a fifth flavour. Such flavours
        // are checked against the model only (runFlavour's OurDispatcherRunner, above).
        if constexpr (L::kOnlyCpuPerBackend) {
          for (size_t i = 0; i < steps.size(); ++i) {
            if (auto problem = compareStep(steps[i].action, full.steps[i], trimmed.steps[i], t)) {
              RC_FAIL(report(steps, full, trimmed, t.name, i, *problem));
            }
          }
        }
      }
    });
  });
}

}  // namespace dispatch::props
