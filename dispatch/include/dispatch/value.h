#pragma once
// Value: our IValue, one boxed argument or return. Stack: the boxed calling convention (the
// arguments are the last N entries; a kernel pops them and pushes its returns).
// ValueTraits: the C++ type <-> Value <-> ArgType mapping that boxing and schema inference use.

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "dispatch/arg_type.h"
#include "dispatch/tensor.h"

namespace dispatch {

namespace detail {
template <class T>
inline constexpr bool is_char_type_v =
    std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
    std::is_same_v<T, unsigned char> || std::is_same_v<T, wchar_t> ||
    std::is_same_v<T, char8_t> || std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

// Integers that fit int64_t exactly. bool and characters are excluded so that Value('a') and
// Value(ptr) do not silently become Int or Bool.
template <class T>
concept LosslessInt = std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_type_v<T> &&
                      std::numeric_limits<T>::digits <= 63;
}  // namespace detail

class Value final {
 public:
  // Order matches the variant alternatives below.
  enum class Tag : uint8_t { None, Bool, Int, Double, String, Tensor, TensorList };

  Value() noexcept = default;  // None
  Value(std::nullopt_t) noexcept {}
  Value(std::nullptr_t) = delete;  // would pick const char*: say Value() for None

  // A template so that only a real bool matches: pointers and ints never convert to Bool.
  template <class T>
    requires std::is_same_v<T, bool>
  Value(T b) noexcept : payload_(b) {}
  template <detail::LosslessInt T>
  Value(T i) noexcept : payload_(static_cast<int64_t>(i)) {}
  template <class T>
    requires std::is_same_v<T, double> || std::is_same_v<T, float>
  Value(T d) noexcept : payload_(static_cast<double>(d)) {}
  template <class T>
    requires detail::is_char_type_v<T>
  Value(T) = delete;  // a char is neither an Int nor a one-letter String here

  Value(std::string s) noexcept : payload_(std::move(s)) {}
  Value(std::string_view s) : payload_(std::string(s)) {}
  Value(const char* s);  // throws Error on nullptr (std::string(nullptr) is UB)

  Value(Tensor t) noexcept : payload_(t) {}
  Value(std::vector<Tensor> ts) noexcept : payload_(std::move(ts)) {}
  Value(const std::optional<Tensor>& t) noexcept {
    if (t) payload_ = *t;
  }

  Tag tag() const noexcept { return static_cast<Tag>(payload_.index()); }

  bool isNone() const noexcept { return tag() == Tag::None; }
  bool isBool() const noexcept { return tag() == Tag::Bool; }
  bool isInt() const noexcept { return tag() == Tag::Int; }
  bool isDouble() const noexcept { return tag() == Tag::Double; }
  bool isString() const noexcept { return tag() == Tag::String; }
  bool isTensor() const noexcept { return tag() == Tag::Tensor; }
  bool isTensorList() const noexcept { return tag() == Tag::TensorList; }

  // Each throws BoxedCallError ("expected a Value of kind Int, got String") on the wrong kind.
  // Out of line: this is the boxed slow path, and inlined into callers GCC's flow analysis
  // reports false -Wmaybe-uninitialized on the variant storage under -fsanitize.
  bool toBool() const;
  int64_t toInt() const;
  double toDouble() const;
  // The payload, not a printout (use operator<< for that). The && overloads let boxing move
  // strings and lists out of a stack it is about to pop.
  const std::string& toString() const&;
  std::string toString() &&;
  Tensor toTensor() const;
  const std::vector<Tensor>& toTensorList() const&;
  std::vector<Tensor> toTensorList() &&;

  // Non-throwing access for the call path (key extraction): nullptr on another kind.
  const Tensor* tryToTensor() const noexcept { return std::get_if<Tensor>(&payload_); }
  const std::vector<Tensor>* tryToTensorList() const noexcept {
    return std::get_if<std::vector<Tensor>>(&payload_);
  }

  // Same kind and equal payload (doubles compare with ==, so NaN != NaN).
  bool operator==(const Value& other) const noexcept { return payload_ == other.payload_; }

