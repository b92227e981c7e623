#pragma once
// Where the structure-aware mutator (harness/trace_mutator.h) draws new actions from: a target's
// weights and, for weights with declared schemas (boxed_call_fuzzer), the prologue of Schema
// actions the program is read under. Actions are read by the target's own decoder from random
// bytes placed after the encoded prologue, so a drawn call's stack is shaped for its operator's
// declared schema exactly as the decoder shapes it. refit() turns an edited action back into
// one the codec spells under the prologue (decode(encode(a)) == a), keeping what it can.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz {

using Rng = std::minstd_rand;
using Actions = std::vector<oracle::Action>;

// A uniform index in [0, n), n > 0.
size_t below(Rng& rng, size_t n);
std::vector<uint8_t> randomBytes(Rng& rng, size_t n);

// How many actions open every input of these weights: one Schema per operator with declared
// schemas, none otherwise. Throws std::invalid_argument for weights with leading key-set pushes
// (keyset_fuzzer), which the mutator does not support.
size_t prologueLength(const oracle::ActionWeights& weights);

class ActionSource {
 public:
  // `prologue`: the first prologueLength(weights) actions of a decoded input. Throws
  // std::invalid_argument when it is not a prologue these weights spell.
  ActionSource(const oracle::ActionWeights& weights, Actions prologue);

  const oracle::ActionWeights& weights() const { return *weights_; }
  const Actions& prologue() const { return prologue_; }
  bool declaresSchemas() const { return weights_->declared_schemas; }
  // The longest program (actions after the prologue) an input can hold.
  size_t maxProgram() const { return weights_->max_actions - prologue_.size(); }

  // A random action the weights can pick.
  oracle::Action any(Rng& rng) const;
  // A random action of `kind` (which the weights must pick), with random fields.
  oracle::Action ofKind(oracle::ActionKind kind, Rng& rng) const;
  // The same on operator `op`; only with declared schemas (elsewhere the operator is one of the
  // kind's fields, read where the kind reads it). Throws std::logic_error otherwise.
  oracle::Action ofKindOn(oracle::ActionKind kind, int op, Rng& rng) const;

  // Whether `a`, after the prologue, decodes back to itself.
  bool spells(const oracle::Action& a) const;
  // When `a` does not spell: a fresh action of its kind (on its operator) that keeps each of
  // a's fields the codec accepts there (key, key set, handle, signature, stack, each stack
  // argument, the call's TLS sets). Returns whether anything was redrawn.
  bool refit(oracle::Action& a, Rng& rng) const;

 private:
  oracle::Action decodeAfterPrologue(std::vector<uint8_t> program_bytes) const;
  uint8_t kindByte(oracle::ActionKind kind) const;

  const oracle::ActionWeights* weights_;
  oracle::ActionWeights one_action_;  // reads the prologue and one action
  Actions prologue_;
  std::vector<uint8_t> prologue_bytes_;
};

}  // namespace dispatch::fuzz
