#pragma once
// Every failure of the public API is one of these exceptions. Messages name the operator and
// the key involved; a failing call leaves the dispatcher exactly as it was.

#include <sstream>
#include <stdexcept>
#include <string>

namespace dispatch {

// Base of every error the library throws on bad input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A key value outside the enum, an alias key where a runtime key is needed, a building block...
class InvalidKeyError : public Error {
 public:
  using Error::Error;
};

// Duplicate def, second fallback on a key, library namespace taken twice, dropped handle reused.
class RegistrationError : public Error {
 public:
  using Error::Error;
};

// A kernel's inferred schema disagrees with the operator's schema (or a schema fails to parse).
class SchemaError : public Error {
 public:
  using Error::Error;
};

// A kernel's C++ signature, or a typed handle's, disagrees with the operator's first signature.
class SignatureMismatchError : public Error {
 public:
  using Error::Error;
};

// An operator name was looked up and not found (or has no schema where one is required).
class OperatorNotFoundError : public Error {
 public:
  using Error::Error;
};

// A call found no kernel: no table entry for the dispatch key, or a key absent in this flavour.
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

// The AutogradOther slot is ambiguous: CompositeImplicitAutograd plus a backend kernel that
// maps to AutogradOther (docs/semantics.md §4.6). A user-facing error, as in PyTorch.
class AmbiguousAutogradOtherError : public NotImplementedError {
 public:
  using NotImplementedError::NotImplementedError;
};

// A boxed call's stack does not match the schema (arity or argument types).
class BoxedCallError : public Error {
 public:
  using Error::Error;
};

// The library's own state is inconsistent: a table entry differs from its recomputation, a
// fallthrough kernel actually ran, ... This is a bug in the library, never the user's fault;
// harnesses treat it as a crash.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
}  // namespace detail

}  // namespace dispatch

// Throws ErrorType with the streamed message parts when cond is false. Always on.
#define DISPATCH_CHECK(cond, ErrorType, ...)                               \
  do {                                                                     \
    if (!(cond)) [[unlikely]] {                                            \
      throw ErrorType(::dispatch::detail::concat(__VA_ARGS__));            \
    }                                                                      \
  } while (false)

// For conditions that only a library bug can break. Always on: the harness depends on it.
#define DISPATCH_INTERNAL_ASSERT(cond, ...)                                              \
  do {                                                                                   \
    if (!(cond)) [[unlikely]] {                                                          \
      throw ::dispatch::InternalError(::dispatch::detail::concat(                        \
          "internal assert failed at ", __FILE__, ":", __LINE__, ": " #cond ". " __VA_OPT__(, ) \
          __VA_ARGS__));                                                                 \
    }                                                                                    \
  } while (false)
