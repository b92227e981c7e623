#pragma once
// Actions as fuzz input bytes: decodeActions reads a bounded list of actions (one byte picks the
// kind by the target's weights, FuzzedDataProvider the arguments); encodeActions writes the bytes
// that decode back to a given list (for re-encoding regression inputs and seeding corpora from
// property counterexamples). decodeActions(encodeActions(a, w), w) == a for every list of at most
// kMaxActions actions whose kinds have a non-zero weight in w and whose fields are those their
// kind uses (others are not written: they decode as their defaults).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "oracle/actions/action.h"

namespace dispatch::oracle {

// Hard cap on actions per input: bounded work per input (docs/harness.md §11.1).
inline constexpr size_t kMaxActions = 48;

// How a target reads actions: how often each kind is picked (one weight per kind, 0 = never;
// one byte picks, modulo the total), how many KeySetPush actions come first without a kind byte
// (operands for the key-set algebra), and the cap on actions per input. Targets differ only in
// these (fallback_fuzzer favours fallbacks, registration_fuzzer spreads evenly, keyset_fuzzer
// picks key-set actions only, boxed_call_fuzzer declares schemas).
// With declared_schemas the input starts with one Schema action per operator (the prologue,
// counted in max_actions), the weights may pick only Def, DefLibrary, the impls, the direct
// fallbacks, StartupFallbacks, Drop and the three boxed stack calls, and their fields follow the
// declared schemas (typed impls carry a signature, calls a stack shaped for the operator).
// pick_order is the order the kind byte walks the weights (empty: the enum's).
struct ActionWeights {
  int weight[kNumActionKinds];
  int leading_pushes = 0;
  size_t max_actions = kMaxActions;
  int num_ops = kNumOps;
  bool declared_schemas = false;
  std::vector<ActionKind> pick_order = {};
};
extern const ActionWeights kRegistrationWeights;
extern const ActionWeights kReleaseKeyWeights;  // registration's, plus NamedKey (release_keys.h)
extern const ActionWeights kLibraryWeights;     // registration's, plus LibraryBlock
extern const ActionWeights kFallbackWeights;
extern const ActionWeights kKeySetWeights;
extern const ActionWeights kBoxedCallWeights;

std::vector<Action> decodeActions(const uint8_t* data, size_t size, const ActionWeights& weights);

// Throws std::invalid_argument for more than max_actions actions, fewer leading KeySetPush
// actions than the weights start with, a kind of weight 0, an operator outside 0 .. num_ops - 1,
// a drop handle above 255, a fallback without a key, a NamedKey action on a key outside
// kReleaseKeyNames, a LibraryBlock action no form byte makes, a key-set field out of its range, or a
// declared-schema action that does not decode (missing prologue, choices out of range or left
// over, a stack that does not fit its operator's arguments, fields its kind does not have).
std::vector<uint8_t> encodeActions(const std::vector<Action>& actions, const ActionWeights& weights);

}  // namespace dispatch::oracle
