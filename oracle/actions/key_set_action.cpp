// Key-set actions: the MixedBackends recipe, the factory, and their text (readable and C++).

#include <sstream>

#include "dispatch/tensor.h"
#include "oracle/actions/action.h"
#include "oracle/actions/key_set_action_text.h"
#include "oracle/model/model.h"
#include "oracle/actions/names.h"

namespace dispatch::oracle {

DispatchKey mixedBackendsBlock(int style) {
  const auto& blocks = model::perBackendFunctionalities();
  return blocks[static_cast<size_t>(style) % blocks.size()];
}

std::vector<DispatchKey> mixedBackendsKeys(const KeySetRecipe& r) {
  std::vector<DispatchKey> keys;
  for (BackendComponent b : r.backends) keys.push_back(model::perBackendInstance(mixedBackendsBlock(r.style), b));
  keys.insert(keys.end(), r.keys.begin(), r.keys.end());
  return keys;
}

Action Action::keySet(ActionKind kind, uint8_t lhs, uint8_t rhs, std::optional<DispatchKey> key,
                      BackendComponent backend, KeySetRecipe recipe) {
  Action a;
  a.kind = kind;
  a.lhs = lhs;
  a.rhs = rhs;
  a.key = key;
  a.backend = backend;
  a.recipe = std::move(recipe);
  return a;
}

namespace {

std::string key0(const KeySetRecipe& r) { return r.keys.empty() ? "?" : keyName(r.keys[0]); }
std::string backend0(const KeySetRecipe& r) {
  return r.backends.empty() ? "?" : backendName(r.backends[0]);
}

std::string describe(const KeySetRecipe& r) {
  std::ostringstream out;
  switch (r.source) {
    case KeySetSource::Raw: out << "RAW " << hex(r.raw); break;
    case KeySetSource::Key: out << "key " << key0(r); break;
    case KeySetSource::Keys:
      out << (r.style == 0 ? "| of singles " : r.style == 1 ? "add() chain " : "key list ")
          << keyListName(r.keys);
      break;
    case KeySetSource::Backends:
      out << "backends [";
      for (size_t i = 0; i < r.backends.size(); ++i) out << (i ? ", " : "") << backendName(r.backends[i]);
      out << "]";
      break;
    case KeySetSource::MixedBackends: out << "mixed backends " << keyListName(mixedBackendsKeys(r)); break;
    case KeySetSource::Tensor:
      out << "tensorKeySet(" << toString(static_cast<TensorKind>(r.style)) << ", " << backend0(r)
          << (r.inference ? ", inference" : "") << ")";
      break;
    case KeySetSource::Predefined:
      out << (r.style >= 0 && r.style < kNumPredefinedKeySets ? kPredefinedKeySetNames[r.style]
                                                               : std::string_view("?"));
      break;
    case KeySetSource::FullAfter: out << "FULL_AFTER(" << key0(r) << ")"; break;
    case KeySetSource::AliasSet: out << "getRuntimeDispatchKeySet(" << key0(r) << ")"; break;
    case KeySetSource::AutogradRelated: out << "getAutogradRelatedKeySetFromBackend(" << backend0(r) << ")"; break;
    case KeySetSource::AutocastRelated: out << "getAutocastRelatedKeySetFromBackend(" << backend0(r) << ")"; break;
    case KeySetSource::BackendFromAutograd: out << "getBackendKeySetFromAutograd(" << key0(r) << ")"; break;
    case KeySetSource::kCount: break;
  }
  return out.str();
}

std::string sourceCpp(KeySetSource s) {
  static constexpr std::string_view kNames[] = {
      "Raw", "Key", "Keys", "Backends", "MixedBackends", "Tensor", "Predefined", "FullAfter",
      "AliasSet", "AutogradRelated", "AutocastRelated", "BackendFromAutograd"};
  static_assert(std::size(kNames) == static_cast<size_t>(kNumKeySetSources));
  const auto i = static_cast<size_t>(s);
  return "KeySetSource::" + std::string(i < std::size(kNames) ? kNames[i] : "kCount");
}

std::string backendCpp(BackendComponent b) {
  return "static_cast<BackendComponent>(" + std::to_string(toUnderlying(b)) + ")";
}

std::string recipeCpp(const KeySetRecipe& r) {
  std::string keys = "{";
  for (size_t i = 0; i < r.keys.size(); ++i) keys += (i ? ", " : "") + keyCpp(r.keys[i]);
  std::string backends = "{";
  for (size_t i = 0; i < r.backends.size(); ++i) backends += (i ? ", " : "") + backendCpp(r.backends[i]);
  return "{" + sourceCpp(r.source) + ", " + rawCpp(r.raw) + ", " + keys + "}, " + backends + "}, " +
         std::to_string(r.style) + ", " + (r.inference ? "true" : "false") + "}";
}

}  // namespace

std::string describeKeySetAction(const Action& a) {
  std::ostringstream out;
  out << toString(a.kind);
  const std::string key = a.key ? keyName(*a.key) : "?";
  switch (a.kind) {
    case ActionKind::KeySetPush: out << " " << describe(a.recipe); break;
    case ActionKind::KeySetAddKey:
    case ActionKind::KeySetRemoveKey:
    case ActionKind::KeySetHas:
    case ActionKind::KeySetAliasQuery:
      out << " set#" << int{a.lhs} << " key " << key;
      break;
    case ActionKind::KeySetRemoveBackend:
    case ActionKind::KeySetAddBackend:
    case ActionKind::KeySetHasBackend:
      out << " set#" << int{a.lhs} << " backend " << backendName(a.backend);
      break;
    case ActionKind::KeyHelpers: out << " key " << key << " backend " << backendName(a.backend); break;
    case ActionKind::KeySetIterate:
    case ActionKind::KeySetHighest:
    case ActionKind::KeySetRedispatchMask:
      out << " set#" << int{a.lhs};
      break;
    default: out << " set#" << int{a.lhs} << " set#" << int{a.rhs}; break;
  }
  return out.str();
}

std::string keySetActionToCpp(const Action& a) {
  return "Action::keySet(ActionKind::" + std::string(cppName(a.kind)) + ", " + std::to_string(a.lhs) +
         ", " + std::to_string(a.rhs) + ", " + (a.key ? keyCpp(*a.key) : std::string("std::nullopt")) +
         ", " + backendCpp(a.backend) + ", " + recipeCpp(a.recipe) + ")";
}

}  // namespace dispatch::oracle
