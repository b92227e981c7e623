#pragma once
// boxed_call_fuzzer's input: oracle actions under kBoxedCallWeights (oracle/actions/action_codec.h): a
// prologue of three declared operator schemas (built from argument types, a typed kernel's
// signature, or schema text, reformatted or mutated) and a short program of registrations and
// boxed calls on stacks of any shape. decode() splits the prologue from the program.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "boxed_call/outcome.h"
#include "dispatch/schema.h"
#include "oracle/actions/action.h"

namespace dispatch::fuzz::boxed_call {

using oracle::Action;
using oracle::ActionKind;
using oracle::quote;
using oracle::SchemaDecl;
using oracle::SchemaMode;
using oracle::ValueSpec;

inline constexpr std::string_view kNamespace = oracle::kDeclaredNamespace;
inline constexpr const char* kTarget = "boxed_call_fuzzer";

struct Program {
  std::vector<Action> schemas;  // the prologue: Schema of op 0, 1, 2
  std::vector<Action> actions;  // the program, numbered from 0
  std::vector<std::string> op_labels;
};

Program decode(const uint8_t* data, size_t size);

std::string describe(const Program& p, const Action& a);
void printProgram(std::ostream& out, const Program& p);

// What one declared operator registers: resolved once per input, for both flavours.
struct OpState {
  OperatorName name;                     // the name impls and calls use
  std::optional<FunctionSchema> schema;  // what a def registers (nullopt: the text is invalid)
  std::optional<Outcome> text_error;     // Library def: the error the text must give
  std::string text;
};

// Parses each operator's schema text and decides what a def registers. parseSchema must refuse
// bad text with SchemaError and nothing else, and round-trip what it accepts (reported as a bug
// otherwise).
std::vector<OpState> resolveSchemas(const Program& p);

// The steps both flavours ran, for a crash report. Kept as data: the text is built only when a
// report is printed.
struct StepNote {
  std::string_view flavour;
  size_t step;
  std::optional<Outcome> error;  // nullopt: success
  std::string detail;            // the error's message, or the kernel that ran
  uint64_t keys = 0;             // the key set it ran with (calls), 0 otherwise
  bool call = false;
};
void printNotes(std::ostream& out, const std::vector<StepNote>& notes);

}  // namespace dispatch::fuzz::boxed_call
