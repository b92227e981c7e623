// The byte codec of the action vocabulary: encodeActions is the inverse of decodeActions, for
// hand-written traces and for whatever random bytes decode to, under every target's weights.

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "oracle/action_codec.h"

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
        &dispatch::oracle::kKeySetWeights}) {
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

}  // namespace
