#include <cstdio>
#include <sstream>

#include "boxed_call/runner.h"
#include "dispatch/startup_fallbacks.h"
#include "harness/fuzz_target.h"
#include "oracle/ours/action_cells.h"
#include "oracle/runner/model_actions.h"
#include "oracle/actions/names.h"
#include "oracle/runner/step_log.h"

namespace dispatch::fuzz::boxed_call {

using oracle::keyName;
using oracle::traceSteps;

template <class L>
void Runner<L>::run() {
  for (step_ = 0; step_ < program_.actions.size(); ++step_) {
    const Action& a = program_.actions[step_];
    if (traceSteps()) dispatch::oracle::logStep(L::kName, step_, toString(a.kind), a.key, describe(program_, a));
    switch (a.kind) {
      case ActionKind::CallBoxed:
      case ActionKind::RedispatchBoxed:
      case ActionKind::CallForKey:
        call(a);
        break;
      case ActionKind::Drop:
        drop(a);
        break;
      default:
        registration(a);
        break;
    }
    if (CellRecorder* cells = CellRecorder::active()) cells->observeTables(dispatcher_);
  }
  const auto tls = tls_local_dispatch_key_set();
  if (!(tls.included == default_included_set) || !(tls.excluded == default_excluded_set)) {
    fail("thread-local state not restored", "TLS differs from the default after the program");
  }
  // Once per program: the tables are registration_fuzzer's subject; here they only must not
  // have been corrupted by boxed calls (and checking after every step halves the speed).
  checkInvariants();
}

template <class L>
void Runner<L>::fail(const std::string& what, const std::string& details) const {
  std::ostringstream out;
  out << L::kName << " flavour";
  if (step_ < program_.actions.size()) {
    out << ", step " << step_ << " (" << describe(program_, program_.actions[step_]) << ")";
  }
  out << ": " << details << "\nprogram:\n";
  printProgram(out, program_);
  out << "log:\n";
  printNotes(out, notes_);
  dispatch::fuzz::reportBug(kTarget, what, out.str());
}

template <class L>
void Runner<L>::note(StepNote n) {
  if (traceSteps()) {
    std::ostringstream line;
    printNotes(line, {n});
    std::fprintf(stderr, "  -> %s", line.str().c_str());
  }
  notes_.push_back(std::move(n));
}

template <class L>
void Runner<L>::registration(const Action& a) {
  if (CellRecorder* cells = CellRecorder::active()) oracle::observeActionKeys<L>(*cells, a);
  const OpState& op = ops_[static_cast<size_t>(a.op)];
  const std::string op_name = toString(op.name);
  Registration reg;
  std::optional<Outcome> real;  // nullopt: success
  std::string message;
  std::optional<m::RegistrationResult> expected;
  std::string name;
  const uint64_t newest_event = oracle::CallWitness::newestEvent();
  // Real first (it may refuse for schema or signature reasons the model does not model, D16).
  // Refusals are expected all the time: the try... forms return them instead of throwing.
  auto keep = [&](TriedRegistration tried) {
    if (const Refusal* refusal = tried.refusal()) {
      real = classify(*refusal);
      message = refusal->message();
    } else {
      reg.handle = std::move(tried).take();
    }
  };
  try {
    switch (a.kind) {
      case ActionKind::Def:
        if (!op.schema) {
          real = Outcome::Schema;  // nothing to register; the library def below tries the text
          message = "no valid schema";
          break;
        }
        keep(dispatcher_.tryRegisterDef(*op.schema, "def " + op_name));
        break;
      case ActionKind::DefLibrary: {
        BasicLibrary<L> library(BasicLibrary<L>::Kind::FRAGMENT, std::string(kNamespace), std::nullopt, dispatcher_);
        library.def(op.text);
        reg.libraries.push_back(std::move(library));
        break;
      }
      case ActionKind::ImplBoxed:
      case ActionKind::ImplTyped:
      case ActionKind::ImplFallthrough: {
        name = kernelName("k");
        BasicCppFunction<L> f =
            a.kind == ActionKind::ImplTyped
                ? makeTypedKernel<L>(*a.signature, name, &recorder_)
                : a.kind == ActionKind::ImplBoxed
                      ? makeBoxedKernel<L>(name, &recorder_, intendedArgsOf(a.op), intendedReturnsOf(a.op))
                      : BasicCppFunction<L>::makeFallthrough();
        if (a.kind == ActionKind::ImplTyped) {
          kernels_[name] = KernelInfo{kTypedSignatures[static_cast<size_t>(*a.signature)].args};
        } else if (a.kind == ActionKind::ImplBoxed) {
          kernels_[name] = KernelInfo{intendedArgsOf(a.op)};
        }
        keep(dispatcher_.tryRegisterImpl(op.name, a.key, std::move(f.kernel_), std::move(f.cpp_signature_),
                                         std::move(f.inferred_schema_), name));
        break;
      }
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect: {
        name = kernelName("fb");
        BasicCppFunction<L> f = a.kind == ActionKind::FallbackDirect
                                    ? makeBoxedKernel<L>(name, &recorder_, std::nullopt, {})
                                    : BasicCppFunction<L>::makeFallthrough();
        kernels_[name] = KernelInfo{std::nullopt};
        keep(dispatcher_.tryRegisterFallback(*a.key, std::move(f.kernel_), name));
        break;
      }
      case ActionKind::StartupFallbacks:
        reg.libraries = registerStartupFallbacks(dispatcher_);
        break;
      default:
        break;
    }
  } catch (const InternalError& e) {
    fail("InternalError from a registration", e.what());
  } catch (const Error& e) {
    real = classify(e);
    message = e.what();
  } catch (const std::exception& e) {
    fail("a registration throws a non-dispatch exception", e.what());
  }

  // What the real outcome allows, and the model's side.
  const bool fallthrough = a.kind == ActionKind::ImplFallthrough || a.kind == ActionKind::FallthroughDirect;
  switch (a.kind) {
    case ActionKind::Def:
      if (!op.schema) return;
      if (real == Outcome::Schema) return;  // existing kernels disagree with it (D16)
      expected = model_.def(op_name, static_cast<int>(op.schema->arguments.size()));
      break;
    case ActionKind::DefLibrary:
      if (op.text_error) {
        if (real != op.text_error) {
          fail("library def outcome", "text " + quote(op.text) + " must give " +
                                          std::string(toString(*op.text_error)) + ", got " +
                                          (real ? std::string(toString(*real)) + ": " + message : "success"));
        }
        return;
      }
      if (real == Outcome::Schema) return;
      expected = model_.def(op_name, static_cast<int>(op.schema->arguments.size()));
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplTyped:
    case ActionKind::ImplFallthrough:
      if (real == Outcome::Schema || real == Outcome::Signature) {
        if (a.kind != ActionKind::ImplTyped) {
          fail("an untyped kernel is refused for its schema or signature", message);
        }
        return;
      }
      expected = model_.impl(op_name, a.key, name, fallthrough);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      expected = model_.fallbackDirect(*a.key, name, fallthrough);
      break;
    case ActionKind::StartupFallbacks: {
      dispatch::oracle::ModelRegistration startup = dispatch::oracle::registerStartupFallbacksOnModel(model_);
      reg.model_ids = std::move(startup.ids);
      expected = startup.result;
      break;
    }
    default:
      return;
  }

  const bool model_ok = expected->ok();
  const bool agree = real ? (!model_ok && fromModel(expected->error->kind) == *real) : model_ok;
  if (!agree) {
    fail("registration outcome differs from the model",
         "dispatcher " + (real ? std::string(toString(*real)) + ": " + message : std::string("succeeds")) +
             "; model " + m::toString(*expected));
  }
  note({L::kName, step_, real, real ? message : std::string(), 0, false});
  if (!real) {
    checkRegistrationReport(a, op_name, name, newest_event);
    if (reg.model_ids.empty()) reg.model_ids.push_back(*expected->id);
    registrations_.push_back(std::move(reg));
  }
}

template <class L>
void Runner<L>::checkRegistrationReport(const Action& a, const std::string& op_name, const std::string& kernel,
                                        uint64_t before) const {
  using flight_recorder::EventKind;
  std::optional<std::string> wrong;
  switch (a.kind) {
    case ActionKind::Def:
    case ActionKind::DefLibrary:  // a library def is one registerDef
      wrong = oracle::CallWitness::registrationMisreported(before, EventKind::RegisterDef, op_name,
                                                           DispatchKey::Undefined);
      break;
    case ActionKind::ImplBoxed:
    case ActionKind::ImplTyped:
    case ActionKind::ImplFallthrough:
      wrong = oracle::CallWitness::registrationMisreported(before, EventKind::RegisterImpl, op_name,
                                                           a.key.value_or(DispatchKey::CompositeImplicitAutograd));
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      wrong = oracle::CallWitness::registrationMisreported(before, EventKind::RegisterFallback, "", *a.key);
      break;
    default:  // the start-up fallbacks record one event per key they register
      break;
  }
  if (wrong) fail("the flight recorder reports a registration wrongly", kernel + ": " + *wrong);
}

template <class L>
std::optional<std::vector<ArgType>> Runner<L>::intendedArgsOf(int op) const {
  const OpState& st = ops_[static_cast<size_t>(op)];
  if (st.schema) return argTypesOf(*st.schema);
  return program_.schemas[static_cast<size_t>(op)].schema->args;
}

template <class L>
std::vector<ArgType> Runner<L>::intendedReturnsOf(int op) const {
  const OpState& st = ops_[static_cast<size_t>(op)];
  if (st.schema) return st.schema->returns;
  return program_.schemas[static_cast<size_t>(op)].schema->returns;
}

template <class L>
void Runner<L>::checkInvariants() const {
  try {
    dispatcher_.checkInvariants();
  } catch (const std::exception& e) {
    fail("checkInvariants fails", e.what());
  }
}

template <class L>
void Runner<L>::drop(const Action& a) {
  std::vector<size_t> live;
  for (size_t i = 0; i < registrations_.size(); ++i) {
    if (!registrations_[i].dropped) live.push_back(i);
  }
  if (live.empty()) return;
  Registration& reg = registrations_[live[a.handle % live.size()]];
  for (auto id : reg.model_ids) {
    if (auto status = model_.drop(id); !status.ok()) fail("model refuses a drop", m::toString(status));
  }
  try {
    if (reg.handle) reg.handle->release();
    for (auto& library : reg.libraries) library.reset();
  } catch (const std::exception& e) {
    fail("dropping a live registration throws", e.what());
  }
  reg.dropped = true;
}

#define DISPATCH_FUZZ_INSTANTIATE_RUNNER(L) template class Runner<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_FUZZ_INSTANTIATE_RUNNER)
#undef DISPATCH_FUZZ_INSTANTIATE_RUNNER

}  // namespace dispatch::fuzz::boxed_call
