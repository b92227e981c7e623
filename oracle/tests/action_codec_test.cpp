// The byte codec of the action vocabulary: encodeActions is the inverse of decodeActions, for
// hand-written traces and for whatever random bytes decode to, under every target's weights.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "dispatch/key_sets.h"
#include "oracle/actions/action_codec.h"
#include "oracle/actions/release_keys.h"

namespace {

using dispatch::DispatchKey;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;
using dispatch::oracle::ActionWeights;
using dispatch::oracle::decodeActions;
using dispatch::oracle::encodeActions;

std::vector<Action> roundTrip(const std::vector<Action>& actions, const ActionWeights& weights) {
  const std::vector<uint8_t> bytes = encodeActions(actions, weights);
  return decodeActions(bytes.data(), bytes.size(), weights);
}

const std::vector<Action> kEveryShape = {
    {ActionKind::Def, 2, std::nullopt, 0, 0, std::nullopt},
    {ActionKind::ImplTyped, 1, DispatchKey::AutogradCPU, 0, 0, std::nullopt},
    {ActionKind::ImplBoxed, 3, std::nullopt, 0, 0, std::nullopt},  // catch-all
    {ActionKind::ImplFallthrough, 0, static_cast<DispatchKey>(40000), 0, 0, std::nullopt},
    {ActionKind::FallbackDirect, 0, DispatchKey::CUDA, 0, 0, std::nullopt},
    {ActionKind::FallthroughDirect, 0, DispatchKey::EndOfAliasKeys, 0, 0, std::nullopt},
    {ActionKind::FallbackLibrary, 0, DispatchKey::Undefined, 0, 0, std::nullopt},
    {ActionKind::FallthroughLibrary, 1, static_cast<DispatchKey>(65535), 0, 0, std::nullopt},
    {ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt},
    {ActionKind::Drop, 0, std::nullopt, 255, 0, std::nullopt},
    {ActionKind::IncludeKeys, 0, std::nullopt, 0, 0x8000000000000001u, std::nullopt},
    {ActionKind::ExcludeKeys, 0, std::nullopt, 0, 0, std::nullopt},
    {ActionKind::PopGuard, 3, std::nullopt, 0, 0, std::nullopt},
    {ActionKind::CallTyped, 0, std::nullopt, 0, 0x1234, std::nullopt},
    {ActionKind::CallBoxed, 1, std::nullopt, 0, 0x3, 0xffffffffffffffffu},
    {ActionKind::Redispatch, 2, std::nullopt, 0, 0xfff0, std::nullopt},
};

TEST(ActionCodec, EveryActionShapeRoundTrips) {
  for (const ActionWeights* weights :
       {&dispatch::oracle::kRegistrationWeights, &dispatch::oracle::kFallbackWeights}) {
    EXPECT_EQ(roundTrip(kEveryShape, *weights), kEveryShape);
    EXPECT_TRUE(roundTrip({}, *weights).empty());
  }
}

TEST(ActionCodec, KeySetActionsRoundTrip) {
  using dispatch::BackendComponent;
  using dispatch::oracle::KeySetRecipe;
  using dispatch::oracle::KeySetSource;
  const auto& weights = dispatch::oracle::kKeySetWeights;
  const std::vector<Action> actions = {
      Action::keySet(ActionKind::KeySetPush, 0, 0, std::nullopt, BackendComponent::InvalidBit,
                     {KeySetSource::Raw, 0xffff000000000001u, {}, {}, 0, false}),
      Action::keySet(ActionKind::KeySetPush, 0, 0, std::nullopt, BackendComponent::InvalidBit,
                     {KeySetSource::MixedBackends, 0, {DispatchKey::Python}, {BackendComponent::CPUBit, BackendComponent::CUDABit}, 1, false}),
      Action::keySet(ActionKind::KeySetPush, 0, 0, std::nullopt, BackendComponent::InvalidBit,
                     {KeySetSource::Tensor, 0, {}, {BackendComponent::XLABit}, 3, true}),
      Action::keySet(ActionKind::KeySetPush, 0, 0, std::nullopt, BackendComponent::InvalidBit,
                     {KeySetSource::Backends, 0, {}, {BackendComponent::InvalidBit, static_cast<BackendComponent>(200)}, 1, false}),
      Action::keySet(ActionKind::KeySetHas, 7, 0, static_cast<DispatchKey>(50000), BackendComponent::InvalidBit, {}),
      Action::keySet(ActionKind::KeySetHasBackend, 3, 0, std::nullopt, BackendComponent::MetaBit, {}),
      Action::keySet(ActionKind::KeyHelpers, 0, 0, DispatchKey::AutogradCPU, BackendComponent::CUDABit, {}),
      Action::keySet(ActionKind::KeySetOrAssign, 200, 5, std::nullopt, BackendComponent::InvalidBit, {}),
  };
  EXPECT_EQ(roundTrip(actions, weights), actions);
  // Two pushes always come first; a dispatcher action is never picked.
  EXPECT_THROW(encodeActions({actions[4]}, weights), std::invalid_argument);
  EXPECT_THROW(encodeActions({actions[0], actions[1], {ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt}}, weights),
               std::invalid_argument);
}

TEST(ActionCodec, WhatRandomBytesDecodeToRoundTrips) {
  std::mt19937 rng(20240611);
  for (const ActionWeights* weights :
       {&dispatch::oracle::kRegistrationWeights, &dispatch::oracle::kFallbackWeights,
        &dispatch::oracle::kKeySetWeights, &dispatch::oracle::kBoxedCallWeights,
        &dispatch::oracle::kReleaseKeyWeights}) {
    for (int input = 0; input < 2000; ++input) {
      std::vector<uint8_t> bytes(rng() % 600);
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
      const std::vector<Action> decoded = decodeActions(bytes.data(), bytes.size(), *weights);
      ASSERT_EQ(roundTrip(decoded, *weights), decoded) << "input " << input;
    }
  }
}

TEST(ActionCodec, RefusesWhatCannotDecode) {
  const auto& weights = dispatch::oracle::kRegistrationWeights;
  EXPECT_THROW(encodeActions(std::vector<Action>(dispatch::oracle::kMaxActions + 1), weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions({{ActionKind::Def, dispatch::oracle::kNumOps, std::nullopt, 0, 0, std::nullopt}}, weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions({{ActionKind::Drop, 0, std::nullopt, 256, 0, std::nullopt}}, weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions({{ActionKind::FallbackDirect, 0, std::nullopt, 0, 0, std::nullopt}}, weights),
               std::invalid_argument);
  ActionWeights no_defs = weights;
  no_defs.weight[static_cast<int>(ActionKind::Def)] = 0;
  EXPECT_THROW(encodeActions({{ActionKind::Def, 0, std::nullopt, 0, 0, std::nullopt}}, no_defs),
               std::invalid_argument);
}

// --- keys by c10's name (c10_release_keys_fuzzer's weights) ------------------------------------

using dispatch::oracle::kReleaseKeyNames;
using dispatch::oracle::kReleaseKeyWeights;

constexpr uint8_t kNamedKeyKindByte = 74;  // registration_fuzzer's weights add up to 74: NamedKey follows

TEST(ActionCodec, NamedKeyIsTheKindByteBeyondRegistrationFuzzersWeights) {
  int registration_total = 0;
  for (int w : dispatch::oracle::kRegistrationWeights.weight) registration_total += w;
  ASSERT_EQ(registration_total, kNamedKeyKindByte);
  // Same weights but NamedKey's, and only release-key weights pick it.
  for (int kind = 0; kind < dispatch::oracle::kNumActionKinds; ++kind) {
    if (kind == static_cast<int>(ActionKind::NamedKey)) continue;
    EXPECT_EQ(kReleaseKeyWeights.weight[kind], dispatch::oracle::kRegistrationWeights.weight[kind]) << kind;
  }
  for (const ActionWeights* weights : {&dispatch::oracle::kRegistrationWeights, &dispatch::oracle::kFallbackWeights,
                                       &dispatch::oracle::kKeySetWeights, &dispatch::oracle::kBoxedCallWeights}) {
    EXPECT_EQ(weights->weight[static_cast<int>(ActionKind::NamedKey)], 0);
  }
  EXPECT_GT(kReleaseKeyWeights.weight[static_cast<int>(ActionKind::NamedKey)], 0);
}

TEST(ActionCodec, NamedKeyDecodesFromItsArgumentAndKeyBytes) {
  // FuzzedDataProvider reads integers from the end: kind byte, argument byte, key byte.
  auto decodeOne = [](uint8_t key, uint8_t argument) {
    const std::vector<uint8_t> bytes = {key, argument, kNamedKeyKindByte};
    const auto actions = decodeActions(bytes.data(), bytes.size(), kReleaseKeyWeights);
    EXPECT_EQ(actions.size(), 1u);
    return actions.empty() ? Action() : actions[0];
  };
  // Selector 0..7 typed, 8..13 boxed, 14..19 fallthrough, then 3 each of the four fallbacks;
  // the operator is the top 3 bits (5: op1); the key byte is taken modulo the list's length.
  EXPECT_EQ(decodeOne(1, 0), Action::namedKey(ActionKind::ImplTyped, 0, "AutogradMTIA"));
  EXPECT_EQ(decodeOne(4, 5 << 5 | 14), Action::namedKey(ActionKind::ImplFallthrough, 1, "FuncTorchBatchedDecomposition"));
  EXPECT_EQ(decodeOne(3, 8), Action::namedKey(ActionKind::ImplBoxed, 0, "AutogradMAIA"));
  EXPECT_EQ(decodeOne(2, 20), Action::namedKey(ActionKind::FallbackDirect, 0, "MAIA"));
  EXPECT_EQ(decodeOne(0, 23), Action::namedKey(ActionKind::FallthroughDirect, 0, "MTIA"));
  EXPECT_EQ(decodeOne(34, 26), Action::namedKey(ActionKind::FallbackLibrary, 0, "MTIA"));
  EXPECT_EQ(decodeOne(33, 31), Action::namedKey(ActionKind::FallthroughLibrary, 0, "SparseCsrPrivateUse3"));
  // The byte before NamedKey's is still registration_fuzzer's last kind (Redispatch).
  const std::vector<uint8_t> redispatch = {0, kNamedKeyKindByte - 1};
  EXPECT_EQ(decodeActions(redispatch.data(), redispatch.size(), kReleaseKeyWeights)[0].kind, ActionKind::Redispatch);
}

TEST(ActionCodec, EveryNamedKeyRegistrationRoundTrips) {
  std::vector<Action> actions;
  const ActionKind kinds[] = {ActionKind::ImplTyped,         ActionKind::ImplBoxed,      ActionKind::ImplFallthrough,
                              ActionKind::FallbackDirect,    ActionKind::FallthroughDirect,
                              ActionKind::FallbackLibrary,   ActionKind::FallthroughLibrary};
  for (size_t i = 0; i < kReleaseKeyNames.size(); ++i) {
    actions.push_back(Action::namedKey(kinds[i % std::size(kinds)], static_cast<int>(i % 4), std::string(kReleaseKeyNames[i])));
    if (actions.size() == dispatch::oracle::kMaxActions) break;
  }
  EXPECT_EQ(roundTrip(actions, kReleaseKeyWeights), actions);
  // Beside every other shape of registration_fuzzer's vocabulary.
  std::vector<Action> mixed = kEveryShape;
  mixed.insert(mixed.begin() + 3, Action::namedKey(ActionKind::ImplTyped, 2, "MTIA"));
  EXPECT_EQ(roundTrip(mixed, kReleaseKeyWeights), mixed);
}

TEST(ActionCodec, RefusesNamedKeyActionsThatCannotDecode) {
  // Weights that never pick NamedKey (every committed target's) cannot write one.
  EXPECT_THROW(encodeActions({Action::namedKey(ActionKind::ImplTyped, 0, "MTIA")}, dispatch::oracle::kRegistrationWeights),
               std::invalid_argument);
  // A key outside the list (one the enum names, or none at all), or nothing to register.
  EXPECT_THROW(encodeActions({Action::namedKey(ActionKind::ImplTyped, 0, "CPU")}, kReleaseKeyWeights), std::invalid_argument);
  EXPECT_THROW(encodeActions({Action::namedKey(ActionKind::ImplTyped, 0, "MTIAX")}, kReleaseKeyWeights), std::invalid_argument);
  EXPECT_THROW(encodeActions({Action::namedKey(ActionKind::Def, 0, "MTIA")}, kReleaseKeyWeights), std::invalid_argument);
  EXPECT_THROW(encodeActions({Action::namedKey(ActionKind::StartupFallbacks, 0, "MTIA")}, kReleaseKeyWeights),
               std::invalid_argument);
  Action without;
  without.kind = ActionKind::NamedKey;
  EXPECT_THROW(encodeActions({without}, kReleaseKeyWeights), std::invalid_argument);
}

// The list names keys the enum lacks (the enum's own keys go by the plain kinds), each once, and
// the ones issue 33 names first.
TEST(ReleaseKeys, NameOnlyKeysTheEnumLacksEachOnce) {
  std::set<std::string_view> seen;
  for (std::string_view name : kReleaseKeyNames) {
    EXPECT_FALSE(dispatch::tryParseDispatchKey(name).has_value()) << name << " is a key of the enum";
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
  }
  const std::vector<std::string_view> first(kReleaseKeyNames.begin(), kReleaseKeyNames.begin() + 5);
  EXPECT_EQ(first, (std::vector<std::string_view>{"MTIA", "AutogradMTIA", "MAIA", "AutogradMAIA",
                                                  "FuncTorchBatchedDecomposition"}));
}

TEST(ActionText, NamedKeyActionsPrintAsTheRegistrationOnTheNamedKey) {
  using dispatch::oracle::describe;
  using dispatch::oracle::toCpp;
  const Action impl = Action::namedKey(ActionKind::ImplTyped, 1, "AutogradMTIA");
  EXPECT_EQ(describe(impl), "impl typed fz::op1 @ named key AutogradMTIA");
  EXPECT_EQ(toCpp(impl), "Action::namedKey(ActionKind::ImplTyped, 1, \"AutogradMTIA\")");
  const Action fallback = Action::namedKey(ActionKind::FallthroughLibrary, 3, "FuncTorchBatchedDecomposition");
  EXPECT_EQ(describe(fallback), "library fallthrough @ named key FuncTorchBatchedDecomposition");
  EXPECT_EQ(toCpp(fallback), "Action::namedKey(ActionKind::FallthroughLibrary, 3, \"FuncTorchBatchedDecomposition\")");
  std::ostringstream trace;
  dispatch::oracle::printTrace(trace, {impl});
  EXPECT_EQ(trace.str(), "  0: impl typed fz::op1 @ named key AutogradMTIA\n");
}

// --- declared schemas (boxed_call_fuzzer's weights) -------------------------------------------

using dispatch::ArgType;
using dispatch::Value;
using dispatch::oracle::BoxedCall;
using dispatch::oracle::SchemaDecl;
using dispatch::oracle::SchemaMode;
using dispatch::oracle::ValueSpec;

// Spelling choices: loose, namespace (0: none), [spaces when loose], named returns (0: named),
// [one return: bare (1) or in parentheses (0)], [spaces].
const std::vector<Action> kDeclaredPrologue = {
    // " bx::op0(  Tensor a0)-> int out\t": loose, namespace, spaces " ", "", "  ", "", "", "", " ",
    // named, bare, "\t".
    Action::declaredSchema(0, {SchemaMode::Generated, false, 0, {ArgType::Tensor}, {ArgType::Int},
                               {1, 1, 1, 0, 2, 0, 0, 0, 1, 0, 1, 3}, {}}),
    // "op1.ov(Tensor? a0,str a1)->(Tensor?)": signature 4, no namespace, unnamed, in parentheses.
    Action::declaredSchema(1, {SchemaMode::Typed, true, 4, {ArgType::OptionalTensor, ArgType::String},
                               {ArgType::OptionalTensor}, {0, 0, 1, 0}, {}}),
    // "bx::op2()->()" cut to "bx:" (one edit: position 3, truncate).
    Action::declaredSchema(2, {SchemaMode::Text, false, 0, {}, {}, {0, 1, 1}, {1, 3, 4}}),
};

std::vector<Action> declaredTrace() {
  using K = ActionKind;
  const uint64_t autograd = dispatch::autograd_dispatch_keyset.raw_repr();
  const ValueSpec tensor{Value::Tag::Tensor, {0x1234u}, 0};
  std::vector<Action> trace = kDeclaredPrologue;
  const std::vector<Action> body = {
      Action::declared(K::Def, 0, std::nullopt, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::DefLibrary, 2, std::nullopt, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::ImplBoxed, 0, DispatchKey::CPU, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::ImplTyped, 1, std::nullopt, 0, 0, 4, std::nullopt),
      Action::declared(K::ImplTyped, 0, DispatchKey::AutogradCPU, 0, 0, 5, std::nullopt),
      Action::declared(K::ImplFallthrough, 0, static_cast<DispatchKey>(40000), 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::FallbackDirect, 0, DispatchKey::CUDA, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::FallthroughDirect, 0, DispatchKey::Undefined, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::StartupFallbacks, 2, std::nullopt, 0, 0, std::nullopt, std::nullopt),
      Action::declared(K::Drop, 0, std::nullopt, 255, 0, std::nullopt, std::nullopt),
      // Below: two values under the argument; guards on both sides.
      Action::declared(K::CallBoxed, 0, std::nullopt, 0, 0, std::nullopt,
                       BoxedCall{{tensor}, 4, 0, {{Value::Tag::Int, {}, 5}, {}}, DispatchKey::CPU, autograd}),
      // Tensor? as None, fits.
      Action::declared(K::CallBoxed, 1, std::nullopt, 0, 0, std::nullopt,
                       BoxedCall{{{}, {Value::Tag::String, {}, 3}}, 9, 0, {}, std::nullopt, std::nullopt}),
      // No arguments (the text does not parse): a wrong-kind shape has nothing to change.
      Action::declared(K::RedispatchBoxed, 2, std::nullopt, 0, 0xfff0u, std::nullopt,
                       BoxedCall{{}, 0, 0, {}, std::nullopt, 0x7u}),
      Action::declared(K::CallForKey, 0, DispatchKey::CompositeImplicitAutograd, 0, 0, std::nullopt,
                       BoxedCall{{tensor}, 0, 0, {{Value::Tag::TensorList, {0, 0xffffffffffffffffu}, 0}}, std::nullopt,
                                 std::nullopt}),
      Action::declared(K::CallBoxed, 1, std::nullopt, 0, 0, std::nullopt,
                       BoxedCall{{tensor, {Value::Tag::String, {}, -1000}}, 2, 2, {}, std::nullopt, std::nullopt}),
      Action::declared(K::CallBoxed, 1, std::nullopt, 0, 0, std::nullopt,
                       BoxedCall{{{}, {Value::Tag::String, {}, 7}}, 1, 1, {}, std::nullopt, std::nullopt}),
      Action::declared(K::CallBoxed, 0, std::nullopt, 0, 0, std::nullopt,
                       BoxedCall{{tensor}, 3, 0, {{Value::Tag::Double, {}, -8}, {Value::Tag::Bool, {}, 1}}, std::nullopt,
                                 std::nullopt}),
  };
  trace.insert(trace.end(), body.begin(), body.end());
  return trace;
}

TEST(ActionCodec, OperatorNamesCoverTheTraceOperatorsOnly) {
  EXPECT_EQ(dispatch::oracle::opName(0), "fz::op0");
  EXPECT_EQ(dispatch::oracle::opName(dispatch::oracle::kNumOps - 1), "fz::op3");
  EXPECT_THROW(dispatch::oracle::opName(dispatch::oracle::kNumOps), std::out_of_range);
  EXPECT_THROW(dispatch::oracle::opName(-1), std::out_of_range);
}

TEST(ActionCodec, SchemaSpellingsRender) {
  EXPECT_EQ(dispatch::oracle::schemaText(0, *kDeclaredPrologue[0].schema), " bx::op0(  Tensor a0)-> int out\t");
  EXPECT_EQ(dispatch::oracle::schemaText(1, *kDeclaredPrologue[1].schema), "op1.ov(Tensor? a0,str a1)->(Tensor?)");
  EXPECT_EQ(dispatch::oracle::schemaText(2, *kDeclaredPrologue[2].schema), "bx:");
  EXPECT_EQ(dispatch::oracle::intendedArgs(2, *kDeclaredPrologue[2].schema), std::vector<ArgType>{});
  EXPECT_EQ(dispatch::oracle::intendedArgs(1, *kDeclaredPrologue[1].schema),
            (std::vector<ArgType>{ArgType::OptionalTensor, ArgType::String}));
}

TEST(ActionCodec, DeclaredTraceRoundTrips) {
  const std::vector<Action> trace = declaredTrace();
  EXPECT_EQ(roundTrip(trace, dispatch::oracle::kBoxedCallWeights), trace);
  EXPECT_EQ(roundTrip(kDeclaredPrologue, dispatch::oracle::kBoxedCallWeights), kDeclaredPrologue);
}

TEST(ActionCodec, StacksTakeTheirShape) {
  const std::vector<Action> trace = declaredTrace();
  const BoxedCall& below = *trace[3 + 10].call;
  EXPECT_EQ(dispatch::oracle::stackHow(below), "2 below");
  EXPECT_EQ(dispatch::oracle::stackValues(below),
            (std::vector<ValueSpec>{{Value::Tag::Int, {}, 5}, {}, {Value::Tag::Tensor, {0x1234u}, 0}}));
  const BoxedCall& wrong_kind = *trace[3 + 13].call;
  EXPECT_EQ(dispatch::oracle::stackHow(wrong_kind), "arg 0 any kind");
  EXPECT_EQ(dispatch::oracle::stackValues(wrong_kind), wrong_kind.extra);
  EXPECT_EQ(dispatch::oracle::stackHow(*trace[3 + 12].call), "");  // nothing to change
  EXPECT_TRUE(dispatch::oracle::stackValues(*trace[3 + 14].call).empty());  // both dropped
  EXPECT_EQ(dispatch::oracle::stackHow(*trace[3 + 15].call), "arg 1 None");
  EXPECT_EQ(dispatch::oracle::stackValues(*trace[3 + 16].call).size(), 3u);
}

TEST(ActionCodec, DeclaredTracePrintsWithOperatorLabels) {
  std::ostringstream out;
  dispatch::oracle::printTrace(out, declaredTrace());
  const std::string text = out.str();
  EXPECT_NE(text.find("op1: typed schema \"op1.ov(Tensor? a0,str a1)->(Tensor?)\" (signature Tensor?(Tensor?, str))\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("op2: mutated text \"bx:\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  0: def op0=bx::op0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  3: impl typed op1=bx::op1.ov @ catch-all <- Tensor?(Tensor?, str)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(" 13: callBoxedForDispatchKey op0=bx::op0 for CompositeImplicitAutograd stack (arg 0 any kind) ["),
            std::string::npos) << text;
}

TEST(ActionCodec, DeclaredActionsPrintAsTheirConstructors) {
  const std::vector<Action> trace = declaredTrace();
  EXPECT_EQ(dispatch::oracle::toCpp(trace[1]),
            "Action::declaredSchema(1, {dispatch::oracle::SchemaMode::Typed, true, 4, "
            "{dispatch::ArgType::OptionalTensor, dispatch::ArgType::String}, {dispatch::ArgType::OptionalTensor}, "
            "{0, 0, 1, 0}, {}})");
  EXPECT_EQ(dispatch::oracle::toCpp(trace[3 + 4]),
            "Action::declared(ActionKind::ImplTyped, 0, DispatchKey::AutogradCPU, 0, 0, 5, std::nullopt)");
  EXPECT_EQ(dispatch::oracle::toCpp(trace[3 + 12]),
            "Action::declared(ActionKind::RedispatchBoxed, 2, std::nullopt, 0, 0xfff0u, std::nullopt, "
            "dispatch::oracle::BoxedCall{{}, 0, 0, {}, std::nullopt, 0x7u})");
  EXPECT_EQ(dispatch::oracle::toCpp(trace[3 + 13]),
            "Action::declared(ActionKind::CallForKey, 0, DispatchKey::CompositeImplicitAutograd, 0, 0, std::nullopt, "
            "dispatch::oracle::BoxedCall{{{dispatch::Value::Tag::Tensor, {0x1234u}, 0}}, 0, 0, "
            "{{dispatch::Value::Tag::TensorList, {0, 0xffffffffffffffffu}, 0}}, std::nullopt, std::nullopt})");
  // The printed spelling is the one this file builds them with.
  EXPECT_EQ(Action::declared(ActionKind::CallForKey, 0, DispatchKey::CompositeImplicitAutograd, 0, 0, std::nullopt,
                             dispatch::oracle::BoxedCall{{{dispatch::Value::Tag::Tensor, {0x1234u}, 0}}, 0, 0,
                                                         {{dispatch::Value::Tag::TensorList, {0, 0xffffffffffffffffu}, 0}},
                                                         std::nullopt, std::nullopt}),
            trace[3 + 13]);
}

TEST(ActionCodec, RefusesDeclaredActionsThatCannotDecode) {
  const auto& weights = dispatch::oracle::kBoxedCallWeights;
  const std::vector<Action> trace = declaredTrace();
  auto with = [&](size_t index, auto change) {
    std::vector<Action> changed = trace;
    change(changed[index]);
    return changed;
  };
  // No prologue, or a prologue out of order.
  EXPECT_THROW(encodeActions({trace.begin() + 3, trace.end()}, weights), std::invalid_argument);
  EXPECT_THROW(encodeActions({trace[1], trace[0], trace[2]}, weights), std::invalid_argument);
  // Spelling choices out of range, too few, left over; edits on a built schema.
  EXPECT_THROW(encodeActions(with(0, [](Action& a) { a.schema->spelling[2] = 5; }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(0, [](Action& a) { a.schema->spelling.pop_back(); }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(0, [](Action& a) { a.schema->spelling.push_back(0); }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(0, [](Action& a) { a.schema->edits = {1, 0, 0}; }), weights), std::invalid_argument);
  // A typed schema that is not its signature's.
  EXPECT_THROW(encodeActions(with(1, [](Action& a) { a.schema->args.pop_back(); }), weights), std::invalid_argument);
  // Stacks that do not fit their operator, or carry what their shape does not use.
  EXPECT_THROW(encodeActions(with(3 + 10, [](Action& a) { a.call->args.clear(); }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3 + 11, [](Action& a) { a.call->args[1].tag = Value::Tag::Int; }), weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3 + 11, [](Action& a) { a.call->extra.emplace_back(); }), weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3 + 14, [](Action& a) { a.call->pick = 3; }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3 + 0, [](Action& a) { a.call = BoxedCall{}; }), weights), std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3 + 2, [](Action& a) { a.signature = 0; }), weights), std::invalid_argument);
  // Kinds these weights never pick; an operator beyond the three.
  EXPECT_THROW(encodeActions(with(3, [](Action& a) { a.kind = ActionKind::FallbackLibrary; }), weights),
               std::invalid_argument);
  EXPECT_THROW(encodeActions(with(3, [](Action& a) { a.op = 3; }), weights), std::invalid_argument);
}

}  // namespace
