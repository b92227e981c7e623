#include "dispatch/schema.h"

#include <ostream>

#include "dispatch/errors.h"

namespace dispatch {

std::ostream& operator<<(std::ostream& out, ArgType t) { return out << toString(t); }

std::string toString(const OperatorName& name) {
  if (name.overload_name.empty()) return name.name;
  return name.name + "." + name.overload_name;
}

std::ostream& operator<<(std::ostream& out, const OperatorName& name) {
  return out << name.name << (name.overload_name.empty() ? "" : ".") << name.overload_name;
}

std::string toString(const FunctionSchema& schema) {
  // Built by appending, not streamed: duplicate-def errors print the schema on the fuzzers' path.
  std::string out = toString(schema.name);
  out += '(';
  std::string_view sep;
  for (const Argument& a : schema.arguments) {
    out.append(sep).append(toString(a.type)).append(" ").append(a.name);
    sep = ", ";
  }
  out += ") -> ";
  if (schema.returns.size() == 1) {
    out.append(toString(schema.returns[0]));
    return out;
  }
  out += '(';
  sep = {};
  for (ArgType r : schema.returns) {
    out.append(sep).append(toString(r));
    sep = ", ";
  }
  out += ')';
  return out;
}

std::ostream& operator<<(std::ostream& out, const FunctionSchema& schema) {
  return out << toString(schema);
}

// --- parsing -----------------------------------------------------------------------------------

namespace {

// A hand-written recursive-descent parser over the grammar in schema.h. Every error reports the
// position of the first character it could not accept.
class SchemaParser {
 public:
  SchemaParser(std::string_view text, std::string_view default_ns)
      : text_(text), default_ns_(default_ns) {}

  FunctionSchema schema() {
    FunctionSchema s;
    s.name = operatorName();
    expect('(');
    if (!accept(')')) {
      do {
        const ArgType t = type();
        s.arguments.push_back(Argument{identifier("an argument name"), t});
      } while (accept(','));
      expect(')');
    }
    expect("->");
    if (accept('(')) {
      if (!accept(')')) {
        do {
          s.returns.push_back(returnType());
        } while (accept(','));
        expect(')');
      }
    } else {
      s.returns.push_back(returnType());
    }
    end();
    return s;
  }

  OperatorName operatorName() {
    OperatorName n;
    const size_t start = skipSpace();
    n.name = identifier("an operator name");
    if (accept("::")) {
      n.name += "::";
      n.name += identifier("an operator name after '::'");
    } else if (!default_ns_.empty()) {
      n.name = std::string(default_ns_) + "::" + n.name;
    } else {
      fail(start, detail::concat("expected a namespace ('ns::", n.name,
                                  "'); no default namespace given"));
    }
    if (accept('.')) {
      n.overload_name = identifier("an overload name after '.'");
      // c10 keeps these for Python: torch.ops.ns.op.default is the overload named "", and
      // dunder names are attributes of the overload packet.
      if (n.overload_name == "default" || n.overload_name.starts_with("__")) {
        throw SchemaError(
            detail::concat(n.overload_name, " is not a legal overload name for aten operators"));
      }
    }
    return n;
  }

  void end() {
    if (skipSpace() != text_.size()) fail(pos_, "unexpected trailing characters");
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw SchemaError(detail::concat("invalid schema '", text_, "': ", what, " at position ", at,
                                     "\n  ", text_, "\n  ", std::string(at, ' '), '^'));
  }

  size_t skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
    return pos_;
  }

  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  bool accept(char c) { return accept(std::string_view(&c, 1)); }

  void expect(std::string_view token) {
    if (!accept(token)) fail(pos_, detail::concat("expected '", token, "'"));
  }
  void expect(char c) { expect(std::string_view(&c, 1)); }

  static bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

  std::string identifier(std::string_view what) {
    skipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && isIdentStart(text_[pos_])) {
      while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
    }
    if (pos_ == start) fail(start, detail::concat("expected ", what));
    return std::string(text_.substr(start, pos_ - start));
  }

