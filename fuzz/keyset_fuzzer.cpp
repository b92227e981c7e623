// Differential fuzzer for DispatchKeySet and the key helpers (docs/semantics.md sections 1 and 2). Its input
// is oracle key-set actions (oracle/actions/action.h, weights oracle::kKeySetWeights): pushes of sets
// from recipes (raw 64-bit patterns, single keys and key lists biased towards per-backend keys,
// aliases, mixed backends and building blocks, backends, tensor key sets, the predefined sets,
// FULL / FULL_AFTER, alias sets) and set operations on a pool of the newest sets (|, &, ^, -,
// |=, &=, add, remove, remove_backend, has*, iteration, the highest-* queries, alias queries,
// the per-key helpers). Every set built is checked against dispatch::model::KeySet: raw value and
// round trip every time; runtimeKeys() order, size and the highest-* queries once per distinct
// value of an input (keyset/checked_values.h); every query against the model's answer. The
// library is pure computation, with no global state; the model's answers are remembered per value
// across inputs (keyset/model_answers.h), the library is asked for every input.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/errors.h"
#include "dispatch/key_sets.h"
#include "dispatch/tensor.h"
#include "harness/fuzz_target.h"
#include "keyset/checked_values.h"
#include "keyset/key_lists.h"
#include "keyset/model_answers.h"
#include "oracle/actions/action_codec.h"
#include "oracle/model/model.h"
#include "oracle/actions/names.h"

