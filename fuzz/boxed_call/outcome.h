#pragma once
// The classes of outcome boxed_call_fuzzer compares: success or which dispatch::Error, from the
// dispatcher (classify) and from the model (fromModel), and what a call is expected to do.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/errors.h"
#include "oracle/model/model.h"
#include "oracle/actions/names.h"

namespace dispatch::fuzz::boxed_call {

// The class of a failure, as the checks compare them.
enum class Outcome { Success, BoxedCall, NotImplemented, Ambiguous, InvalidKey, Schema, Signature, Registration, NotFound, OtherError };

inline std::string_view toString(Outcome o) {
  switch (o) {
    case Outcome::Success: return "success";
    case Outcome::BoxedCall: return "BoxedCallError";
    case Outcome::NotImplemented: return "NotImplementedError";
    case Outcome::Ambiguous: return "AmbiguousAutogradOtherError";
    case Outcome::InvalidKey: return "InvalidKeyError";
    case Outcome::Schema: return "SchemaError";
    case Outcome::Signature: return "SignatureMismatchError";
    case Outcome::Registration: return "RegistrationError";
    case Outcome::NotFound: return "OperatorNotFoundError";
    case Outcome::OtherError: return "another dispatch::Error";
  }
  return "?";
}

inline Outcome classify(const Error& e) {
  if (dynamic_cast<const AmbiguousAutogradOtherError*>(&e)) return Outcome::Ambiguous;
  if (dynamic_cast<const NotImplementedError*>(&e)) return Outcome::NotImplemented;
  if (dynamic_cast<const BoxedCallError*>(&e)) return Outcome::BoxedCall;
  if (dynamic_cast<const InvalidKeyError*>(&e)) return Outcome::InvalidKey;
  if (dynamic_cast<const SchemaError*>(&e)) return Outcome::Schema;
  if (dynamic_cast<const SignatureMismatchError*>(&e)) return Outcome::Signature;
  if (dynamic_cast<const RegistrationError*>(&e)) return Outcome::Registration;
  if (dynamic_cast<const OperatorNotFoundError*>(&e)) return Outcome::NotFound;
  return Outcome::OtherError;
}

// The class of a refusal a try... registration returned: classify() of the error its throwing
// form throws.
inline Outcome classify(const Refusal& r) {
  switch (r.kind()) {
    case Refusal::Kind::InvalidKey: return Outcome::InvalidKey;
    case Refusal::Kind::Schema: return Outcome::Schema;
    case Refusal::Kind::SignatureMismatch: return Outcome::Signature;
    case Refusal::Kind::Registration: break;
  }
  return Outcome::Registration;
}

inline Outcome fromModel(model::ErrorKind k) {
  switch (k) {
    case model::ErrorKind::InvalidKey: return Outcome::InvalidKey;
    case model::ErrorKind::Registration: return Outcome::Registration;
    case model::ErrorKind::NotFound: return Outcome::NotFound;
    case model::ErrorKind::NotImplemented: return Outcome::NotImplemented;
    case model::ErrorKind::AmbiguousAutogradOther: return Outcome::Ambiguous;
  }
  return Outcome::OtherError;
}

// What a call is expected to do, and why: the reason is kept as parts and spelled out by why()
// only for a report (calls are the hot path).
struct Expected {
  Outcome outcome = Outcome::Success;
  std::string kernel;  // the kernel the model runs last (also when its arguments do not fit)
  uint64_t keys = 0;   // the key set it receives
  std::string_view reason;  // a fixed reason, when the model is not asked
  std::string detail;       // what the reason names (a key, a kernel)
  std::optional<model::Error> model_error;
  bool kernel_args_misfit = false;  // no schema, and the kernel's own arguments do not fit the stack

  std::string why() const {
    std::string text(reason);
    text += detail;
    if (model_error) text += "model: " + model::toString(*model_error);
    if (!kernel.empty()) text += "model runs " + kernel + " with " + oracle::keySetName(keys);
    if (kernel_args_misfit) text += ", whose own arguments do not fit the stack";
    return text;
  }
};

}  // namespace dispatch::fuzz::boxed_call
