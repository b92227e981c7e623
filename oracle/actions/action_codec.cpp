#include "oracle/actions/action_codec.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "dispatch/dispatch_key_set.h"
#include "dispatch/tensor.h"
#include "oracle/actions/action_boxed_codec.h"
#include "oracle/actions/dispatcher_action_codec.h"
#include "oracle/actions/key_set_codec.h"
#include "oracle/actions/fdp_writer.h"

namespace dispatch::oracle {

//                                       Def Typed Boxed FT FbD FtD FbL FtL Start Drop Inc Exc Pop Call CallB Redisp
// Registrations and drops first (a third and a fifth of the actions): table states several
// kernels deep on one operator are where the dispatcher's bugs live (issue 15).
const ActionWeights kRegistrationWeights{{4, 12, 8, 4, 2, 2, 2, 2, 1, 16, 2, 2, 2, 8, 4, 3}};
const ActionWeights kFallbackWeights{{3, 3, 2, 1, 10, 10, 10, 10, 3, 12, 1, 1, 1, 6, 3, 2}};
// c10_release_keys_fuzzer: registration_fuzzer's weights plus NamedKey, so that registrations on
// the keys later c10 releases added meet the ones the enum names (NamedKey is the last kind: with
// weight 0 every other target's kind byte reads as before).
const ActionWeights kReleaseKeyWeights = [] {
  ActionWeights w = kRegistrationWeights;
  w.weight[static_cast<int>(ActionKind::NamedKey)] = 12;
  return w;
}();
// library_fuzzer: registration_fuzzer's weights plus LibraryBlock (the last kind, so every other
// target's kind byte reads as before), a quarter of the actions, so that blocks meet the direct
// registrations on one operator's slots and each other's namespace claims.
const ActionWeights kLibraryWeights = [] {
  ActionWeights w = kRegistrationWeights;
  w.weight[static_cast<int>(ActionKind::LibraryBlock)] = 24;
  return w;
}();
// Key-set actions only, towards the algebra and the checks that compare most; two sets first, so
// that every binary operation has operands; at most 40 actions.
const ActionWeights kKeySetWeights{
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // no dispatcher actions
     4,                                               // KeySetPush
     1, 1, 1, 2, 1, 1,                                // | & ^ - |= &=
     2, 1, 2, 1, 1, 1,                                // add(key) add(set) remove remove_backend | backend mask
     2, 1, 1, 2, 1,                                   // has has_backend has_all has_any ==
     1, 1, 2, 2},                                     // iterate highest* alias query key helpers
    2,
    40};
// boxed_call_fuzzer: three declared operators, boxed calls first; the kind byte walks the kinds in
// the order of its original decoder, so that its corpus still decodes to the same programs.
const ActionWeights kBoxedCallWeights = [] {
  using K = ActionKind;
  const std::pair<ActionKind, int> kWeights[] = {
      {K::Def, 6},         {K::DefLibrary, 3},        {K::ImplBoxed, 8},        {K::ImplTyped, 6},
      {K::ImplFallthrough, 2}, {K::FallbackDirect, 4}, {K::FallthroughDirect, 2}, {K::StartupFallbacks, 1},
      {K::Drop, 3},        {K::CallBoxed, 14},        {K::RedispatchBoxed, 5},  {K::CallForKey, 6}};
  ActionWeights w{};
  for (const auto& [kind, weight] : kWeights) {
    w.weight[static_cast<int>(kind)] = weight;
    w.pick_order.push_back(kind);
  }
  w.num_ops = 3;
  w.max_actions = 3 + 40;  // the prologue and at most 40 actions
  w.declared_schemas = true;
  return w;
}();

