#include "harness/trace_mutator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "harness/prologue_mutator.h"

namespace dispatch::fuzz {

namespace {

using oracle::Action;
using oracle::ActionKind;
using oracle::ActionWeights;

bool picks(const ActionWeights& weights, ActionKind kind) {
  return weights.weight[static_cast<int>(kind)] > 0;
}

constexpr std::array<ActionKind, 3> kImplKinds = {ActionKind::ImplTyped, ActionKind::ImplBoxed,
                                                  ActionKind::ImplFallthrough};
constexpr std::array<ActionKind, 4> kFallbackKinds = {ActionKind::FallbackDirect, ActionKind::FallthroughDirect,
                                                      ActionKind::FallbackLibrary,
                                                      ActionKind::FallthroughLibrary};

// Declared schemas only: the boxed calls, whose stacks fit their operator in every kind.
constexpr std::array<ActionKind, 3> kStackCallKinds = {ActionKind::CallBoxed, ActionKind::RedispatchBoxed,
                                                       ActionKind::CallForKey};

template <size_t N>
bool in(const std::array<ActionKind, N>& family, ActionKind kind) {
  return std::find(family.begin(), family.end(), kind) != family.end();
}

// The operator decides something only for these kinds (fallbacks, guards and drops ignore it).
bool operatorMatters(ActionKind kind) {
  return kind == ActionKind::Def || kind == ActionKind::DefLibrary || oracle::isImpl(kind) ||
         oracle::isCall(kind) || oracle::isBoxedStackCall(kind) || kind == ActionKind::LibraryBlock;
}
// "key": an impl's or fallback's key, a call's or guard's key set (a boxed call's only when it
// names a key or redispatches with a key set), an IMPL block's key.
bool hasKeyField(const Action& a) {
  if (a.kind == ActionKind::LibraryBlock) return a.block && a.block->kind == oracle::LibraryKind::Impl;
  return oracle::isImpl(a.kind) || in(kFallbackKinds, a.kind) || oracle::isCall(a.kind) ||
         a.kind == ActionKind::IncludeKeys || a.kind == ActionKind::ExcludeKeys ||
         a.kind == ActionKind::RedispatchBoxed || a.kind == ActionKind::CallForKey;
}

// The kinds `a` may change into: the other kinds of its family the weights pick.
std::vector<ActionKind> otherKernelKinds(const Action& a, const ActionWeights& weights) {
  std::vector<ActionKind> others;
  const auto collect = [&](auto family) {
    if (!in(family, a.kind)) return;
    for (ActionKind k : family) {
      if (k != a.kind && picks(weights, k)) others.push_back(k);
    }
  };
  collect(kImplKinds);
  collect(kFallbackKinds);
  collect(kStackCallKinds);
  return others;
}

std::vector<ActionField> fieldsOf(const Action& a, const ActionWeights& weights) {
  std::vector<ActionField> fields;
  if (oracle::isKeySetAction(a.kind)) return fields;
  if (operatorMatters(a.kind) && weights.num_ops > 1) fields.push_back(ActionField::Operator);
  if (hasKeyField(a)) fields.push_back(ActionField::Key);
  if (!otherKernelKinds(a, weights).empty()) fields.push_back(ActionField::KernelKind);
  if (a.kind == ActionKind::Drop) fields.push_back(ActionField::Handle);
  if (a.kind == ActionKind::LibraryBlock) fields.push_back(ActionField::Block);
  if (a.signature && oracle::typedSignatures().size() > 1) fields.push_back(ActionField::Signature);
  if (a.call) fields.push_back(ActionField::Stack);
  return fields;
}

// A fresh action like `a` (its kind; with declared schemas its operator too), to take fields from.
Action drawnLike(const Action& a, const ActionSource& source, Rng& rng) {
  return source.declaresSchemas() ? source.ofKindOn(a.kind, a.op, rng) : source.ofKind(a.kind, rng);
}

// Changes `field` of `a`; false when a few draws found no different value.
bool changeOne(Action& a, ActionField field, const ActionSource& source, Rng& rng) {
  const ActionWeights& weights = source.weights();
  const Action before = a;
  switch (field) {
    case ActionField::Operator:
      a.op = static_cast<int>((static_cast<size_t>(a.op) + 1 + below(rng, static_cast<size_t>(weights.num_ops - 1))) %
                              static_cast<size_t>(weights.num_ops));
      return true;
    case ActionField::Key:
      for (int attempt = 0; attempt < 8 && a == before; ++attempt) {
        if (oracle::isImpl(a.kind) && below(rng, 8) == 0) {
          a.key.reset();  // catch-all
          continue;
        }
        const Action drawn = drawnLike(a, source, rng);
        a.key = drawn.key;
        a.keys = drawn.keys;
        a.other = drawn.other;
      }
      return !(a == before);
    case ActionField::KernelKind: {
      const std::vector<ActionKind> others = otherKernelKinds(a, weights);
      a.kind = others[below(rng, others.size())];
      return true;
    }
    case ActionField::Handle:
      // Handles index every handle made so far, modulo: small values reach them all.
      a.handle = static_cast<uint32_t>((a.handle + 1 + below(rng, 31)) % 32);
      return true;
    case ActionField::Block:
      // Another form with a key of its own (an IMPL block has one, the others none).
      for (int attempt = 0; attempt < 8 && a == before; ++attempt) {
        const Action drawn = drawnLike(a, source, rng);
        a.block = drawn.block;
        a.key = drawn.key;
      }
      return !(a == before);
    case ActionField::Signature:
      for (int attempt = 0; attempt < 8 && a == before; ++attempt) a.signature = drawnLike(a, source, rng).signature;
      return !(a == before);
    case ActionField::Stack:
      // Half the time one argument (the fresh stack is for the same operator: the same types),
      // else the whole stack: its arguments, shape, extra values and TLS sets.
      for (int attempt = 0; attempt < 8 && a == before; ++attempt) {
        const Action drawn = drawnLike(a, source, rng);
        const size_t n = a.call->args.size();
        if (n > 0 && drawn.call->args.size() == n && below(rng, 2) == 0) {
          const size_t i = below(rng, n);
          a.call->args[i] = drawn.call->args[i];
        } else {
          a.call = drawn.call;
        }
      }
      return !(a == before);
  }
  return false;
}

}  // namespace

std::optional<EditRecord> insertAction(Actions& program, const ActionSource& source, Rng& rng) {
  if (program.size() >= source.maxProgram()) return std::nullopt;
  const size_t at = below(rng, program.size() + 1);
  program.insert(program.begin() + static_cast<std::ptrdiff_t>(at), source.any(rng));
  return EditRecord{TraceEdit::Insert, at, 0, std::nullopt};
}

std::optional<EditRecord> deleteAction(Actions& program, Rng& rng) {
  if (program.empty()) return std::nullopt;
  const size_t at = below(rng, program.size());
  program.erase(program.begin() + static_cast<std::ptrdiff_t>(at));
  return EditRecord{TraceEdit::Delete, at, 0, std::nullopt};
}

std::optional<EditRecord> duplicateAction(Actions& program, const ActionSource& source, Rng& rng) {
  if (program.empty() || program.size() >= source.maxProgram()) return std::nullopt;
  const size_t from = below(rng, program.size());
  const size_t to = below(rng, program.size() + 1);
  const Action copy = program[from];
  program.insert(program.begin() + static_cast<std::ptrdiff_t>(to), copy);
  return EditRecord{TraceEdit::Duplicate, to, from, std::nullopt};
}

std::optional<EditRecord> swapNeighbours(Actions& program, Rng& rng) {
  if (program.size() < 2) return std::nullopt;
  const size_t at = below(rng, program.size() - 1);
  if (program[at] == program[at + 1]) return std::nullopt;  // a swap would change nothing
  std::swap(program[at], program[at + 1]);
  return EditRecord{TraceEdit::SwapNeighbours, at, 0, std::nullopt};
}

std::optional<EditRecord> changeField(Actions& program, const ActionSource& source, Rng& rng) {
  std::vector<std::pair<size_t, ActionField>> candidates;
  for (size_t i = 0; i < program.size(); ++i) {
    for (ActionField f : fieldsOf(program[i], source.weights())) candidates.emplace_back(i, f);
  }
  if (candidates.empty()) return std::nullopt;
  const auto [index, field] = candidates[below(rng, candidates.size())];
  Action changed = program[index];
  if (!changeOne(changed, field, source, rng)) return std::nullopt;
  source.refit(changed, rng);  // a new operator or kind may not take the old stack, key or signature
  if (changed == program[index]) return std::nullopt;
  program[index] = std::move(changed);
  return EditRecord{TraceEdit::ChangeField, index, 0, field};
}

Actions spliceTraces(const Actions& first, const Actions& second, const ActionSource& source, Rng& rng) {
  const size_t cut_first = below(rng, first.size() + 1);
  const size_t cut_second = below(rng, second.size() + 1);
  Actions out(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(cut_first));
  for (size_t i = cut_second; i < second.size() && out.size() < source.maxProgram(); ++i) {
    out.push_back(second[i]);
    source.refit(out.back(), rng);
  }
  return out;
}

namespace {

// The input's bytes for a prologue and program; nullopt when the encoder refuses or they do not
// fit max_size.
std::optional<std::vector<uint8_t>> encodeInput(const Actions& prologue, const Actions& program,
                                                const ActionWeights& weights, size_t max_size) {
  Actions all = prologue;
  all.insert(all.end(), program.begin(), program.end());
  std::vector<uint8_t> encoded;
  try {
    encoded = oracle::encodeActions(all, weights);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // an action the encoder cannot spell: leave it to the byte mutators
  }
  if (encoded.size() > max_size) return std::nullopt;
  return encoded;
}

// A decoded input split at the end of its prologue.
std::pair<Actions, Actions> splitInput(const uint8_t* data, size_t size, const ActionWeights& weights) {
  Actions all = oracle::decodeActions(data, size, weights);
  const auto prologue = static_cast<std::ptrdiff_t>(prologueLength(weights));
  return {Actions(all.begin(), all.begin() + prologue), Actions(all.begin() + prologue, all.end())};
}

// The source for an input's prologue; nullopt when the encoder cannot spell it again (the codec
// promises it can: a fuzzing run must not stop on that promise).
std::optional<ActionSource> sourceFor(const ActionWeights& weights, const Actions& prologue) {
  try {
    return ActionSource(weights, prologue);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

size_t mutateTrace(const ActionWeights& weights, uint8_t* data, size_t size, size_t max_size, unsigned seed,
                   const ByteMutator& bytes) {
  Rng rng(seed);
  const auto by_bytes = [&] { return bytes ? bytes(data, size, max_size) : size; };
  if (below(rng, kByteShare) == 0) return by_bytes();
  auto [prologue, program] = splitInput(data, size, weights);
  bool done = false;
  if (!prologue.empty() && below(rng, kPrologueShare) == 0) {
    done = changeSchema(prologue, program, weights, rng).has_value();
  } else if (const std::optional<ActionSource> source = sourceFor(weights, prologue)) {
    switch (below(rng, 5)) {
      case 0: done = insertAction(program, *source, rng).has_value(); break;
      case 1: done = deleteAction(program, rng).has_value(); break;
      case 2: done = duplicateAction(program, *source, rng).has_value(); break;
      case 3: done = swapNeighbours(program, rng).has_value(); break;
      default: done = changeField(program, *source, rng).has_value(); break;
    }
  }
  if (!done || program.empty()) return by_bytes();
  const auto encoded = encodeInput(prologue, program, weights, max_size);
  if (!encoded) return by_bytes();
  std::memcpy(data, encoded->data(), encoded->size());
  return encoded->size();
}

size_t crossOverTraces(const ActionWeights& weights, const uint8_t* first, size_t first_size,
                       const uint8_t* second, size_t second_size, uint8_t* out, size_t max_out_size,
                       unsigned seed) {
  Rng rng(seed);
  const auto [prologue, a] = splitInput(first, first_size, weights);
  const Actions b = splitInput(second, second_size, weights).second;
  const std::optional<ActionSource> source = sourceFor(weights, prologue);
  if (!source) return 0;
  const Actions spliced = spliceTraces(a, b, *source, rng);
  if (spliced.empty() || spliced == a) return 0;
  const auto encoded = encodeInput(prologue, spliced, weights, max_out_size);
  if (!encoded) return 0;
  std::memcpy(out, encoded->data(), encoded->size());
  return encoded->size();
}

}  // namespace dispatch::fuzz
