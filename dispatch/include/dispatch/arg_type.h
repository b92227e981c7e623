#pragma once
// ArgType: the argument and return types a schema can name. Its own header because both
// value.h (conversion traits) and schema.h (FunctionSchema, stack checks) need it, and schema.h
// needs Value: this breaks the cycle. Include schema.h rather than this file.

#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace dispatch {

// The simplified c10 type system of spec "Schemas may be simplified ... as long as mismatch
// detection works". Tensor-like types come first so isTensorLike is a range compare.
enum class ArgType : uint8_t {
  Tensor,          // "Tensor"
  OptionalTensor,  // "Tensor?"
  TensorList,      // "Tensor[]"
  Int,             // "int"    (int64_t)
  Float,           // "float"  (double)
  Bool,            // "bool"
  String,          // "str"    (std::string)
};

// Arguments of these types are the ones key extraction reads (docs/semantics.md §4.9).
constexpr bool isTensorLike(ArgType t) noexcept { return t <= ArgType::TensorList; }

// The schema spelling: "Tensor", "Tensor?", "Tensor[]", "int", "float", "bool", "str".
constexpr std::string_view toString(ArgType t) noexcept {
  switch (t) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::OptionalTensor: return "Tensor?";
    case ArgType::TensorList: return "Tensor[]";
    case ArgType::Int: return "int";
    case ArgType::Float: return "float";
    case ArgType::Bool: return "bool";
    case ArgType::String: return "str";
  }
  return "<invalid ArgType>";  // only reachable from a value cast outside the enum
}

std::ostream& operator<<(std::ostream& out, ArgType t);

}  // namespace dispatch
