#include "harness/trace_mutator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace dispatch::fuzz {

namespace {

using oracle::Action;
using oracle::ActionKind;
using oracle::ActionWeights;

// Random bytes per drawn action: a kind byte, an argument byte, and room for the wide forms.
constexpr size_t kDrawBytes = 24;

size_t below(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

bool picks(const ActionWeights& weights, ActionKind kind) {
  return weights.weight[static_cast<int>(kind)] > 0;
}

std::vector<uint8_t> randomBytes(Rng& rng, size_t n) {
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(below(rng, 256));
  return bytes;
}

// One action decoded from `bytes` (the weights read exactly one).
Action decodeOne(std::vector<uint8_t> bytes, const ActionWeights& weights) {
  ActionWeights one = weights;
  one.max_actions = 1;
  return oracle::decodeActions(bytes.data(), bytes.size(), one).front();
}

// An action of `kind` with random fields: random bytes whose last byte (the first one the
// decoder reads) is the kind byte the encoder writes for `kind`.
Action randomActionOfKind(ActionKind kind, const ActionWeights& weights, Rng& rng) {
  Action probe;
  probe.kind = kind;
  probe.key = DispatchKey::CPU;  // fallbacks need a key to encode
  const uint8_t kind_byte = oracle::encodeActions({probe}, weights).back();
  std::vector<uint8_t> bytes = randomBytes(rng, kDrawBytes);
  bytes.back() = kind_byte;
  return decodeOne(std::move(bytes), weights);
}

constexpr std::array<ActionKind, 3> kImplKinds = {ActionKind::ImplTyped, ActionKind::ImplBoxed,
                                                  ActionKind::ImplFallthrough};
constexpr std::array<ActionKind, 4> kFallbackKinds = {ActionKind::FallbackDirect, ActionKind::FallthroughDirect,
                                                      ActionKind::FallbackLibrary,
                                                      ActionKind::FallthroughLibrary};

template <size_t N>
bool in(const std::array<ActionKind, N>& family, ActionKind kind) {
  return std::find(family.begin(), family.end(), kind) != family.end();
}

// The operator decides something only for these kinds (fallbacks, guards and drops ignore it).
bool operatorMatters(ActionKind kind) {
  return kind == ActionKind::Def || oracle::isImpl(kind) || oracle::isCall(kind);
}
// "key": an impl's or fallback's key, a call's or guard's key set.
bool hasKeyField(ActionKind kind) {
  return oracle::isImpl(kind) || in(kFallbackKinds, kind) || oracle::isCall(kind) ||
         kind == ActionKind::IncludeKeys || kind == ActionKind::ExcludeKeys;
}

std::vector<ActionField> fieldsOf(const Action& a, const ActionWeights& weights) {
  std::vector<ActionField> fields;
  if (oracle::isKeySetAction(a.kind)) return fields;
  if (operatorMatters(a.kind) && weights.num_ops > 1) fields.push_back(ActionField::Operator);
  if (hasKeyField(a.kind)) fields.push_back(ActionField::Key);
  const auto other_kinds = [&](auto family) {
    return std::count_if(family.begin(), family.end(),
                         [&](ActionKind k) { return k != a.kind && picks(weights, k); });
  };
  if ((in(kImplKinds, a.kind) && other_kinds(kImplKinds) > 0) ||
      (in(kFallbackKinds, a.kind) && other_kinds(kFallbackKinds) > 0)) {
    fields.push_back(ActionField::KernelKind);
  }
  if (a.kind == ActionKind::Drop) fields.push_back(ActionField::Handle);
  return fields;
}

// Changes `field` of `a`; false when a few draws found no different value.
bool changeOne(Action& a, ActionField field, const ActionWeights& weights, Rng& rng) {
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
        const Action drawn = randomActionOfKind(a.kind, weights, rng);
        a.key = drawn.key;
        a.keys = drawn.keys;
        a.other = drawn.other;
      }
      return !(a == before);
    case ActionField::KernelKind: {
      std::vector<ActionKind> others;
      const auto collect = [&](auto family) {
        for (ActionKind k : family) {
          if (k != a.kind && picks(weights, k)) others.push_back(k);
        }
      };
      if (in(kImplKinds, a.kind)) collect(kImplKinds);
      else collect(kFallbackKinds);
      a.kind = others[below(rng, others.size())];
      return true;
    }
    case ActionField::Handle:
      // Handles index every handle made so far, modulo: small values reach them all.
      a.handle = static_cast<uint32_t>((a.handle + 1 + below(rng, 31)) % 32);
      return true;
  }
  return false;
}

}  // namespace

Action randomAction(const ActionWeights& weights, Rng& rng) { return decodeOne(randomBytes(rng, kDrawBytes), weights); }

