#include "oracle/runner/model_actions.h"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "dispatch/startup_fallbacks.h"
#include "oracle/actions/names.h"
#include "oracle/model/model_key_set.h"
#include "oracle/runner/step_log.h"

namespace dispatch::oracle {

namespace {
constexpr std::string_view kPassThroughPrefix = "startup fallback for ";

model::RegistrationResult refusal(model::ErrorKind kind, std::string why) {
  return model::RegistrationResult{std::nullopt, model::Error{kind, std::move(why), std::nullopt}};
}

// The one registration inside a library block, after the block is open.
model::RegistrationResult registerInBlock(model::ModelDispatcher& model, const Action& a, const std::string& ns,
                                          const std::string& kernel_name) {
  const LibraryBlock& b = *a.block;
  const std::string& op = opName(a.op);
  if (b.body == LibraryBody::Def) {
    if (b.kind == LibraryKind::Impl) return refusal(model::ErrorKind::Registration, "def() in an IMPL block");
    if (b.ns != kOwnNamespace) {
      return refusal(model::ErrorKind::Registration, "the schema's namespace is not the block's " + ns);
    }
    return model.def(op, 3);
  }
  if (b.qualified && b.ns == kOtherNamespace) {
    return refusal(model::ErrorKind::Registration, "the name's namespace is not the block's " + ns);
  }
  return model.impl(op, libraryKernelKey(b, a.key), kernel_name, b.body == LibraryBody::ImplFallthrough);
}

// A library block on the model, all or nothing, checked in the order our Library checks
// (docs/semantics.md §5.2): the block's key, its namespace (the wildcard takes only IMPL
// blocks, only IMPL blocks take a key, a DEF block claims its namespace), then the registration.
ModelRegistration registerLibraryBlockOnModel(model::ModelDispatcher& model, const Action& a,
                                              const std::string& kernel_name) {
  if (!a.block) throw std::invalid_argument("registerOnModel: a library block action without a block");
  if (auto problem = libraryBlockProblem(*a.block, a.op)) throw std::invalid_argument("registerOnModel: " + *problem);
  const LibraryBlock& b = *a.block;
  const std::string ns(kLibraryNamespaces[b.ns]);
  ModelRegistration reg;
  if (a.key && !model::isValidKey(*a.key)) {
    reg.result = refusal(model::ErrorKind::InvalidKey, "library block for " + ns + ": " + keyName(*a.key) +
                                                           " is not a dispatch key");
    return reg;
  }
  if (b.kind != LibraryKind::Impl && b.ns == kWildcardNamespace) {
    reg.result = refusal(model::ErrorKind::Registration, "the wildcard namespace _ takes only IMPL blocks");
    return reg;
  }
  if (b.kind != LibraryKind::Impl && a.key && *a.key != DispatchKey::Undefined) {
    reg.result = refusal(model::ErrorKind::Registration, "only an IMPL block has a dispatch key");
    return reg;
  }
  const model::RegistrationResult opened = model.openLibrary(ns, b.kind == LibraryKind::Def);
  if (!opened.ok()) {
    reg.result = opened;
    return reg;
  }
  reg.ids.push_back(*opened.id);
  reg.result = opened;
  if (b.body == LibraryBody::Nothing) return reg;
  const model::RegistrationResult made = registerInBlock(model, a, ns, kernel_name);
  if (!made.ok()) {
    model.drop(*opened.id);  // the block closes again: its claim ends
    reg.ids.clear();
    reg.result = made;
    return reg;
  }
  reg.ids.push_back(*made.id);
  return reg;
}
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
    case ActionKind::LibraryBlock:
      return registerLibraryBlockOnModel(model, a, kernel_name);
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