namespace {

using namespace dispatch;  // NOLINT(google-build-using-namespace): a fuzz target's own file
namespace m = dispatch::model;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;
using dispatch::oracle::backendName;
using dispatch::oracle::hex;
using dispatch::oracle::keyName;
using dispatch::oracle::KeySetRecipe;
using dispatch::oracle::KeySetSource;
using namespace dispatch::fuzz::keyset;  // NOLINT(google-build-using-namespace): this target's own parts

constexpr const char* kTarget = "keyset_fuzzer";
constexpr size_t kPoolSize = 12;  // live key sets an operation can name

void printProgram(std::ostream& out, const std::vector<Action>& actions) {
  out << "(set#N names pool entry N modulo the pool size; the pool keeps the newest " << kPoolSize
      << " sets)\n";
  dispatch::oracle::printTrace(out, actions);
}

// --- the predefined sets (docs/semantics.md §2.7, 2.8) and their model counterparts -------------------------

struct Predefined {
  std::string_view name;
  DispatchKeySet real;
  m::KeySet (*model)();
};

const Predefined kPredefined[] = {
    {"all_backends_keyset", all_backends_keyset, [] { return m::KeySet::allBackendBits(); }},
    {"autograd_dispatch_keyset", autograd_dispatch_keyset, [] { return m::autogradDispatchKeyset(); }},
    {"autocast_dispatch_keyset", autocast_dispatch_keyset, [] { return m::autocastDispatchKeyset(); }},
    {"default_included_set", default_included_set, [] { return m::defaultIncludedSet(); }},
    {"default_excluded_set", default_excluded_set, [] { return m::defaultExcludedSet(); }},
    {"autograd_dispatch_keyset_with_ADInplaceOrView", autograd_dispatch_keyset_with_ADInplaceOrView,
     [] { return m::autogradDispatchKeyset() | m::KeySet{DispatchKey::ADInplaceOrView}; }},
    {"python_ks", python_ks, [] { return m::pythonKeyset(); }},
    {"sparse_ks", sparse_ks, [] { return m::KeySet{DispatchKey::Sparse}; }},
    {"sparse_csr_ks", sparse_csr_ks,
     [] { return m::KeySet{DispatchKey::SparseCsrCPU, DispatchKey::SparseCsrCUDA}; }},
    {"mkldnn_ks", mkldnn_ks, [] { return m::KeySet{DispatchKey::MkldnnCPU}; }},
    {"autogradother_backends", autogradother_backends, [] { return m::autogradOtherBackends(); }},
    {"after_autograd_keyset", after_autograd_keyset,
     [] { return m::KeySet::fullAfter(DispatchKey::AutogradOther); }},
    {"after_ADInplaceOrView_keyset", after_ADInplaceOrView_keyset,
     [] { return m::KeySet::fullAfter(DispatchKey::ADInplaceOrView); }},
    {"after_func_keyset", after_func_keyset,
     [] { return m::KeySet::fullAfter(DispatchKey::Functionalize).remove(DispatchKey::ADInplaceOrView); }},
    {"backend_functionality_keys", backend_functionality_keys,
     [] {
       return m::KeySet{DispatchKey::Dense, DispatchKey::Quantized, DispatchKey::Sparse} |
              m::KeySet::allBackendBits();
     }},
    {"functorch_transforms_ks", functorch_transforms_ks,
     [] {
       return m::KeySet{DispatchKey::FuncTorchBatched, DispatchKey::FuncTorchVmapMode,
                        DispatchKey::Batched, DispatchKey::VmapMode,
                        DispatchKey::FuncTorchGradWrapper};
     }},
    {"backend_dispatch_keyset", backend_dispatch_keyset, [] { return m::backendDispatchKeyset(); }},
    {"math_dispatch_keyset", math_dispatch_keyset, [] { return m::mathDispatchKeyset(); }},
    {"non_functional_backend_dispatch_keyset", non_functional_backend_dispatch_keyset,
     [] { return m::nonFunctionalBackendDispatchKeyset(); }},
    {"nested_dispatch_keyset", nested_dispatch_keyset, [] { return m::nestedDispatchKeyset(); }},
    {"FULL", DispatchKeySet(DispatchKeySet::FULL), [] { return m::KeySet::full(); }},
    {"empty", DispatchKeySet(), [] { return m::KeySet(); }},
};
static_assert(std::size(kPredefined) == static_cast<size_t>(dispatch::oracle::kNumPredefinedKeySets));

// The recipes name the predefined sets by index into oracle::kPredefinedKeySetNames.
bool predefinedNamesMatch() {
  for (size_t i = 0; i < std::size(kPredefined); ++i) {
    if (kPredefined[i].name != dispatch::oracle::kPredefinedKeySetNames[i]) return false;
  }
  return true;
}

// --- running ---------------------------------------------------------------------------------

struct Entry {
  DispatchKeySet real;
  uint64_t model;  // the model's set, as its raw value (see the section above)
};

// The newest kPoolSize sets, oldest first, in a ring: pushing evicts the oldest (no allocation).
class Pool {
 public:
  size_t size() const { return size_; }
  Entry& operator[](size_t i) { return entries_[(first_ + i) % kPoolSize]; }
  const Entry& operator[](size_t i) const { return entries_[(first_ + i) % kPoolSize]; }
  void push(const Entry& e) {
    if (size_ < kPoolSize) {
      entries_[(first_ + size_++) % kPoolSize] = e;
      return;
    }
    entries_[first_] = e;
    first_ = (first_ + 1) % kPoolSize;
  }

 private:
  std::array<Entry, kPoolSize> entries_{};
  size_t first_ = 0;
  size_t size_ = 0;
};

class Runner {
 public:
  explicit Runner(const std::vector<Action>& actions) : actions_(actions) {}

  void run() {
    for (step_ = 0; step_ < actions_.size(); ++step_) runStep(actions_[step_]);
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& details) const {
    std::ostringstream out;
    out << "step " << step_ << " (" << dispatch::oracle::describe(actions_[step_]) << "): " << details
        << "\nprogram:\n";
    printProgram(out, actions_);
    dispatch::fuzz::reportBug(kTarget, what, out.str());
  }

