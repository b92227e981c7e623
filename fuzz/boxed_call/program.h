#pragma once
// boxed_call_fuzzer's input: up to three operator schemas (built from argument types, a typed
// kernel's signature, or schema text, reformatted or mutated) and a short program of
// registrations and boxed calls on stacks of any shape. decode() reads it from the fuzz input,
// printProgram() shows it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch.h"

namespace dispatch::fuzz::boxed_call {

inline constexpr int kNumOps = 3;
inline constexpr size_t kMaxActions = 40;  // bounded work per input (harness-notes B1)
inline constexpr size_t kMaxArgs = 6;
inline constexpr std::string_view kNamespace = "bx";

enum class SchemaMode : uint8_t { Generated, Typed, Text };

struct OpSpec {
  SchemaMode mode = SchemaMode::Generated;
  OperatorName name;
  std::vector<ArgType> args;     // as built (before any text mutation)
  std::vector<ArgType> returns;
  int typed = 0;                 // SchemaMode::Typed: the signature
  std::string text;              // schema text (formatted, maybe without namespace, maybe mutated)
  bool mutated = false;
};

enum class ActionKind : uint8_t {
  Def,                 // registerDef(built schema, or the parse of the text)
  DefLibrary,          // Library(FRAGMENT, "bx").def(text)
  ImplBoxed,           // registerImpl(op, key, boxed kernel)
  ImplTyped,           // registerImpl(op, key, typed kernel of some signature)
  ImplFallthrough,     // registerImpl(op, key, fallthrough)
  Fallback,            // registerFallback(key, boxed fallback)
  FallthroughFallback, // registerFallback(key, fallthrough)
  StartupFallbacks,    // registerStartupFallbacks
  Drop,                // undo one earlier registration
  CallBoxed,           // op.callBoxed(stack)
  Redispatch,          // op.redispatchBoxed(keys, stack)
  CallForKey,          // op.callBoxedForDispatchKey(key, stack)
  kCount,
};

struct ValueSpec {
  Value::Tag tag = Value::Tag::None;
  std::vector<uint64_t> tensors;  // Tensor: one key set; TensorList: any number
  int64_t number = 0;             // Int, Double (number / 8), Bool (number & 1), String (length)
};

struct Action {
  ActionKind kind = ActionKind::Def;
  int op = 0;
  std::optional<DispatchKey> key;
  int typed = 0;
  uint32_t handle = 0;
  std::vector<ValueSpec> stack;
  std::string stack_how;  // how the stack was shaped ("fits", "drop 2", ...)
  uint64_t keys = 0;      // Redispatch
  std::optional<uint64_t> include;
  std::optional<uint64_t> exclude;
};

struct Program {
  std::vector<OpSpec> ops;
  std::vector<Action> actions;
};

Program decode(const uint8_t* data, size_t size);

// The argument types a stack for op is built for: the parsed text's if it parses, else the spec's.
std::vector<ArgType> intendedArgs(const OpSpec& spec);

std::string_view toString(ActionKind kind);
std::string describe(const Program& p, const Action& a);
void printProgram(std::ostream& out, const Program& p);
// Schema text in quotes, non-printable bytes as \xNN.
std::string quote(std::string_view text);

}  // namespace dispatch::fuzz::boxed_call
