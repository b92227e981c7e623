#include "harness/prologue_mutator.h"

#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dispatch::fuzz {

namespace {

using dispatch::ArgType;
using oracle::SchemaDecl;
using oracle::SchemaMode;

// Random bytes for a whole prologue; the decoder reads only what the schemas need.
constexpr size_t kPrologueDrawBytes = 256;

ArgType otherType(ArgType type, Rng& rng) {
  std::vector<ArgType> others;
  for (ArgType t : oracle::kAllArgTypes) {
    if (t != type) others.push_back(t);
  }
  return others[below(rng, others.size())];
}

// A fresh schema for operator `op`, read by the target's decoder from random bytes.
SchemaDecl drawnSchema(size_t op, const oracle::ActionWeights& weights, Rng& rng) {
  oracle::ActionWeights prologue_only = weights;
  prologue_only.max_actions = prologueLength(weights);
  const std::vector<uint8_t> bytes = randomBytes(rng, kPrologueDrawBytes);
  return *oracle::decodeActions(bytes.data(), bytes.size(), prologue_only).at(op).schema;
}

}  // namespace

std::optional<SchemaEditRecord> changeSchema(Actions& prologue, Actions& program, const oracle::ActionWeights& weights,
                                             Rng& rng) {
  if (prologue.empty()) return std::nullopt;
  const size_t op = below(rng, prologue.size());
  Actions changed = prologue;
  SchemaDecl& decl = *changed[op].schema;
  // A typed schema's arguments and returns are its signature's: only a redraw changes them.
  std::vector<SchemaEdit> edits = {SchemaEdit::Overload, SchemaEdit::Redraw};
  if (decl.mode != SchemaMode::Typed && !decl.args.empty()) edits.push_back(SchemaEdit::ArgumentType);
  if (decl.mode != SchemaMode::Typed && !decl.returns.empty()) edits.push_back(SchemaEdit::ReturnType);
  const SchemaEdit edit = edits[below(rng, edits.size())];
  switch (edit) {
    case SchemaEdit::Overload:
      decl.overload = !decl.overload;
      break;
    case SchemaEdit::ArgumentType: {
      ArgType& arg = decl.args[below(rng, decl.args.size())];
      arg = otherType(arg, rng);
      break;
    }
    case SchemaEdit::ReturnType:
      decl.returns[0] = otherType(decl.returns[0], rng);
      break;
    case SchemaEdit::Redraw:
      for (int attempt = 0; attempt < 8 && decl == *prologue[op].schema; ++attempt) {
        decl = drawnSchema(op, weights, rng);
      }
      if (decl == *prologue[op].schema) return std::nullopt;
      break;
  }
  std::optional<ActionSource> source;
  try {
    source.emplace(weights, changed);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  size_t refitted = 0;
  for (oracle::Action& a : program) refitted += source->refit(a, rng) ? 1 : 0;
  prologue = std::move(changed);
  return SchemaEditRecord{op, edit, refitted};
}

}  // namespace dispatch::fuzz