  static std::string show(DispatchKeySet real) { return toString(real) + " [" + hex(real.raw_repr()) + "]"; }
  static std::string showModel(uint64_t raw) { return m::toDebugString(m::KeySet::fromRaw(raw)); }

  // The description is only built on a mismatch (KS_EXPECT_EQ): this runs for every set.
  [[noreturn]] void mismatch(const std::string& real, const std::string& expected, const std::string& what) const {
    fail(what + " differs", what + ": dispatcher " + real + ", model " + expected);
  }
#define KS_EXPECT_EQ(real, expected, what)                                  \
  do {                                                                      \
    if (!((real) == (expected))) mismatch(render(real), render(expected), what); \
  } while (false)
  static std::string render(DispatchKey k) { return keyName(k); }
  static std::string render(BackendComponent b) { return backendName(b); }
  static std::string render(bool b) { return b ? "true" : "false"; }
  static std::string render(int i) { return std::to_string(i); }
  static std::string render(size_t i) { return std::to_string(i); }
  static std::string render(const std::string& s) { return s; }
  static std::string render(const std::vector<DispatchKey>& keys) { return dispatch::oracle::keyListName(keys); }

  const Entry& operand(uint8_t i) const { return pool_[i % pool_.size()]; }
  Entry& operand(uint8_t i) { return pool_[i % pool_.size()]; }

  // The model's side of a set that enters the pool: its raw value, once the model's own
  // fromRaw(toRaw()) round trip holds for it (so the value stands for the set exactly).
  uint64_t modelRaw(const m::KeySet& model, std::string_view context) const {
    const uint64_t raw = model.toRaw();
    if (!(m::KeySet::fromRaw(raw) == model)) {
      fail("model raw round trip fails", std::string(context) + ": model " + m::toDebugString(model) +
                                             " does not survive fromRaw(toRaw()) (model bug)");
    }
    return raw;
  }

  // The model's answer to an operation (the raw value of the resulting set) or a query (0/1).
  uint64_t ask(ActionKind kind, uint64_t lhs, uint64_t rhs = 0, DispatchKey key = DispatchKey::Undefined,
               BackendComponent backend = BackendComponent::InvalidBit) const {
    const Question q{kind, lhs, rhs, toUnderlying(key), toUnderlying(backend)};
    return model_answers.questions.get(q, [&] { return computeAnswer(q, key, backend); });
  }

  uint64_t computeAnswer(const Question& q, DispatchKey key, BackendComponent backend) const {
    const m::KeySet a = m::KeySet::fromRaw(q.lhs);
    const m::KeySet b = m::KeySet::fromRaw(q.rhs);
    const std::string_view context = dispatch::oracle::toString(q.kind);
    switch (q.kind) {
      case ActionKind::KeySetOr: return modelRaw(a | b, context);
      case ActionKind::KeySetAnd: return modelRaw(a & b, context);
      case ActionKind::KeySetXor: return modelRaw(a ^ b, context);
      case ActionKind::KeySetMinus: return modelRaw(a - b, context);
      case ActionKind::KeySetAddKey: return modelRaw(a.add(key), context);
      case ActionKind::KeySetRemoveKey: return modelRaw(a.remove(key), context);
      case ActionKind::KeySetRemoveBackend: return modelRaw(a.removeBackend(backend), context);
      case ActionKind::KeySetAddBackend: return modelRaw(a.addBackend(backend), context);
      case ActionKind::KeySetRedispatchMask:
        return modelRaw(a & m::KeySet::fullAfter(a.highestPriorityTypeId()), context);
      case ActionKind::KeySetHas: return a.has(key);
      case ActionKind::KeySetHasBackend: return a.hasBackend(backend);
      case ActionKind::KeySetHasAll: return a.hasAll(b);
      case ActionKind::KeySetHasAny: return a.hasAny(b);
      case ActionKind::KeySetEqual: return a == b;
      default: fail("harness bug", "no model answer for " + std::string(context));
    }
  }

