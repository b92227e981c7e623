#pragma once
// boxed_call_fuzzer's input: oracle actions under kBoxedCallWeights (oracle/action_codec.h): a
// prologue of three declared operator schemas (built from argument types, a typed kernel's
// signature, or schema text, reformatted or mutated) and a short program of registrations and
// boxed calls on stacks of any shape. decode() splits the prologue from the program.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/action.h"

namespace dispatch::fuzz::boxed_call {

using oracle::Action;
using oracle::ActionKind;
using oracle::quote;
using oracle::SchemaDecl;
using oracle::SchemaMode;
using oracle::ValueSpec;

inline constexpr std::string_view kNamespace = oracle::kDeclaredNamespace;

struct Program {
  std::vector<Action> schemas;  // the prologue: Schema of op 0, 1, 2
  std::vector<Action> actions;  // the program, numbered from 0
  std::vector<std::string> op_labels;
};

Program decode(const uint8_t* data, size_t size);

std::string describe(const Program& p, const Action& a);
void printProgram(std::ostream& out, const Program& p);

}  // namespace dispatch::fuzz::boxed_call