 private:
  [[noreturn]] void throwWrongKind(Tag expected) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, std::vector<Tensor>>
      payload_;
};

using Stack = std::vector<Value>;

// "None", "Bool", "Int", "Double", "String", "Tensor", "TensorList".
std::string_view toString(Value::Tag tag) noexcept;
std::ostream& operator<<(std::ostream& out, Value::Tag tag);

// Readable: None, true, 3, 2.5, 1.0, "text", Tensor(...), [Tensor(...), ...].
std::ostream& operator<<(std::ostream& out, const Value& v);
std::ostream& operator<<(std::ostream& out, const Stack& stack);

// Whether a boxed value may be passed for a schema argument of type t. Exact kinds only (an Int
// is not a float); None fits only Tensor?; an undefined Tensor still fits Tensor.
bool fitsArgType(const Value& v, ArgType t) noexcept;

// --- C++ type <-> Value ------------------------------------------------------------------------

// ValueTraits<T>: for each supported C++ type T, its schema type and conversions.
//   static constexpr ArgType type;
//   static Value toValue(const T&);
//   static T fromValue(const Value&);   // BoxedCallError on a kind that does not fit `type`
// The primary template marks everything else unsupported (supported == false).
template <class T>
struct ValueTraits {
  static constexpr bool supported = false;
};

namespace detail {
// Shared body of the specializations: `supported`, `type`, toValue, and the error path.
template <class T, ArgType kType>
struct ValueTraitsBase {
  static constexpr bool supported = true;
  static constexpr ArgType type = kType;
  static Value toValue(const T& v) { return Value(v); }
};
[[noreturn]] void throwValueTypeMismatch(const Value& v, ArgType expected);
}  // namespace detail

template <>
struct ValueTraits<bool> : detail::ValueTraitsBase<bool, ArgType::Bool> {
  static bool fromValue(const Value& v) {
    if (!v.isBool()) detail::throwValueTypeMismatch(v, type);
    return v.toBool();
  }
};
template <>
struct ValueTraits<int64_t> : detail::ValueTraitsBase<int64_t, ArgType::Int> {
  static int64_t fromValue(const Value& v) {
    if (!v.isInt()) detail::throwValueTypeMismatch(v, type);
    return v.toInt();
  }
};
template <>
struct ValueTraits<double> : detail::ValueTraitsBase<double, ArgType::Float> {
  static double fromValue(const Value& v) {
    if (!v.isDouble()) detail::throwValueTypeMismatch(v, type);
    return v.toDouble();
  }
};
template <>
struct ValueTraits<std::string> : detail::ValueTraitsBase<std::string, ArgType::String> {
  static std::string fromValue(const Value& v) {
    if (!v.isString()) detail::throwValueTypeMismatch(v, type);
    return v.toString();
  }
  static std::string fromValue(Value&& v) {
    if (!v.isString()) detail::throwValueTypeMismatch(v, type);
    return std::move(v).toString();
  }
};
template <>
struct ValueTraits<Tensor> : detail::ValueTraitsBase<Tensor, ArgType::Tensor> {
  static Tensor fromValue(const Value& v) {
    if (!v.isTensor()) detail::throwValueTypeMismatch(v, type);
    return v.toTensor();
  }
};
template <>
struct ValueTraits<std::vector<Tensor>>
    : detail::ValueTraitsBase<std::vector<Tensor>, ArgType::TensorList> {
  static std::vector<Tensor> fromValue(const Value& v) {
    if (!v.isTensorList()) detail::throwValueTypeMismatch(v, type);
    return v.toTensorList();
  }
  static std::vector<Tensor> fromValue(Value&& v) {
    if (!v.isTensorList()) detail::throwValueTypeMismatch(v, type);
    return std::move(v).toTensorList();
  }
};
// None <-> nullopt; a Tensor <-> an engaged optional (an undefined Tensor stays engaged).
template <>
struct ValueTraits<std::optional<Tensor>>
    : detail::ValueTraitsBase<std::optional<Tensor>, ArgType::OptionalTensor> {
  static std::optional<Tensor> fromValue(const Value& v) {
    if (v.isNone()) return std::nullopt;
    if (!v.isTensor()) detail::throwValueTypeMismatch(v, type);
    return v.toTensor();
  }
};
// void is a valid return type only: it has no ArgType and no value (a void kernel pushes
// nothing), so this specialization is deliberately empty and `supported` stays false.
template <>
struct ValueTraits<void> {
  static constexpr bool supported = false;
};

// True for the argument types above (cv/ref-qualified forms included: they decay to them).
template <class T>
inline constexpr bool is_supported_value_type_v = ValueTraits<std::remove_cvref_t<T>>::supported;
// Additionally true for void: what a kernel may return.
template <class T>
inline constexpr bool is_supported_return_type_v =
    std::is_void_v<T> || is_supported_value_type_v<T>;

}  // namespace dispatch