  ArgType type() {
    const size_t start = skipSpace();
    const std::string base = identifier("a type");
    if (base == "Tensor") {
      if (accept('?')) return ArgType::OptionalTensor;
      if (accept("[]")) return ArgType::TensorList;
      return ArgType::Tensor;
    }
    const size_t suffix = skipSpace();
    if (accept('?') || accept("[]")) {
      fail(start, detail::concat("unsupported type '", base, text_.substr(suffix, pos_ - suffix),
                                 "' (only Tensor can be optional or a list)"));
    }
    if (base == "int") return ArgType::Int;
    if (base == "float") return ArgType::Float;
    if (base == "bool") return ArgType::Bool;
    if (base == "str") return ArgType::String;
    fail(start, detail::concat("unknown type '", base,
                               "' (expected Tensor, Tensor?, Tensor[], int, float, bool or str)"));
  }

  // A return type with an optional name, which c10 allows and we drop.
  ArgType returnType() {
    const ArgType t = type();
    skipSpace();
    if (pos_ < text_.size() && isIdentStart(text_[pos_])) identifier("a return name");
    return t;
  }

  std::string_view text_;
  std::string_view default_ns_;
  size_t pos_ = 0;
};

}  // namespace

FunctionSchema parseSchema(std::string_view text, std::string_view default_ns) {
  return SchemaParser(text, default_ns).schema();
}

OperatorName parseOperatorName(std::string_view text, std::string_view default_ns) {
  SchemaParser parser(text, default_ns);
  OperatorName name = parser.operatorName();
  parser.end();
  return name;
}

// --- checks ------------------------------------------------------------------------------------

// c10's texts exactly: only the argument-count line ends with a full stop.
std::optional<std::string> findSchemaDifferences(const FunctionSchema& from_def,
                                                 const FunctionSchema& inferred) {
  if (from_def.arguments.size() != inferred.arguments.size()) {
    return detail::concat("The number of arguments is different. ", from_def.arguments.size(),
                          " vs ", inferred.arguments.size(), ".");
  }
  if (from_def.returns.size() != inferred.returns.size()) {
    return detail::concat("The number of returns is different. ", from_def.returns.size(), " vs ",
                          inferred.returns.size());
  }
  for (size_t i = 0; i < from_def.arguments.size(); ++i) {
    if (from_def.arguments[i].type != inferred.arguments[i].type) {
      return detail::concat("Type mismatch in argument ", i + 1, ": ", from_def.arguments[i].type,
                            " vs ", inferred.arguments[i].type);
    }
  }
  for (size_t i = 0; i < from_def.returns.size(); ++i) {
    if (from_def.returns[i] != inferred.returns[i]) {
      return detail::concat("Type mismatch in return ", i + 1, ": ", from_def.returns[i], " vs ",
                            inferred.returns[i]);
    }
  }
  return std::nullopt;
}

void checkStackMatchesSchema(const FunctionSchema& schema, const Stack& stack) {
  const size_t n = schema.arguments.size();
  DISPATCH_CHECK(stack.size() >= n, BoxedCallError, "boxed call to ", schema,
                 ": expected ", n, " arguments on the stack, but the stack holds only ",
                 stack.size(), " values");
  const size_t base = stack.size() - n;
  for (size_t i = 0; i < n; ++i) {
    const Argument& arg = schema.arguments[i];
    const Value& v = stack[base + i];
    DISPATCH_CHECK(fitsArgType(v, arg.type), BoxedCallError, "boxed call to ", schema,
                   ": argument ", i, " '", arg.name, "' must be ", arg.type,
                   ", but the stack holds a Value of kind ", v.tag(), ": ", v);
  }
}

uint64_t dispatchArgBitset(const FunctionSchema& schema) {
  const size_t n = schema.arguments.size();
  DISPATCH_CHECK(n <= 64, SchemaError, "operator ", schema.name, " has ", n,
                 " arguments, but dispatch supports at most 64 (one bit each)");
  uint64_t bits = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isTensorLike(schema.arguments[n - 1 - i].type)) bits |= uint64_t{1} << i;
  }
  return bits;
}

}  // namespace dispatch