std::optional<EditRecord> insertAction(Actions& actions, const ActionWeights& weights, Rng& rng) {
  if (actions.size() >= weights.max_actions) return std::nullopt;
  const size_t at = below(rng, actions.size() + 1);
  actions.insert(actions.begin() + static_cast<std::ptrdiff_t>(at), randomAction(weights, rng));
  return EditRecord{TraceEdit::Insert, at, 0, std::nullopt};
}

std::optional<EditRecord> deleteAction(Actions& actions, Rng& rng) {
  if (actions.empty()) return std::nullopt;
  const size_t at = below(rng, actions.size());
  actions.erase(actions.begin() + static_cast<std::ptrdiff_t>(at));
  return EditRecord{TraceEdit::Delete, at, 0, std::nullopt};
}

std::optional<EditRecord> duplicateAction(Actions& actions, const ActionWeights& weights, Rng& rng) {
  if (actions.empty() || actions.size() >= weights.max_actions) return std::nullopt;
  const size_t from = below(rng, actions.size());
  const size_t to = below(rng, actions.size() + 1);
  const Action copy = actions[from];
  actions.insert(actions.begin() + static_cast<std::ptrdiff_t>(to), copy);
  return EditRecord{TraceEdit::Duplicate, to, from, std::nullopt};
}

std::optional<EditRecord> swapNeighbours(Actions& actions, Rng& rng) {
  if (actions.size() < 2) return std::nullopt;
  const size_t at = below(rng, actions.size() - 1);
  if (actions[at] == actions[at + 1]) return std::nullopt;  // a swap would change nothing
  std::swap(actions[at], actions[at + 1]);
  return EditRecord{TraceEdit::SwapNeighbours, at, 0, std::nullopt};
}

std::optional<EditRecord> changeField(Actions& actions, const ActionWeights& weights, Rng& rng) {
  std::vector<std::pair<size_t, ActionField>> candidates;
  for (size_t i = 0; i < actions.size(); ++i) {
    for (ActionField f : fieldsOf(actions[i], weights)) candidates.emplace_back(i, f);
  }
  if (candidates.empty()) return std::nullopt;
  const auto [index, field] = candidates[below(rng, candidates.size())];
  if (!changeOne(actions[index], field, weights, rng)) return std::nullopt;
  return EditRecord{TraceEdit::ChangeField, index, 0, field};
}

Actions spliceTraces(const Actions& first, const Actions& second, const ActionWeights& weights, Rng& rng) {
  const size_t cut_first = below(rng, first.size() + 1);
  const size_t cut_second = below(rng, second.size() + 1);
  Actions out(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(cut_first));
  for (size_t i = cut_second; i < second.size() && out.size() < weights.max_actions; ++i) {
    out.push_back(second[i]);
  }
  return out;
}

size_t mutateTrace(const ActionWeights& weights, uint8_t* data, size_t size, size_t max_size, unsigned seed,
                   const ByteMutator& bytes) {
  Rng rng(seed);
  const auto by_bytes = [&] { return bytes ? bytes(data, size, max_size) : size; };
  if (below(rng, kByteShare) == 0) return by_bytes();
  Actions actions = oracle::decodeActions(data, size, weights);
  std::optional<EditRecord> done;
  switch (below(rng, 5)) {
    case 0: done = insertAction(actions, weights, rng); break;
    case 1: done = deleteAction(actions, rng); break;
    case 2: done = duplicateAction(actions, weights, rng); break;
    case 3: done = swapNeighbours(actions, rng); break;
    default: done = changeField(actions, weights, rng); break;
  }
  if (!done || actions.empty()) return by_bytes();
  std::vector<uint8_t> encoded;
  try {
    encoded = oracle::encodeActions(actions, weights);
  } catch (const std::invalid_argument&) {
    return by_bytes();  // an action the encoder cannot spell: leave it to the byte mutators
  }
  if (encoded.size() > max_size) return by_bytes();
  std::memcpy(data, encoded.data(), encoded.size());
  return encoded.size();
}

size_t crossOverTraces(const ActionWeights& weights, const uint8_t* first, size_t first_size,
                       const uint8_t* second, size_t second_size, uint8_t* out, size_t max_out_size,
                       unsigned seed) {
  Rng rng(seed);
  const Actions a = oracle::decodeActions(first, first_size, weights);
  const Actions b = oracle::decodeActions(second, second_size, weights);
  const Actions spliced = spliceTraces(a, b, weights, rng);
  if (spliced.empty() || spliced == a) return 0;
  std::vector<uint8_t> encoded;
  try {
    encoded = oracle::encodeActions(spliced, weights);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (encoded.size() > max_out_size) return 0;
  std::memcpy(out, encoded.data(), encoded.size());
  return encoded.size();
}

}  // namespace dispatch::fuzz
