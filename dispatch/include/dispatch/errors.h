#pragma once
// Every failure of the public API is one of these exceptions. Messages name the operator and
// the key involved; a failing call leaves the dispatcher exactly as it was.

#include <charconv>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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

// A refused registration as a value: which error the throwing form throws, and its message.
// The try... registration functions return it instead of throwing (a fuzzer provokes refusals
// on purpose, thousands per second, and unwinding cost more than the check); the throwing
// forms are the same code followed by raise().
class Refusal {
 public:
  enum class Kind : uint8_t { InvalidKey, Registration, Schema, SignatureMismatch };
  Refusal(Kind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  // The kind of a refusal the throwing form reports as ErrorType.
  template <class ErrorType>
  static constexpr Kind kindOf() noexcept {
    if constexpr (std::is_same_v<ErrorType, InvalidKeyError>) {
      return Kind::InvalidKey;
    } else if constexpr (std::is_same_v<ErrorType, RegistrationError>) {
      return Kind::Registration;
    } else if constexpr (std::is_same_v<ErrorType, SchemaError>) {
      return Kind::Schema;
    } else {
      static_assert(std::is_same_v<ErrorType, SignatureMismatchError>, "not a registration refusal");
      return Kind::SignatureMismatch;
    }
  }
  Kind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }
  // Throws the refusal as its error type (InvalidKeyError, RegistrationError, SchemaError or
  // SignatureMismatchError) with the same message.
  [[noreturn]] void raise() const {
    switch (kind_) {
      case Kind::InvalidKey:
        throw InvalidKeyError(message_);
      case Kind::Registration:
        throw RegistrationError(message_);
      case Kind::Schema:
        throw SchemaError(message_);
      case Kind::SignatureMismatch:
        break;
    }
    throw SignatureMismatchError(message_);
  }

 private:
  Kind kind_;
  std::string message_;
};

namespace detail {
// One part of an error message, appended as `std::ostream <<` would print it: text as is,
// characters as characters, integers in decimal, bools as 1/0, and every other value through
// the toString() found by argument-dependent lookup (DispatchKey, OperatorName,
// FunctionSchema, ...), whose text is the same as its operator<<. A stream only for values
// that have no toString: the fuzzers provoke refused registrations all the time, and a stream
// per message cost more than the refusal itself.
template <typename Part>
void appendPart(std::string& out, const Part& part) {
  if constexpr (std::is_convertible_v<const Part&, std::string_view>) {
    out.append(std::string_view(part));
  } else if constexpr (std::is_same_v<Part, char> || std::is_same_v<Part, signed char> ||
                       std::is_same_v<Part, unsigned char>) {
    out.push_back(static_cast<char>(part));
  } else if constexpr (std::is_same_v<Part, bool>) {
    out.push_back(part ? '1' : '0');
  } else if constexpr (std::is_integral_v<Part>) {
    char digits[24];
    const auto [end, error] = std::to_chars(digits, digits + sizeof(digits), part);
    out.append(digits, end);
  } else if constexpr (requires { toString(part); }) {
    out.append(toString(part));
  } else {
    // Values, stacks and tensors print only through operator<< (boxed-call type errors).
    std::ostringstream stream;
    stream << part;
    out.append(std::move(stream).str());
  }
}

template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (appendPart(out, parts), ...);
  return out;
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

// The refusing twin of DISPATCH_CHECK, for functions returning a Refusal (or std::optional of one,
// or a TriedRegistration): when cond is false, returns the refusal of kind ErrorType with the
// streamed message parts.
#define DISPATCH_REFUSE_UNLESS(cond, ErrorType, ...)                                       \
  do {                                                                                     \
    if (!(cond)) [[unlikely]] {                                                            \
      return ::dispatch::Refusal(::dispatch::Refusal::kindOf<ErrorType>(),                 \
                                 ::dispatch::detail::concat(__VA_ARGS__));                 \
    }                                                                                      \
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
