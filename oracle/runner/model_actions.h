#pragma once
// What an action does to the reference model: the one place that turns registrations into model
// calls (the trace runner, the boxed-call fuzzer and the stateful properties all use it), and
// the model's view of the start-up fallbacks, which pass a call on to the next key.

#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/model/model.h"

namespace dispatch::oracle {

struct ModelRegistration {
  model::RegistrationResult result;
  std::vector<model::RegistrationId> ids;  // every id it made (start-up fallbacks: several)
};

// The 1.13 start-up fallbacks, all or nothing like the real call (which undoes a partial set).
// Debug names "startup fallthrough for <Key>" / "startup fallback for <Key>".
ModelRegistration registerStartupFallbacksOnModel(model::ModelDispatcher& model);

// A registration action (isRegistration(a.kind)) on the model: def with the fz schema's three
// arguments, impls and fallbacks with kernel_name as their debug name.
ModelRegistration registerOnModel(model::ModelDispatcher& model, const Action& a,
                                  const std::string& kernel_name);

// A call action (Call*, Redispatch) on the model under the given thread-local sets, before the
// start-up fallbacks pass it on. A boxed call without a schema sees no tensors (as c10).
model::CallOutcome callOnModel(const model::ModelDispatcher& model, const Action& a,
                               const model::KeySet& included, const model::KeySet& excluded);

// Follows a call outcome through the start-up pass-through fallbacks as they redispatch (with
// ks & FULL_AFTER(their key), minus that key); the Named one refuses with NotImplemented.
model::CallOutcome followStartupPassThrough(const model::ModelDispatcher& model,
                                            const std::string& op, model::CallOutcome outcome);

}  // namespace dispatch::oracle
