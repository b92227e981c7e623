#pragma once
// Structure-aware mutation for the action-trace targets (registration_fuzzer, fallback_fuzzer,
// library_fuzzer, boxed_call_fuzzer): an input is decoded into its actions, one action-level
// change is made, and the actions are encoded again with the codec's encoder
// (oracle/actions/action_codec.h), so every output decodes to whole actions and a deep state
// (several actions on one operator) grows one action at a time instead of by byte luck. A share
// of the calls goes to libFuzzer's byte mutators (comparison operands, dictionary words, wide
// escapes stay reachable).
//
// With declared schemas (boxed_call_fuzzer) an input is a prologue, one Schema per operator, and
// a program: the operations below work on the program, drawing new actions under the prologue
// (harness/action_source.h), and now and then one schema changes instead
// (harness/prologue_mutator.h).
//
// The operations work on action lists and say what they did, so the unit test
// (trace_mutator_test.cpp) checks each one; mutateTrace / crossOverTraces are the byte-level
// entry points the targets' LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver call
// (harness/trace_mutator_hooks.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "harness/action_source.h"
#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz {

// What one structural mutation did (positions index the mutated list).
enum class TraceEdit { Insert, Delete, Duplicate, SwapNeighbours, ChangeField };
// Block (a library block's form: kind, namespace, what it registers, the name's spelling) occurs
// only with weights that pick LibraryBlock; Signature (a typed impl's) and Stack (a boxed call's:
// one argument or the whole stack) only with declared schemas.
enum class ActionField { Operator, Key, KernelKind, Handle, Block, Signature, Stack };
inline constexpr int kNumActionFields = 7;

struct EditRecord {
  TraceEdit edit;
  size_t index = 0;                  // inserted / deleted / swapped (with index + 1) / changed
  size_t source = 0;                 // Duplicate: the action copied
  std::optional<ActionField> field;  // ChangeField: which field
};

// The operations on a program (the actions after the source's prologue; std::nullopt when the
// program offers no place for them). With declared schemas an operator or kernel-kind change
// also redraws what the new operator or kind cannot take (ActionSource::refit: a stack that no
// longer fits, a key or signature the kind needs or lacks); everything else stays.
std::optional<EditRecord> insertAction(Actions& program, const ActionSource& source, Rng& rng);
std::optional<EditRecord> deleteAction(Actions& program, Rng& rng);
std::optional<EditRecord> duplicateAction(Actions& program, const ActionSource& source, Rng& rng);
std::optional<EditRecord> swapNeighbours(Actions& program, Rng& rng);
std::optional<EditRecord> changeField(Actions& program, const ActionSource& source, Rng& rng);
// A prefix of `first` followed by a suffix of `second`, cut at action boundaries, at most
// source.maxProgram() long; the actions from `second` (read under another prologue, perhaps) are
// refitted to the source's.
Actions spliceTraces(const Actions& first, const Actions& second, const ActionSource& source, Rng& rng);

// libFuzzer's byte mutators (LLVMFuzzerMutate), or a stand-in in tests.
using ByteMutator = std::function<size_t(uint8_t* data, size_t size, size_t max_size)>;

// Every `kByteShare`-th call on average is handed to the byte mutator.
inline constexpr unsigned kByteShare = 4;

// With declared schemas, every `kPrologueShare`-th structural edit on average changes a schema.
inline constexpr unsigned kPrologueShare = 10;

// One mutation of data[0, size) in place: a structural edit, re-encoded, or (a share of the
// calls, and whenever no edit applies or the encoding would not fit max_size) the byte mutator.
// Returns the new size.
size_t mutateTrace(const oracle::ActionWeights& weights, uint8_t* data, size_t size, size_t max_size,
                   unsigned seed, const ByteMutator& bytes);

// The encoded splice of two inputs into out[0, max_out_size); 0 when it does not fit or the
// splice equals the first input.
size_t crossOverTraces(const oracle::ActionWeights& weights, const uint8_t* first, size_t first_size,
                       const uint8_t* second, size_t second_size, uint8_t* out, size_t max_out_size,
                       unsigned seed);

}  // namespace dispatch::fuzz
