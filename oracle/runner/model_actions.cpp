#include "oracle/runner/model_actions.h"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "dispatch/startup_fallbacks.h"
#include "oracle/actions/names.h"
#include "oracle/runner/step_log.h"

namespace dispatch::oracle {

namespace {
constexpr std::string_view kPassThroughPrefix = "startup fallback for ";
}  // namespace

ModelRegistration registerStartupFallbacksOnModel(model::ModelDispatcher& model) {
  ModelRegistration reg;
  auto add = [&](DispatchKey k, bool fallthrough) {
    if (reg.result.error) return;
    const std::string name =
        std::string(fallthrough ? "startup fallthrough for " : kPassThroughPrefix) + keyName(k);
    const model::RegistrationResult r = model.fallbackLibrary(k, name, fallthrough);
    if (r.error) {
      reg.result = r;
    } else {
      reg.ids.push_back(*r.id);
    }
  };
  for (DispatchKey k : startup_fallthrough_keys) add(k, true);
  for (DispatchKey k : startup_boxed_fallback_keys) add(k, false);
  if (reg.result.error) {
    for (auto id : reg.ids) model.drop(id);
    reg.ids.clear();
  } else {
    reg.result.id = reg.ids.empty() ? 0 : reg.ids.front();
  }
  return reg;
}

ModelRegistration registerOnModel(model::ModelDispatcher& model, const Action& a,
                                  const std::string& kernel_name) {
  const std::string& op = opName(a.op);
  const bool fallthrough = isFallthrough(a.kind);
  ModelRegistration reg;
  switch (a.kind) {
    case ActionKind::Def:
      reg.result = model.def(op, 3);
      break;
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      reg.result = model.impl(op, a.key, kernel_name, fallthrough);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      reg.result = model.fallbackDirect(*a.key, kernel_name, fallthrough);
      break;
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      reg.result = model.fallbackLibrary(*a.key, kernel_name, fallthrough);
      break;
    case ActionKind::StartupFallbacks:
      return registerStartupFallbacksOnModel(model);
    default:
      throw std::logic_error("registerOnModel: " + std::string(toString(a.kind)) +
                             " is not a registration");
  }
  if (reg.result.ok()) reg.ids.push_back(*reg.result.id);
  return reg;
}

model::CallOutcome followStartupPassThrough(const model::ModelDispatcher& model,
                                            const std::string& op, model::CallOutcome outcome) {
  while (outcome.success && outcome.success->kernel.rfind(kPassThroughPrefix, 0) == 0) {
    const std::string key_name = outcome.success->kernel.substr(kPassThroughPrefix.size());
    if (key_name == "Named") {
      return {std::nullopt, model::Error{model::ErrorKind::NotImplemented, "named tensors", DispatchKey::Named}};
    }
    const model::KeySet ks = outcome.success->keys;
    const DispatchKey key = ks.highestPriorityTypeId();
    // FULL_AFTER always keeps PythonDispatcher (docs/semantics.md §2.1), so masking alone would run the
    // PythonDispatcher fallback again, forever; PyTorch's fallback removes its key before it
    // redispatches (a library that only masks overflows the stack here). For every other key
    // the mask has already cleared it.
    if (traceSteps() && (ks & model::KeySet::fullAfter(key)) == ks) {
      std::fprintf(stderr, "  note: %s gets %s; ks & FULL_AFTER(%s) == ks, expecting the key removed\n",
                   outcome.success->kernel.c_str(), model::toDebugString(ks).c_str(), keyName(key).c_str());
    }
    outcome = model.redispatch(op, (ks & model::KeySet::fullAfter(key)).remove(key));
  }
  return outcome;
}

model::CallOutcome callOnModel(const model::ModelDispatcher& model, const Action& a,
                               const model::KeySet& included, const model::KeySet& excluded) {
  const std::string& op = opName(a.op);
  if (a.kind == ActionKind::Redispatch) return model.redispatch(op, model::KeySet::fromRaw(a.keys));
  model::KeySet args = model::KeySet::fromRaw(a.keys);
  if (a.other) args = args | model::KeySet::fromRaw(*a.other);
  if (a.kind == ActionKind::CallBoxed && !model.hasSchema(op)) args = model::KeySet();
  return model.call(op, args, included, excluded);
}

}  // namespace dispatch::oracle
