#include "harness/action_source.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace dispatch::fuzz {

namespace {

using oracle::Action;
using oracle::ActionKind;
using oracle::ActionWeights;

// Random bytes per drawn action: enough for a boxed call's widest stack (six arguments, tensor
// lists of raw key sets); the decoder reads only what the action needs.
constexpr size_t kDrawBytes = 160;

}  // namespace

size_t below(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

std::vector<uint8_t> randomBytes(Rng& rng, size_t n) {
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(below(rng, 256));
  return bytes;
}

size_t prologueLength(const ActionWeights& weights) {
  if (weights.leading_pushes > 0) {
    throw std::invalid_argument("trace mutator: weights with leading key-set pushes are not supported");
  }
  return weights.declared_schemas ? static_cast<size_t>(weights.num_ops) : 0;
}

ActionSource::ActionSource(const ActionWeights& weights, Actions prologue)
    : weights_(&weights), one_action_(weights), prologue_(std::move(prologue)) {
  if (prologue_.size() != prologueLength(weights)) {
    throw std::invalid_argument("ActionSource: " + std::to_string(prologue_.size()) + " prologue actions, expected " +
                                std::to_string(prologueLength(weights)));
  }
  one_action_.max_actions = prologue_.size() + 1;
  prologue_bytes_ = oracle::encodeActions(prologue_, one_action_);
  if (oracle::decodeActions(prologue_bytes_.data(), prologue_bytes_.size(), one_action_) != prologue_) {
    throw std::invalid_argument("ActionSource: a prologue that does not decode back to itself");
  }
}

// The decoder reads integers from the end of its input: the prologue's bytes go last, so it reads
// them first and the program bytes after them.
Action ActionSource::decodeAfterPrologue(std::vector<uint8_t> program_bytes) const {
  program_bytes.insert(program_bytes.end(), prologue_bytes_.begin(), prologue_bytes_.end());
  Actions decoded = oracle::decodeActions(program_bytes.data(), program_bytes.size(), one_action_);
  if (decoded.size() != prologue_.size() + 1) throw std::logic_error("ActionSource: no action after the prologue");
  return std::move(decoded.back());
}

// The kind byte is the first the decoder reads after the prologue; the smallest value that picks
// `kind` is found by asking the decoder, so the source needs no copy of the pick rule. It depends
// on the weights alone: looked up once per weights and thread.
uint8_t ActionSource::kindByte(ActionKind kind) const {
  thread_local std::map<const ActionWeights*, std::array<int, oracle::kNumActionKinds>> found;
  auto [entry, fresh] = found.try_emplace(weights_);
  if (fresh) entry->second.fill(-1);
  int& cached = entry->second[static_cast<size_t>(kind)];
  for (int b = 0; cached < 0 && b < 256; ++b) {
    if (decodeAfterPrologue({static_cast<uint8_t>(b)}).kind == kind) cached = b;
  }
  if (cached < 0) throw std::invalid_argument("ActionSource: the weights never pick " + std::string(toString(kind)));
  return static_cast<uint8_t>(cached);
}

Action ActionSource::any(Rng& rng) const { return decodeAfterPrologue(randomBytes(rng, kDrawBytes)); }

Action ActionSource::ofKind(ActionKind kind, Rng& rng) const {
  std::vector<uint8_t> bytes = randomBytes(rng, kDrawBytes);
  bytes.back() = kindByte(kind);
  return decodeAfterPrologue(std::move(bytes));
}

Action ActionSource::ofKindOn(ActionKind kind, int op, Rng& rng) const {
  if (!declaresSchemas()) throw std::logic_error("ActionSource::ofKindOn: only with declared schemas");
  std::vector<uint8_t> bytes = randomBytes(rng, kDrawBytes);
  bytes.back() = kindByte(kind);
  // With declared schemas the operator is the next byte read, one byte in 0 .. num_ops - 1.
  bytes[bytes.size() - 2] = static_cast<uint8_t>(op);
  Action a = decodeAfterPrologue(std::move(bytes));
  if (a.kind != kind || a.op != op) throw std::logic_error("ActionSource::ofKindOn: the layout of the kind and operator bytes changed");
  return a;
}

bool ActionSource::spells(const Action& a) const {
  Actions probe = prologue_;
  probe.push_back(a);
  std::vector<uint8_t> bytes;
  try {
    bytes = oracle::encodeActions(probe, one_action_);
  } catch (const std::logic_error&) {  // invalid_argument, or out_of_range for an unknown operator
    return false;
  }
  return oracle::decodeActions(bytes.data(), bytes.size(), one_action_) == probe;
}

bool ActionSource::refit(Action& a, Rng& rng) const {
  if (spells(a)) return false;
  Action fitted = declaresSchemas() ? ofKindOn(a.kind, a.op, rng) : ofKind(a.kind, rng);
  // Each of a's fields in turn, kept when the fresh action still spells with it.
  const auto keep = [&](auto&& assign) {
    Action trial = fitted;
    assign(trial);
    if (spells(trial)) fitted = std::move(trial);
  };
  keep([&](Action& t) { t.op = a.op; });
  keep([&](Action& t) { t.key = a.key; });
  keep([&](Action& t) { t.keys = a.keys; });
  keep([&](Action& t) { t.other = a.other; });
  keep([&](Action& t) { t.handle = a.handle; });
  keep([&](Action& t) { t.signature = a.signature; });
  keep([&](Action& t) { t.call = a.call; });
  keep([&](Action& t) { t.block = a.block; });
  if (fitted.call && a.call && fitted.call != a.call) {
    // A stack for another schema: the arguments in place that still fit, its shape, its TLS sets.
    for (size_t i = 0; i < std::min(fitted.call->args.size(), a.call->args.size()); ++i) {
      keep([&](Action& t) { t.call->args[i] = a.call->args[i]; });
    }
    keep([&](Action& t) {
      t.call->shape_choice = a.call->shape_choice;
      t.call->pick = a.call->pick;
      t.call->extra = a.call->extra;
    });
    keep([&](Action& t) {
      t.call->include = a.call->include;
      t.call->exclude = a.call->exclude;
    });
  }
  a = std::move(fitted);
  return true;
}

}  // namespace dispatch::fuzz
