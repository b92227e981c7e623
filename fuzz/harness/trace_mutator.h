#pragma once
// Structure-aware mutation for the trace targets (registration_fuzzer, fallback_fuzzer): an input
// is decoded into its actions, one action-level change is made, and the actions are encoded
// again with the codec's encoder (oracle/actions/action_codec.h), so every output decodes to whole
// actions and a deep state (several actions on one operator) grows one action at a time instead
// of by byte luck. A share of the calls goes to libFuzzer's byte mutators (comparison operands,
// dictionary words, wide escapes stay reachable).
//
// The operations work on action lists and say what they did, so the unit test
// (trace_mutator_test.cpp) checks each one; mutateTrace / crossOverTraces are the byte-level
// entry points the targets' LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver call
// (harness/trace_mutator_hooks.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz {

using Rng = std::minstd_rand;
using Actions = std::vector<oracle::Action>;

// What one structural mutation did (positions index the mutated list).
enum class TraceEdit { Insert, Delete, Duplicate, SwapNeighbours, ChangeField };
enum class ActionField { Operator, Key, KernelKind, Handle };

struct EditRecord {
  TraceEdit edit;
  size_t index = 0;                  // inserted / deleted / swapped (with index + 1) / changed
  size_t source = 0;                 // Duplicate: the action copied
  std::optional<ActionField> field;  // ChangeField: which field
};

// The operations (std::nullopt when the list offers no place for them). The trace targets'
// weights have no prologue (no declared schemas, no leading pushes), which is all they support.
std::optional<EditRecord> insertAction(Actions& actions, const oracle::ActionWeights& weights, Rng& rng);
std::optional<EditRecord> deleteAction(Actions& actions, Rng& rng);
std::optional<EditRecord> duplicateAction(Actions& actions, const oracle::ActionWeights& weights, Rng& rng);
std::optional<EditRecord> swapNeighbours(Actions& actions, Rng& rng);
std::optional<EditRecord> changeField(Actions& actions, const oracle::ActionWeights& weights, Rng& rng);
// A prefix of `first` followed by a suffix of `second`, cut at action boundaries, at most
// weights.max_actions long.
Actions spliceTraces(const Actions& first, const Actions& second, const oracle::ActionWeights& weights,
                     Rng& rng);

// A fresh action the weights can pick, read from random bytes by the target's own decoder.
oracle::Action randomAction(const oracle::ActionWeights& weights, Rng& rng);

// libFuzzer's byte mutators (LLVMFuzzerMutate), or a stand-in in tests.
using ByteMutator = std::function<size_t(uint8_t* data, size_t size, size_t max_size)>;

// Every `kByteShare`-th call on average is handed to the byte mutator.
inline constexpr unsigned kByteShare = 4;

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
