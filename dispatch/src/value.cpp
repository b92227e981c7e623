#include "dispatch/value.h"

#include <charconv>
#include <ostream>

#include "dispatch/errors.h"

namespace dispatch {

// The variant's alternatives must stay in Tag order: tag() is just index().
static_assert(static_cast<int>(Value::Tag::TensorList) == 6);

Value::Value(const char* s) {
  DISPATCH_CHECK(s != nullptr, Error, "Value: cannot construct a String from a null char*");
  payload_ = std::string(s);
}

bool Value::toBool() const {
  if (const auto* p = std::get_if<bool>(&payload_)) return *p;
  throwWrongKind(Tag::Bool);
}
int64_t Value::toInt() const {
  if (const auto* p = std::get_if<int64_t>(&payload_)) return *p;
  throwWrongKind(Tag::Int);
}
double Value::toDouble() const {
  if (const auto* p = std::get_if<double>(&payload_)) return *p;
  throwWrongKind(Tag::Double);
}
const std::string& Value::toString() const& {
  if (const auto* p = std::get_if<std::string>(&payload_)) return *p;
  throwWrongKind(Tag::String);
}
std::string Value::toString() && {
  if (auto* p = std::get_if<std::string>(&payload_)) return std::move(*p);
  throwWrongKind(Tag::String);
}
Tensor Value::toTensor() const {
  if (const auto* p = std::get_if<Tensor>(&payload_)) return *p;
  throwWrongKind(Tag::Tensor);
}
const std::vector<Tensor>& Value::toTensorList() const& {
  if (const auto* p = std::get_if<std::vector<Tensor>>(&payload_)) return *p;
  throwWrongKind(Tag::TensorList);
}
std::vector<Tensor> Value::toTensorList() && {
  if (auto* p = std::get_if<std::vector<Tensor>>(&payload_)) return std::move(*p);
  throwWrongKind(Tag::TensorList);
}

void Value::throwWrongKind(Tag expected) const {
  throw BoxedCallError(
      detail::concat("expected a Value of kind ", expected, ", got ", tag(), ": ", *this));
}

std::string_view toString(Value::Tag tag) noexcept {
  switch (tag) {
    case Value::Tag::None: return "None";
    case Value::Tag::Bool: return "Bool";
    case Value::Tag::Int: return "Int";
    case Value::Tag::Double: return "Double";
    case Value::Tag::String: return "String";
    case Value::Tag::Tensor: return "Tensor";
    case Value::Tag::TensorList: return "TensorList";
  }
  return "<invalid Value::Tag>";
}

std::ostream& operator<<(std::ostream& out, Value::Tag tag) { return out << toString(tag); }

namespace {

// Shortest text that reads back as the same double, with ".0" added to whole numbers so that a
// Double never prints like an Int.
void printDouble(std::ostream& out, double d) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc()) {
    out << d;  // cannot happen with 64 bytes; keep a readable fallback anyway
    return;
  }
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  out << text;
  if (text.find_first_of(".eEn") == std::string_view::npos) out << ".0";  // n: inf, nan
}

void printString(std::ostream& out, const std::string& s) {
  out << '"';
  for (char c : s) {
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      default: out << c;
    }
  }
  out << '"';
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None: return out << "None";
    case Value::Tag::Bool: return out << (v.toBool() ? "true" : "false");
    case Value::Tag::Int: return out << v.toInt();
    case Value::Tag::Double: printDouble(out, v.toDouble()); return out;
    case Value::Tag::String: printString(out, v.toString()); return out;
    case Value::Tag::Tensor: return out << v.toTensor();
    case Value::Tag::TensorList: {
      out << '[';
      const char* sep = "";
      for (const Tensor& t : v.toTensorList()) {
        out << sep << t;
        sep = ", ";
      }
      return out << ']';
    }
  }
  return out << "<invalid Value>";
}

std::ostream& operator<<(std::ostream& out, const Stack& stack) {
  out << "Stack[";
  const char* sep = "";
  for (const Value& v : stack) {
    out << sep << v;
    sep = ", ";
  }
  return out << ']';
}

bool fitsArgType(const Value& v, ArgType t) noexcept {
  switch (t) {
    case ArgType::Tensor: return v.isTensor();
    case ArgType::OptionalTensor: return v.isTensor() || v.isNone();
    case ArgType::TensorList: return v.isTensorList();
    case ArgType::Int: return v.isInt();
    case ArgType::Float: return v.isDouble();
    case ArgType::Bool: return v.isBool();
    case ArgType::String: return v.isString();
  }
  return false;
}

namespace detail {
void throwValueTypeMismatch(const Value& v, ArgType expected) {
  throw BoxedCallError(concat("expected a value of type ", expected, ", got a Value of kind ",
                              v.tag(), ": ", v));
}
}  // namespace detail

}  // namespace dispatch
