#pragma once
// Operator names and (simplified) function schemas: printing, parsing, the mismatch check of
// docs/semantics.md §4.2, the boxed-stack check, and the dispatch-argument bitset of docs/semantics.md §4.9.
//
// Schema syntax (a subset of c10's):
//   schema   := name '(' [type ident (',' type ident)*] ')' '->' returns
//   name     := [ident '::'] ident ['.' ident]        e.g. "aten::add.Tensor"
//   returns  := type [ident] | '(' [type [ident] (',' type [ident])*] ')'
//   type     := "Tensor" | "Tensor?" | "Tensor[]" | "int" | "float" | "bool" | "str"
// Whitespace may separate any two tokens. Return names are accepted and dropped.
// As in c10's parser, "default" and names starting with "__" are not overload names.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/arg_type.h"
#include "dispatch/value.h"

namespace dispatch {

struct Argument {
  std::string name;
  ArgType type;

  bool operator==(const Argument&) const = default;
};

// name includes the namespace ("aten::add"); overload_name may be empty.
struct OperatorName {
  std::string name;
  std::string overload_name;

  bool operator==(const OperatorName&) const = default;
  bool operator<(const OperatorName& o) const noexcept {
    return name != o.name ? name < o.name : overload_name < o.overload_name;
  }
};

struct FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<ArgType> returns;

  bool operator==(const FunctionSchema&) const = default;
};

// "ns::op" or "ns::op.overload".
std::string toString(const OperatorName& name);
// "ns::op.overload(Tensor self, int x) -> Tensor"; returns print as "()", "Tensor" or
// "(Tensor, int)". parseSchema(toString(s)) == s for every schema with valid identifiers.
std::string toString(const FunctionSchema& schema);
std::ostream& operator<<(std::ostream& out, const OperatorName& name);
std::ostream& operator<<(std::ostream& out, const FunctionSchema& schema);

// A name without "::" gets default_ns prepended; without "::" and without a default it is an
// error. An explicit namespace is kept even if it differs from default_ns (whether that is
// allowed is the library's decision, not the parser's).
// Bad syntax throws SchemaError naming the text and the 0-based position of the problem.
FunctionSchema parseSchema(std::string_view text, std::string_view default_ns = {});
OperatorName parseOperatorName(std::string_view text, std::string_view default_ns = {});

// Why a kernel's inferred schema does not fit the def's, in c10's words and order: the argument
// count, the return count, then each argument type, then each return type (1-based); each line
// gives the def's side first ("The number of arguments is different. 1 vs 2." for a def with one
// argument and a kernel with two). Names (of the operator and of the arguments) are not compared.
// nullopt if they match.
std::optional<std::string> findSchemaDifferences(const FunctionSchema& from_def,
                                                 const FunctionSchema& inferred);

// The last arguments.size() entries of the stack are the arguments. Throws BoxedCallError naming
// the operator and the offending argument (index and name) if there are too few entries or an
// entry's kind does not fit its type (see fitsArgType).
void checkStackMatchesSchema(const FunctionSchema& schema, const Stack& stack);

// Bit i is set iff argument (N-1-i) is Tensor, Tensor? or Tensor[] (docs/semantics.md §4.9), so bit 0 is the
// argument nearest the stack top. Throws SchemaError for more than 64 arguments.
uint64_t dispatchArgBitset(const FunctionSchema& schema);

}  // namespace dispatch

template <>
struct std::hash<dispatch::OperatorName> {
  size_t operator()(const dispatch::OperatorName& n) const noexcept {
    const size_t h = std::hash<std::string>{}(n.name);
    // boost::hash_combine's mixing: cheap, and "a.b" vs "ab." style collisions stay unlikely.
    return h ^ (std::hash<std::string>{}(n.overload_name) + 0x9e3779b97f4a7c15ULL + (h << 6) +
                (h >> 2));
  }
};