  // The library's iteration of ks; it stops one key past the most a set has (see KeyList).
  static KeyList iterated(DispatchKeySet ks) {
    KeyList keys;
    for (DispatchKey k : ks) {
      if (keys.full()) break;
      keys.push(k);
    }
    return keys;
  }

  // Every set that enters the pool: the representation and all derived queries.
  void checkEntry(const Entry& e, const char* label) const {
    const std::string_view context = label;
    const uint64_t raw = e.real.raw_repr();
    if (raw != e.model) {
      fail("raw representation differs",
           std::string(context) + ": dispatcher " + show(e.real) + ", model " + showModel(e.model));
    }
    if (!(DispatchKeySet(DispatchKeySet::RAW, raw) == e.real)) fail("RAW round trip fails", show(e.real));
    if (!checked_.firstTime(raw)) return;  // the derived checks below depend on raw only
    const SetAnswers& expected = setAnswers(raw);
    KS_EXPECT_EQ(e.real.empty(), expected.empty, std::string(context) + ": empty()");

    // Iteration yields exactly runtimeKeys(), in order, each a key the set has.
    const KeyList keys = iterated(e.real);
    for (size_t i = 0; i < keys.size(); ++i) {
      const DispatchKey k = keys.data()[i];
      if (!e.real.has(k)) fail("iteration yields a key the set does not have", keyName(k) + " in " + show(e.real));
    }
    if (!sameKeys(keys, expected.runtime_keys)) {
      mismatch(render(keys.toVector()), render(expected.runtime_keys),
               std::string(context) + ": iteration (runtimeKeys order)");
    }
    KS_EXPECT_EQ(static_cast<size_t>(e.real.size()), expected.runtime_keys.size(), std::string(context) + ": size()");

    KS_EXPECT_EQ(e.real.highestFunctionalityKey(), expected.highest_functionality,
             std::string(context) + ": highestFunctionalityKey()");
    KS_EXPECT_EQ(e.real.highestBackendKey(), expected.highest_backend, std::string(context) + ": highestBackendKey()");
    KS_EXPECT_EQ(e.real.highestPriorityTypeId(), expected.type_id, std::string(context) + ": highestPriorityTypeId()");
    KS_EXPECT_EQ(static_cast<int>(e.real.getBackendIndex()), expected.backend_index,
             std::string(context) + ": getBackendIndex()");
    KS_EXPECT_EQ(highestPriorityBackendTypeId(e.real), expected.backend_type_id,
             std::string(context) + ": highestPriorityBackendTypeId()");
  }

  void push(Entry e, const char* label) {
    checkEntry(e, label);
    pool_.push(e);
  }

  static DispatchKeySet realFromBackends(const KeySetRecipe& s) {
    if (s.style == 1 && s.backends.size() >= 2) {
      DispatchKeySet ks{s.backends[0], s.backends[1]};
      for (size_t i = 2; i < s.backends.size(); ++i) ks = ks | DispatchKeySet(s.backends[i]);
      return ks;
    }
    DispatchKeySet ks;
    for (BackendComponent b : s.backends) ks |= DispatchKeySet(b);
    return ks;
  }

  static DispatchKeySet realFromKeys(const std::vector<DispatchKey>& keys, int style) {
    DispatchKeySet ks;
    switch (style) {
      case 0:
        for (DispatchKey k : keys) ks = ks | DispatchKeySet(k);
        return ks;
      case 1:
        for (DispatchKey k : keys) ks = ks.add(k);
        return ks;
      default:
        // The initializer-list constructor, in chunks of up to three keys.
        for (size_t i = 0; i < keys.size(); i += 3) {
          const size_t n = std::min<size_t>(3, keys.size() - i);
          if (n == 1) ks |= DispatchKeySet{keys[i]};
          if (n == 2) ks |= DispatchKeySet{keys[i], keys[i + 1]};
          if (n == 3) ks |= DispatchKeySet{keys[i], keys[i + 1], keys[i + 2]};
        }
        return ks;
    }
  }

