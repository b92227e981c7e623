#pragma once
// The structure-aware mutator's edit of a declared-schema prologue (boxed_call_fuzzer): one
// operator's schema changes in one field (its overload name, one argument's type, its return's
// type) or is drawn afresh, and the program's actions that no longer spell under the new prologue
// are refitted to it (ActionSource::refit: a call's stack redrawn for the new arguments, keeping
// the ones that still fit). The input keeps its three schemas and its number of actions.

#include <cstddef>
#include <optional>

#include "harness/action_source.h"
#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz {

enum class SchemaEdit { Overload, ArgumentType, ReturnType, Redraw };

struct SchemaEditRecord {
  size_t op;        // the operator whose schema changed
  SchemaEdit edit;
  size_t refitted;  // program actions refitted to the new schema
};

// std::nullopt (and nothing changed) when the edit leaves a schema the codec cannot spell (a text
// schema's recorded edits that no longer fit its new text) or found no different schema.
std::optional<SchemaEditRecord> changeSchema(Actions& prologue, Actions& program, const oracle::ActionWeights& weights,
                                             Rng& rng);

}  // namespace dispatch::fuzz