namespace {

int totalWeight(const ActionWeights& weights) {
  int total = 0;
  for (int w : weights.weight) total += w;
  return total;
}

// The kind at position i of the order the kind byte walks.
ActionKind kindAt(const ActionWeights& weights, size_t i) {
  return weights.pick_order.empty() ? static_cast<ActionKind>(i) : weights.pick_order[i];
}
size_t pickCount(const ActionWeights& weights) {
  return weights.pick_order.empty() ? static_cast<size_t>(kNumActionKinds) : weights.pick_order.size();
}

ActionKind pickKind(FuzzedDataProvider& in, const ActionWeights& weights) {
  int roll = in.ConsumeIntegral<uint8_t>() % totalWeight(weights);
  for (size_t i = 0; i < pickCount(weights); ++i) {
    const ActionKind kind = kindAt(weights, i);
    roll -= weights.weight[static_cast<int>(kind)];
    if (roll < 0) return kind;
  }
  return ActionKind::Def;
}
void writeKind(FdpWriter& out, ActionKind kind, const ActionWeights& weights) {
  const int index = static_cast<int>(kind);
  if (index < 0 || index >= kNumActionKinds || weights.weight[index] == 0) {
    throw std::invalid_argument("encodeActions: the weights never pick " + std::string(toString(kind)));
  }
  int start = 0;
  for (size_t i = 0; i < pickCount(weights) && kindAt(weights, i) != kind; ++i) {
    start += weights.weight[static_cast<int>(kindAt(weights, i))];
  }
  out.integral<uint8_t>(static_cast<uint8_t>(start));
}

}  // namespace

std::vector<Action> decodeActions(const uint8_t* data, size_t size, const ActionWeights& weights) {
  FuzzedDataProvider in(data, size);
  std::vector<Action> actions;
  // The most actions these bytes decode into, so the vector of a large struct never regrows:
  // the prologue, then one action per byte at most (each takes a kind byte), max_actions in all.
  const size_t prologue = (weights.declared_schemas ? static_cast<size_t>(weights.num_ops) : 0) +
                          static_cast<size_t>(weights.leading_pushes);
  actions.reserve(std::max(prologue, std::min(weights.max_actions, prologue + size)));
  DeclaredOps declared;
  for (int op = 0; weights.declared_schemas && op < weights.num_ops; ++op) {
    actions.push_back(Action::declaredSchema(op, consumeSchemaDecl(in, op)));
    declared.add(op, *actions.back().schema);
  }
  for (int i = 0; i < weights.leading_pushes; ++i) {
    Action a;
    a.kind = ActionKind::KeySetPush;
    a.recipe = consumeKeySetRecipe(in);
    actions.push_back(std::move(a));
  }
  while (in.remaining_bytes() > 0 && actions.size() < weights.max_actions) {
    Action a;
    a.kind = pickKind(in, weights);
    if (isKeySetAction(a.kind)) {
      consumeKeySetFields(in, a);
      actions.push_back(std::move(a));
      continue;
    }
    if (weights.declared_schemas) {
      a.op = in.ConsumeIntegralInRange<int>(0, weights.num_ops - 1);
      consumeDeclaredFields(in, declared, a);
    } else {
      consumeDispatcherFields(in, a);
    }
    actions.push_back(std::move(a));
  }
  return actions;
}

std::vector<uint8_t> encodeActions(const std::vector<Action>& actions, const ActionWeights& weights) {
  if (actions.size() > weights.max_actions) {
    throw std::invalid_argument("encodeActions: " + std::to_string(actions.size()) +
                                " actions, at most " + std::to_string(weights.max_actions) + " decode");
  }
  const auto prologue = weights.declared_schemas ? static_cast<size_t>(weights.num_ops) : 0;
  const auto leading = prologue + static_cast<size_t>(weights.leading_pushes);
  FdpWriter out;
  DeclaredOps declared;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action& a = actions[i];
    if (i < prologue) {
      if (a.kind != ActionKind::Schema || !a.schema || a.op != static_cast<int>(i)) {
        throw std::invalid_argument("encodeActions: these weights start with one schema per operator, in order");
      }
      writeSchemaDecl(out, a.op, *a.schema);
      declared.add(a.op, *a.schema);
      continue;
    }
    if (i < leading) {
      if (a.kind != ActionKind::KeySetPush) {
        throw std::invalid_argument("encodeActions: these weights start with " +
                                    std::to_string(leading) + " key-set pushes");
      }
      writeKeySetRecipe(out, a.recipe);
      continue;
    }
    writeKind(out, a.kind, weights);
    if (isKeySetAction(a.kind)) {
      writeKeySetFields(out, a);
      continue;
    }
    if (weights.declared_schemas) {
      out.integralInRange<int>(0, weights.num_ops - 1, a.op);
      writeDeclaredFields(out, declared, a);
    } else {
      writeDispatcherFields(out, a);
    }
  }
  if (actions.size() < leading) {
    throw std::invalid_argument("encodeActions: these weights start with " + std::to_string(prologue) +
                                " schemas and " + std::to_string(weights.leading_pushes) + " key-set pushes");
  }
  return out.bytes();
}

}  // namespace dispatch::oracle