  static DispatchKeySet realFromRecipe(const KeySetRecipe& s) {
    switch (s.source) {
      case KeySetSource::Raw: return DispatchKeySet(DispatchKeySet::RAW, s.raw);
      case KeySetSource::Key: return DispatchKeySet(s.keys[0]);
      case KeySetSource::Keys: return realFromKeys(s.keys, s.style);
      case KeySetSource::MixedBackends: return realFromKeys(dispatch::oracle::mixedBackendsKeys(s), 2);
      case KeySetSource::Backends: return realFromBackends(s);
      case KeySetSource::Tensor:
        return tensorKeySet(static_cast<TensorKind>(s.style), s.backends[0], false, s.inference);
      case KeySetSource::Predefined: return kPredefined[s.style].real;
      case KeySetSource::FullAfter: return DispatchKeySet(DispatchKeySet::FULL_AFTER, s.keys[0]);
      case KeySetSource::AliasSet: return getRuntimeDispatchKeySet(s.keys[0]);
      case KeySetSource::AutogradRelated: return getAutogradRelatedKeySetFromBackend(s.backends[0]);
      case KeySetSource::AutocastRelated: return getAutocastRelatedKeySetFromBackend(s.backends[0]);
      case KeySetSource::BackendFromAutograd: return getBackendKeySetFromAutograd(s.keys[0]);
      case KeySetSource::kCount: break;
    }
    return {};
  }

  static m::KeySet modelFromRecipe(const KeySetRecipe& s) {
    switch (s.source) {
      case KeySetSource::Raw: return m::KeySet::fromRaw(s.raw);
      case KeySetSource::Key: return m::KeySet::of(s.keys[0]);
      case KeySetSource::Keys: return m::KeySet(s.keys);
      case KeySetSource::MixedBackends: return m::KeySet(dispatch::oracle::mixedBackendsKeys(s));
      case KeySetSource::Backends: {
        m::KeySet model;
        for (BackendComponent b : s.backends) model = model.addBackend(b);
        return model;
      }
      case KeySetSource::Tensor: {
        const auto kind = static_cast<TensorKind>(s.style);
        const BackendComponent b = s.backends[0];
        const m::KeySet input = m::KeySet::of(m::perBackendInstance(functionalityOf(kind), b));
        if (kind == TensorKind::Nested && !s.inference) {
          // NestedTensorImpl's autograd keys instead of the backend's (see tensor.h).
          return ((input | m::autocastRelatedKeySet(b)) - m::pythonKeyset()) |
                 m::KeySet{DispatchKey::ADInplaceOrView, DispatchKey::AutogradNestedTensor};
        }
        return m::tensorKeySet(input, s.inference);
      }
      case KeySetSource::Predefined: return kPredefined[s.style].model();
      case KeySetSource::FullAfter: return m::KeySet::fullAfter(s.keys[0]);
      case KeySetSource::AliasSet: return m::aliasKeySet(s.keys[0]);
      case KeySetSource::AutogradRelated: return m::autogradRelatedKeySet(s.backends[0]);
      case KeySetSource::AutocastRelated: return m::autocastRelatedKeySet(s.backends[0]);
      case KeySetSource::BackendFromAutograd: return m::getBackendKeySetFromAutograd(s.keys[0]);
      case KeySetSource::kCount: break;
    }
    return {};
  }

  // The model's set of a recipe, as its raw value (memoised like the answers above).
  uint64_t modelOfRecipe(const KeySetRecipe& s) const {
    return model_answers.recipes.get(s, [&] { return modelRaw(modelFromRecipe(s), "pushed set"); });
  }

