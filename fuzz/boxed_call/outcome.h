#pragma once
// The classes of outcome boxed_call_fuzzer compares: success or which dispatch::Error, from the
// dispatcher (classify) and from the model (fromModel), and what a call is expected to do.

#include <cstdint>
#include <string>
#include <string_view>

#include "dispatch/errors.h"
#include "oracle/model.h"

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

struct Expected {
  Outcome outcome = Outcome::Success;
  std::string kernel;  // Success: the kernel that runs last
  uint64_t keys = 0;   // Success: the key set it receives
  std::string why;
};

}  // namespace dispatch::fuzz::boxed_call
