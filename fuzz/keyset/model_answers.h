#pragma once
// keyset_fuzzer's memo of the model's answers (harness/model_memo.h). A model set enters the
// fuzzer's pool only as its raw value, after fromRaw(toRaw(s)) == s has been checked for it
// (Runner::modelRaw), so that value stands for the model's set exactly and every answer about it
// is a function of the value: computed once, then remembered across inputs.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "harness/model_memo.h"
#include "oracle/actions/action.h"
#include "oracle/model/model.h"

namespace dispatch::fuzz::keyset {

namespace m = dispatch::model;
using oracle::ActionKind;
using oracle::KeySetRecipe;


struct SetAnswers {  // the model's answers about one set
  bool empty;
  std::vector<DispatchKey> runtime_keys;
  DispatchKey highest_functionality;
  BackendComponent highest_backend;
  DispatchKey type_id;
  int backend_index;
  DispatchKey backend_type_id;  // highestPriorityBackendTypeId
  bool mixes_backends_and_per_backend_functionalities;  // has_any's argument rule (c10)
};

struct AliasAnswers {
  bool is_alias;
  uint64_t set;  // aliasKeySet
  bool set_round_trips;  // fromRaw(set) == aliasKeySet (checked when the set is pushed)
  std::vector<DispatchKey> runtime_keys;  // runtimeKeysOfAlias (aliases only)
};

struct HelperAnswers {  // the per-key helpers for one (key, backend)
  bool valid, alias, per_backend_functionality, runtime, backend_key;
  DispatchKey functionality, instance, autograd_key;
  BackendComponent backend;
  uint64_t backend_set;
};

// An operation or query on model sets: its kind, operands (raw values), key and backend. The
// answer is the raw value of the resulting set, or 0/1 for a query.
struct Question {
  ActionKind kind;
  uint64_t lhs;
  uint64_t rhs;
  uint16_t key;
  uint8_t backend;
  bool operator==(const Question&) const = default;
};
struct QuestionHash {
  size_t operator()(const Question& q) const {
    uint64_t h = q.lhs * 0x9e3779b97f4a7c15ULL ^ q.rhs;
    h = h * 0x9e3779b97f4a7c15ULL ^ (static_cast<uint64_t>(q.kind) << 24 | uint64_t{q.key} << 8 | q.backend);
    return std::hash<uint64_t>{}(h);
  }
};

struct RecipeHash {
  size_t operator()(const KeySetRecipe& r) const {
    uint64_t h = r.raw ^ (static_cast<uint64_t>(r.source) << 56 | static_cast<uint64_t>(r.style) << 8 | r.inference);
    for (DispatchKey k : r.keys) h = h * 0x9e3779b97f4a7c15ULL ^ toUnderlying(k);
    for (BackendComponent b : r.backends) h = h * 0x9e3779b97f4a7c15ULL ^ (uint64_t{toUnderlying(b)} << 16);
    return std::hash<uint64_t>{}(h);
  }
};

struct ModelAnswers {
  ModelMemo<KeySetRecipe, uint64_t, RecipeHash> recipes;
  ModelMemo<uint64_t, SetAnswers> sets;
  ModelMemo<Question, uint64_t, QuestionHash> questions;
  ModelMemo<uint16_t, AliasAnswers> aliases;
  ModelMemo<uint32_t, HelperAnswers> helpers;
  void trim() {
    recipes.trim();
    sets.trim();
    questions.trim();
    aliases.trim();
    helpers.trim();
  }
};
inline ModelAnswers model_answers;

inline SetAnswers computeSetAnswers(const m::KeySet& ks) {
  bool mixes = false;
  if (!ks.backends().empty()) {
    for (DispatchKey f : ks.functionalities()) mixes = mixes || m::isPerBackendFunctionality(f);
  }
  return {ks.empty(),           ks.runtimeKeys(),        ks.highestFunctionalityKey(),
          ks.highestBackend(),  ks.highestPriorityTypeId(), ks.getBackendIndex(),
          m::highestPriorityBackendTypeId(ks), mixes};
}

inline const SetAnswers& setAnswers(uint64_t raw) {
  return model_answers.sets.get(raw, [raw] { return computeSetAnswers(m::KeySet::fromRaw(raw)); });
}

inline const AliasAnswers& aliasAnswers(DispatchKey alias) {
  return model_answers.aliases.get(toUnderlying(alias), [alias] {
    const bool is_alias = m::isAliasKey(alias);
    const m::KeySet set = m::aliasKeySet(alias);
    return AliasAnswers{is_alias, set.toRaw(), m::KeySet::fromRaw(set.toRaw()) == set,
                        is_alias ? m::runtimeKeysOfAlias(alias) : std::vector<DispatchKey>{}};
  });
}

inline const HelperAnswers& helperAnswers(DispatchKey k, BackendComponent b) {
  const uint32_t id = uint32_t{toUnderlying(k)} << 8 | toUnderlying(b);
  return model_answers.helpers.get(id, [k, b] {
    return HelperAnswers{m::isValidKey(k),         m::isAliasKey(k),           m::isPerBackendFunctionality(k),
                         m::isRuntimeKey(k),       m::isBackendDispatchKey(k), m::functionalityOf(k),
                         m::perBackendInstance(k, b), m::autogradKeyOfBackend(b), m::backendOf(k),
                         m::KeySet::ofBackend(b).toRaw()};
  });
}

// Asked afresh every time: the model's answer is a few flag tests (oracle/model/model_value_set.h),
// cheaper than a lookup in the memo.
inline bool includedInAlias(DispatchKey k, DispatchKey alias) { return m::isIncludedInAlias(k, alias); }

}  // namespace dispatch::fuzz::keyset