  void iterate(const Entry& e) const {
    // Pre- and post-increment walk the same keys, in strictly ascending priority, each a runtime
    // key; a default iterator equals end(); begin() == end() iff no runtime key.
    KeyList pre;
    KeyList post;
    for (auto it = e.real.begin(); it != e.real.end() && !pre.full(); ++it) pre.push(*it);
    for (auto it = e.real.begin(); it != e.real.end() && !post.full();) post.push(*it++);
    if (!sameKeys(post, pre)) mismatch(render(post.toVector()), render(pre.toVector()), "post-increment iteration");
    if (!(DispatchKeySet::iterator() == e.real.end())) fail("iterator protocol", "iterator() != end()");
    KS_EXPECT_EQ(e.real.begin() == e.real.end(), pre.empty(), "begin() == end()");
    KS_EXPECT_EQ(static_cast<size_t>(std::distance(e.real.begin(), e.real.end())), pre.size(), "std::distance");
    // toString prints every iterated key, in order, between "DispatchKeySet(" and ")".
    std::string listed = "DispatchKeySet(";
    for (auto it = e.real.begin(); it != e.real.end(); ++it) {
      listed.append(it == e.real.begin() ? "" : ", ").append(toString(*it));
    }
    listed += ')';
    const std::string printed = toString(e.real);
    if (printed != listed) fail("toString differs", "toString prints " + printed + "; the iterated keys are " + listed);
    for (size_t i = 0; i < pre.size(); ++i) {
      const DispatchKey k = pre.data()[i];
      KS_EXPECT_EQ(isRuntimeDispatchKey(k), true, "isRuntimeDispatchKey(" + keyName(k) + ") of an iterated key");
    }
    if (const size_t i = firstOutOfOrder(pre); i != pre.size()) {
      fail("iteration order", keyName(pre.data()[i]) + " out of ascending priority in " + show(e.real));
    }
  }

  void aliasQuery(const Entry& e, DispatchKey alias) {
    // Candidates: the keys of the set, the key itself, and a few fixed keys of every class.
    const auto check = [&](DispatchKey k) {
      const bool expected = includedInAlias(k, alias);
      KS_EXPECT_EQ(isIncludedInAlias(k, alias), expected, "isIncludedInAlias(" + keyName(k) + ", " + keyName(alias) + ")");
      if (k != DispatchKey::Undefined) {
        KS_EXPECT_EQ(runtimeDispatchKeySetHas(alias, k), expected,
                 "runtimeDispatchKeySetHas(" + keyName(alias) + ", " + keyName(k) + ")");
      }
    };
    for (DispatchKey k : setAnswers(e.model).runtime_keys) check(k);
    check(alias);
    for (DispatchKey k : {DispatchKey::Undefined, DispatchKey::Dense, DispatchKey::NestedTensor,
                          DispatchKey::NestedTensorCPU, DispatchKey::AutogradOther,
                          DispatchKey::AutogradNestedTensor, DispatchKey::EndOfFunctionalityKeys,
                          DispatchKey::SparseXLA, DispatchKey::Lazy, DispatchKey::AutogradHIP}) {
      check(k);
    }
    const AliasAnswers& model = aliasAnswers(alias);
    if (!model.set_round_trips) {
      fail("model raw round trip fails", "aliasKeySet(" + keyName(alias) + ") = " + showModel(model.set) +
                                             " does not survive fromRaw(toRaw()) (model bug)");
    }
    const Entry expanded{getRuntimeDispatchKeySet(alias), model.set};
    if (model.is_alias) {
      const KeyList keys = iterated(expanded.real);
      if (!sameKeys(keys, model.runtime_keys)) {
        mismatch(render(keys.toVector()), render(model.runtime_keys), "runtime keys of alias " + keyName(alias));
      }
    }
    push(expanded, "getRuntimeDispatchKeySet");
  }

  void keyHelpers(DispatchKey k, BackendComponent b) const {
    const HelperAnswers& model = helperAnswers(k, b);
    KS_EXPECT_EQ(isValidDispatchKey(k), model.valid, "isValidDispatchKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(isAliasDispatchKey(k), model.alias, "isAliasDispatchKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(isPerBackendFunctionalityKey(k), model.per_backend_functionality,
             "isPerBackendFunctionalityKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(isRuntimeDispatchKey(k), model.runtime, "isRuntimeDispatchKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(toFunctionalityKey(k), model.functionality, "toFunctionalityKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(toBackendComponent(k), model.backend, "toBackendComponent(" + keyName(k) + ")");
    KS_EXPECT_EQ(toRuntimePerBackendFunctionalityKey(k, b), model.instance,
             "toRuntimePerBackendFunctionalityKey(" + keyName(k) + ", " + backendName(b) + ")");
    KS_EXPECT_EQ(isBackendDispatchKey(k), model.backend_key, "isBackendDispatchKey(" + keyName(k) + ")");
    KS_EXPECT_EQ(getAutogradKeyFromBackend(b), model.autograd_key, "getAutogradKeyFromBackend(" + backendName(b) + ")");
    if (DispatchKeySet(b).raw_repr() != model.backend_set) {
      mismatch(hex(DispatchKeySet(b).raw_repr()), hex(model.backend_set), "DispatchKeySet(" + backendName(b) + ")");
    }
    if (isValidDispatchKey(k)) {
      const std::string_view text = toString(k);
      const std::optional<DispatchKey> parsed = tryParseDispatchKey(text);
      if (!parsed || *parsed != k) {
        fail("name round trip fails", keyName(k) + " parses back as " + (parsed ? keyName(*parsed) : "nothing"));
      }
    } else {
      KS_EXPECT_EQ(tryParseDispatchKey(toString(k)).has_value(), false,
               "tryParseDispatchKey(toString(" + keyName(k) + "))");
      try {
        checkValidDispatchKey(k, "keyset_fuzzer");
        fail("checkValidDispatchKey accepts an invalid key", keyName(k));
      } catch (const InvalidKeyError&) {
      }
    }
  }

  void runStep(const Action& s) {
    if (!dispatch::oracle::isKeySetAction(s.kind)) fail("not a key-set action", dispatch::oracle::describe(s));
    if (s.kind == ActionKind::KeySetPush) {
      push({realFromRecipe(s.recipe), modelOfRecipe(s.recipe)}, "pushed set");
      return;
    }
    // Decoded key-set actions that name a key always carry one; Undefined stands in otherwise.
    const DispatchKey key = s.key.value_or(DispatchKey::Undefined);
    if (s.kind == ActionKind::KeyHelpers) {
      keyHelpers(key, s.backend);
      return;
    }
    const Entry a = operand(s.lhs);
    const Entry b = operand(s.rhs);
    const char* ctx = dispatch::oracle::toString(s.kind).data();  // string literals: NUL-terminated
    using K = ActionKind;
    switch (s.kind) {
      case K::KeySetOr: push({a.real | b.real, ask(K::KeySetOr, a.model, b.model)}, ctx); break;
      case K::KeySetAnd: push({a.real & b.real, ask(K::KeySetAnd, a.model, b.model)}, ctx); break;
      case K::KeySetXor: push({a.real ^ b.real, ask(K::KeySetXor, a.model, b.model)}, ctx); break;
      case K::KeySetMinus: push({a.real - b.real, ask(K::KeySetMinus, a.model, b.model)}, ctx); break;
      case K::KeySetOrAssign: {
        Entry& target = operand(s.lhs);
        target.real |= b.real;
        target.model = ask(K::KeySetOr, target.model, b.model);
        checkEntry(target, ctx);
        break;
      }
      case K::KeySetAndAssign: {
        Entry& target = operand(s.lhs);
        target.real &= b.real;
        target.model = ask(K::KeySetAnd, target.model, b.model);
        checkEntry(target, ctx);
        break;
      }
      case K::KeySetAddKey: push({a.real.add(key), ask(K::KeySetAddKey, a.model, 0, key)}, ctx); break;
      case K::KeySetAddSet: push({a.real.add(b.real), ask(K::KeySetOr, a.model, b.model)}, ctx); break;
      case K::KeySetRemoveKey: push({a.real.remove(key), ask(K::KeySetRemoveKey, a.model, 0, key)}, ctx); break;
      case K::KeySetRemoveBackend:
        push({a.real.remove_backend(s.backend), ask(K::KeySetRemoveBackend, a.model, 0, key, s.backend)}, ctx);
        break;
      case K::KeySetAddBackend:
        push({a.real | DispatchKeySet(s.backend), ask(K::KeySetAddBackend, a.model, 0, key, s.backend)}, ctx);
        break;
      case K::KeySetRedispatchMask: {
        const DispatchKey top = a.real.highestPriorityTypeId();
        push({a.real & DispatchKeySet(DispatchKeySet::FULL_AFTER, top), ask(K::KeySetRedispatchMask, a.model)}, ctx);
        break;
      }
      case K::KeySetHas:
        KS_EXPECT_EQ(a.real.has(key), ask(K::KeySetHas, a.model, 0, key) != 0,
                 "has(" + keyName(key) + ") on " + show(a.real));
        break;
      case K::KeySetHasBackend:
        KS_EXPECT_EQ(a.real.has_backend(s.backend), ask(K::KeySetHasBackend, a.model, 0, key, s.backend) != 0,
                 "has_backend(" + backendName(s.backend) + ") on " + show(a.real));
        break;
      case K::KeySetHasAll: {
        const bool expected = ask(K::KeySetHasAll, a.model, b.model) != 0;
        KS_EXPECT_EQ(a.real.has_all(b.real), expected, "has_all on " + show(a.real) + ", " + show(b.real));
        KS_EXPECT_EQ(a.real.isSupersetOf(b.real), expected, "isSupersetOf");
        break;
      }
      case K::KeySetHasAny: {
        const bool real = a.real.has_any(b.real);
        if (setAnswers(b.model).mixes_backends_and_per_backend_functionalities) {
          // Meaningless in c10 (docs/semantics.md §2.2): only the raw answer is defined.
          KS_EXPECT_EQ(real, (a.real.raw_repr() & b.real.raw_repr()) != 0,
                   "has_any (mixed argument, raw answer) on " + show(a.real) + ", " + show(b.real));
        } else {
          KS_EXPECT_EQ(real, ask(K::KeySetHasAny, a.model, b.model) != 0,
                   "has_any on " + show(a.real) + ", " + show(b.real));
        }
        break;
      }
      case K::KeySetEqual:
        KS_EXPECT_EQ(a.real == b.real, ask(K::KeySetEqual, a.model, b.model) != 0,
                 "== on " + show(a.real) + ", " + show(b.real));
        break;
      case K::KeySetIterate:
        iterate(a);
        break;
      case K::KeySetHighest:
        checkEntry(a, "highest*");
        break;
      case K::KeySetAliasQuery:
        aliasQuery(a, key);
        break;
      default:
        break;
    }
  }

  const std::vector<Action>& actions_;
  Pool pool_;
  mutable CheckedValues checked_;  // this input's values checked in full (checkEntry)
  size_t step_ = 0;
};
#undef KS_EXPECT_EQ

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool names_match = predefinedNamesMatch();
  if (!names_match) {
    dispatch::fuzz::reportBug(kTarget, "harness bug", "kPredefined is not in oracle::kPredefinedKeySetNames order");
  }
  model_answers.trim();
  const std::vector<Action> actions = dispatch::oracle::decodeActions(data, size, dispatch::oracle::kKeySetWeights);
  Runner(actions).run();
  return 0;
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printProgram(out, dispatch::oracle::decodeActions(data, size, dispatch::oracle::kKeySetWeights));
}
