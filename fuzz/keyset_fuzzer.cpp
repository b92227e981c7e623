// Differential fuzzer for DispatchKeySet and the key helpers (spec sections 1 and 2): bytes
// decode into key sets (raw 64-bit patterns, single keys and key lists biased towards
// per-backend keys, aliases, mixed backends and building blocks, backends, tensor key sets,
// the predefined sets, FULL / FULL_AFTER, alias sets) and a short program of set operations
// (|, &, ^, -, |=, &=, add, remove, remove_backend, has*, iteration, the highest-* queries,
// alias queries). Every set a program builds is checked against dispatch::model::KeySet: raw
// round trip, runtimeKeys() order, size, the highest-* queries; every query against the model's
// answer. Pure computation: no global state at all.

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iomanip>
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
#include "oracle/model.h"
#include "oracle/names.h"

namespace {

using namespace dispatch;  // NOLINT(google-build-using-namespace): a fuzz target's own file
namespace m = dispatch::model;
using dispatch::oracle::backendName;
using dispatch::oracle::hex;
using dispatch::oracle::keyName;

constexpr const char* kTarget = "keyset_fuzzer";
constexpr size_t kMaxSteps = 40;  // bounded work per input (harness-notes B1)
constexpr size_t kPoolSize = 12;  // live key sets an operation can name

// --- names for printing ----------------------------------------------------------------------

std::string keyList(const std::vector<DispatchKey>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keyName(keys[i]);
  return out + "]";
}

// --- decoding keys ---------------------------------------------------------------------------

// Biased towards the interesting classes: per-backend instances of every block and backend,
// aliases, building blocks, placeholders and the sentinel, then any declared value, then garbage.
DispatchKey consumeKey(FuzzedDataProvider& in) {
  const auto& blocks = m::perBackendFunctionalities();
  switch (in.ConsumeIntegralInRange<int>(0, 11)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return m::perBackendInstance(
          blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)],
          static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends)));
    case 4: {
      const auto& aliases = m::aliasKeys();
      return aliases[in.ConsumeIntegralInRange<size_t>(0, aliases.size() - 1)];
    }
    case 5:
      return blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)];
    case 6: {
      const auto& fs = m::allFunctionalities();
      return fs[in.ConsumeIntegralInRange<size_t>(0, fs.size() - 1)];
    }
    case 7:
      switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: return DispatchKey::Undefined;
        case 1: return DispatchKey::EndOfFunctionalityKeys;
        default:  // a placeholder ("Unknown", "AutogradUnknown", ...)
          return m::perBackendInstance(blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)],
                                       BackendComponent::InvalidBit);
      }
    case 8:
    case 9:
    case 10:
      return static_cast<DispatchKey>(
          in.ConsumeIntegralInRange<uint16_t>(0, toUnderlying(DispatchKey::EndOfAliasKeys)));
    default:
      return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
  }
}

// Mostly real backends, sometimes InvalidBit or a value outside the enum.
BackendComponent consumeBackend(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return BackendComponent::InvalidBit;
    case 1: return static_cast<BackendComponent>(in.ConsumeIntegral<uint8_t>());
    default: return static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
  }
}

// Raw 64-bit patterns: anything, or structured (backend bits | functionality bits), sometimes
// with bits past the last functionality (raw bits 54..63, decision D4).
uint64_t consumeRaw(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeIntegral<uint64_t>();
    case 1: {
      const uint64_t backends = in.ConsumeIntegral<uint16_t>() & DispatchKeySet::full_backend_mask;
      const uint64_t functionalities = in.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 40) - 1);
      return backends | (functionalities << num_backends);
    }
    case 2: {  // few bits: one or two backends, a handful of functionalities
      uint64_t raw = 0;
      const int n = in.ConsumeIntegralInRange<int>(1, 5);
      for (int i = 0; i < n; ++i) raw |= uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
      return raw;
    }
    default: {
      const uint64_t low = in.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 54) - 1);
      return low | (uint64_t{in.ConsumeIntegral<uint8_t>()} << 54);
    }
  }
}

// --- the predefined sets (spec 2.7, 2.8) and their model counterparts -------------------------

struct Predefined {
  const char* name;
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
constexpr size_t kNumPredefined = std::size(kPredefined);

// --- the program -----------------------------------------------------------------------------

enum class SourceKind : uint8_t {
  Raw,                  // DispatchKeySet(RAW, bits)
  Key,                  // DispatchKeySet(k)
  Keys,                 // a key list: initializer list, | of singles, or add()
  Backends,             // backend bits only
  MixedBackends,        // per-backend keys of one functionality on several backends, + extras
  Tensor,               // tensorKeySet(kind, backend, ..., inference)
  Predefined,           // one of kPredefined
  FullAfter,            // FULL_AFTER(k)
  AliasSet,             // getRuntimeDispatchKeySet(k)
  AutogradRelated,      // getAutogradRelatedKeySetFromBackend(b)
  AutocastRelated,      // getAutocastRelatedKeySetFromBackend(b)
  BackendFromAutograd,  // getBackendKeySetFromAutograd(k)
  kCount,
};

struct Source {
  SourceKind kind = SourceKind::Raw;
  uint64_t raw = 0;
  std::vector<DispatchKey> keys;
  std::vector<BackendComponent> backends;
  int style = 0;  // Keys: how the list is folded; Tensor: TensorKind; Predefined: index
  bool inference = false;
};

enum class OpKind : uint8_t {
  Push,            // a new set from a Source
  Or,              // a | b
  And,             // a & b
  Xor,             // a ^ b
  Minus,           // a - b
  OrAssign,        // a |= b (in place)
  AndAssign,       // a &= b (in place)
  AddKey,          // a.add(k)
  AddSet,          // a.add(b)
  RemoveKey,       // a.remove(k)
  RemoveBackend,   // a.remove_backend(b)
  AddBackend,      // a | DispatchKeySet(b)
  RedispatchMask,  // a & FULL_AFTER(a.highestPriorityTypeId()), the redispatch idiom
  Has,             // a.has(k)
  HasBackend,      // a.has_backend(b)
  HasAll,          // a.has_all(b), a.isSupersetOf(b)
  HasAny,          // a.has_any(b)
  Equal,           // a == b
  Iterate,         // the iterator protocol over a
  Highest,         // highest* / getBackendIndex / highestPriorityBackendTypeId of a
  AliasQuery,      // isIncludedInAlias / runtimeDispatchKeySetHas(k-ish, alias) over a's keys
  KeyHelpers,      // the per-key helpers of dispatch_key.h and key_sets.h for k and b
  kCount,
};

struct Step {
  OpKind kind = OpKind::Push;
  Source source;  // Push
  uint8_t a = 0;  // pool operands (modulo the pool size)
  uint8_t b = 0;
  DispatchKey key = DispatchKey::Undefined;
  BackendComponent backend = BackendComponent::InvalidBit;
};

Source consumeSource(FuzzedDataProvider& in) {
  Source s;
  s.kind = static_cast<SourceKind>(
      in.ConsumeIntegralInRange<int>(0, static_cast<int>(SourceKind::kCount) - 1));
  switch (s.kind) {
    case SourceKind::Raw:
      s.raw = consumeRaw(in);
      break;
    case SourceKind::Key:
    case SourceKind::FullAfter:
    case SourceKind::AliasSet:
    case SourceKind::BackendFromAutograd:
      s.keys.push_back(consumeKey(in));
      break;
    case SourceKind::Keys: {
      const int n = in.ConsumeIntegralInRange<int>(0, 6);
      for (int i = 0; i < n; ++i) s.keys.push_back(consumeKey(in));
      s.style = in.ConsumeIntegralInRange<int>(0, 2);
      break;
    }
    case SourceKind::Backends: {
      const int n = in.ConsumeIntegralInRange<int>(1, 4);
      for (int i = 0; i < n; ++i) s.backends.push_back(consumeBackend(in));
      s.style = in.ConsumeIntegralInRange<int>(0, 1);
      break;
    }
    case SourceKind::MixedBackends: {
      const auto& blocks = m::perBackendFunctionalities();
      const DispatchKey f = blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)];
      const int n = in.ConsumeIntegralInRange<int>(2, 5);
      for (int i = 0; i < n; ++i) {
        s.keys.push_back(m::perBackendInstance(
            f, static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends))));
      }
      const int extra = in.ConsumeIntegralInRange<int>(0, 2);
      for (int i = 0; i < extra; ++i) s.keys.push_back(consumeKey(in));
      break;
    }
    case SourceKind::Tensor:
      s.style = in.ConsumeIntegralInRange<int>(0, 3);
      s.backends.push_back(static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends)));
      s.inference = in.ConsumeIntegralInRange<int>(0, 3) == 0;
      break;
    case SourceKind::Predefined:
      s.style = in.ConsumeIntegralInRange<int>(0, static_cast<int>(kNumPredefined) - 1);
      break;
    case SourceKind::AutogradRelated:
    case SourceKind::AutocastRelated:
      s.backends.push_back(consumeBackend(in));
      break;
    case SourceKind::kCount:
      break;
  }
  return s;
}

// Weighted towards the algebra and the checks that compare most.
OpKind consumeOpKind(FuzzedDataProvider& in) {
  static constexpr OpKind kTable[] = {
      OpKind::Push,      OpKind::Push,          OpKind::Push,       OpKind::Push,
      OpKind::Or,        OpKind::And,           OpKind::Xor,        OpKind::Minus,
      OpKind::Minus,     OpKind::OrAssign,      OpKind::AndAssign,  OpKind::AddKey,
      OpKind::AddKey,    OpKind::AddSet,        OpKind::RemoveKey,  OpKind::RemoveKey,
      OpKind::RemoveBackend, OpKind::AddBackend, OpKind::RedispatchMask, OpKind::Has,
      OpKind::Has,       OpKind::HasBackend,    OpKind::HasAll,     OpKind::HasAny,
      OpKind::HasAny,    OpKind::Equal,         OpKind::Iterate,    OpKind::Highest,
      OpKind::AliasQuery, OpKind::AliasQuery,   OpKind::KeyHelpers, OpKind::KeyHelpers,
  };
  static_assert(std::size(kTable) <= 256);
  return kTable[in.ConsumeIntegralInRange<size_t>(0, std::size(kTable) - 1)];
}

std::vector<Step> decode(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<Step> steps;
  // Two sets to start with, so that every binary operation has operands.
  for (int i = 0; i < 2; ++i) {
    Step s;
    s.kind = OpKind::Push;
    s.source = consumeSource(in);
    steps.push_back(s);
  }
  while (in.remaining_bytes() > 0 && steps.size() < kMaxSteps) {
    Step s;
    s.kind = consumeOpKind(in);
    switch (s.kind) {
      case OpKind::Push:
        s.source = consumeSource(in);
        break;
      case OpKind::AddKey:
      case OpKind::RemoveKey:
      case OpKind::Has:
      case OpKind::AliasQuery:
        s.a = in.ConsumeIntegral<uint8_t>();
        s.key = consumeKey(in);
        break;
      case OpKind::RemoveBackend:
      case OpKind::AddBackend:
      case OpKind::HasBackend:
        s.a = in.ConsumeIntegral<uint8_t>();
        s.backend = consumeBackend(in);
        break;
      case OpKind::KeyHelpers:
        s.key = consumeKey(in);
        s.backend = consumeBackend(in);
        break;
      default:
        s.a = in.ConsumeIntegral<uint8_t>();
        s.b = in.ConsumeIntegral<uint8_t>();
        break;
    }
    steps.push_back(s);
  }
  return steps;
}

std::string describe(const Source& s) {
  std::ostringstream out;
  switch (s.kind) {
    case SourceKind::Raw: out << "RAW " << hex(s.raw); break;
    case SourceKind::Key: out << "key " << keyName(s.keys[0]); break;
    case SourceKind::Keys:
      out << (s.style == 0 ? "| of singles " : s.style == 1 ? "add() chain " : "key list ")
          << keyList(s.keys);
      break;
    case SourceKind::Backends:
      out << "backends [";
      for (size_t i = 0; i < s.backends.size(); ++i) out << (i ? ", " : "") << backendName(s.backends[i]);
      out << "]";
      break;
    case SourceKind::MixedBackends: out << "mixed backends " << keyList(s.keys); break;
    case SourceKind::Tensor:
      out << "tensorKeySet(" << toString(static_cast<TensorKind>(s.style)) << ", "
          << backendName(s.backends[0]) << (s.inference ? ", inference" : "") << ")";
      break;
    case SourceKind::Predefined: out << kPredefined[s.style].name; break;
    case SourceKind::FullAfter: out << "FULL_AFTER(" << keyName(s.keys[0]) << ")"; break;
    case SourceKind::AliasSet: out << "getRuntimeDispatchKeySet(" << keyName(s.keys[0]) << ")"; break;
    case SourceKind::AutogradRelated:
      out << "getAutogradRelatedKeySetFromBackend(" << backendName(s.backends[0]) << ")";
      break;
    case SourceKind::AutocastRelated:
      out << "getAutocastRelatedKeySetFromBackend(" << backendName(s.backends[0]) << ")";
      break;
    case SourceKind::BackendFromAutograd:
      out << "getBackendKeySetFromAutograd(" << keyName(s.keys[0]) << ")";
      break;
    case SourceKind::kCount: break;
  }
  return out.str();
}

std::string_view opName(OpKind k) {
  switch (k) {
    case OpKind::Push: return "push";
    case OpKind::Or: return "|";
    case OpKind::And: return "&";
    case OpKind::Xor: return "^";
    case OpKind::Minus: return "-";
    case OpKind::OrAssign: return "|=";
    case OpKind::AndAssign: return "&=";
    case OpKind::AddKey: return "add(key)";
    case OpKind::AddSet: return "add(set)";
    case OpKind::RemoveKey: return "remove";
    case OpKind::RemoveBackend: return "remove_backend";
    case OpKind::AddBackend: return "| backend";
    case OpKind::RedispatchMask: return "& FULL_AFTER(highestPriorityTypeId)";
    case OpKind::Has: return "has";
    case OpKind::HasBackend: return "has_backend";
    case OpKind::HasAll: return "has_all";
    case OpKind::HasAny: return "has_any";
    case OpKind::Equal: return "==";
    case OpKind::Iterate: return "iterate";
    case OpKind::Highest: return "highest*";
    case OpKind::AliasQuery: return "alias query";
    case OpKind::KeyHelpers: return "key helpers";
    case OpKind::kCount: break;
  }
  return "?";
}

std::string describe(const Step& s) {
  std::ostringstream out;
  out << opName(s.kind);
  switch (s.kind) {
    case OpKind::Push: out << " " << describe(s.source); break;
    case OpKind::AddKey:
    case OpKind::RemoveKey:
    case OpKind::Has:
    case OpKind::AliasQuery:
      out << " set#" << int{s.a} << " key " << keyName(s.key);
      break;
    case OpKind::RemoveBackend:
    case OpKind::AddBackend:
    case OpKind::HasBackend:
      out << " set#" << int{s.a} << " backend " << backendName(s.backend);
      break;
    case OpKind::KeyHelpers: out << " key " << keyName(s.key) << " backend " << backendName(s.backend); break;
    case OpKind::Iterate:
    case OpKind::Highest:
    case OpKind::RedispatchMask:
      out << " set#" << int{s.a};
      break;
    default: out << " set#" << int{s.a} << " set#" << int{s.b}; break;
  }
  return out.str();
}

void printProgram(std::ostream& out, const std::vector<Step>& steps) {
  out << "(set#N names pool entry N modulo the pool size; the pool keeps the newest " << kPoolSize
      << " sets)\n";
  for (size_t i = 0; i < steps.size(); ++i) out << std::setw(3) << i << ": " << describe(steps[i]) << "\n";
}

// --- running ---------------------------------------------------------------------------------

struct Entry {
  DispatchKeySet real;
  m::KeySet model;
};

class Runner {
 public:
  explicit Runner(const std::vector<Step>& steps) : steps_(steps) {}

  void run() {
    for (step_ = 0; step_ < steps_.size(); ++step_) runStep(steps_[step_]);
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& details) const {
    std::ostringstream out;
    out << "step " << step_ << " (" << describe(steps_[step_]) << "): " << details << "\nprogram:\n";
    printProgram(out, steps_);
    dispatch::fuzz::reportBug(kTarget, what, out.str());
  }

  static std::string show(DispatchKeySet real) { return toString(real) + " [" + hex(real.raw_repr()) + "]"; }
  static std::string show(const m::KeySet& model) { return m::toDebugString(model); }

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
  static std::string render(const std::vector<DispatchKey>& keys) { return keyList(keys); }

  const Entry& operand(uint8_t i) const { return pool_[i % pool_.size()]; }
  Entry& operand(uint8_t i) { return pool_[i % pool_.size()]; }

  // Every set that enters the pool: the representation and all derived queries.
  void checkEntry(const Entry& e, const char* label) const {
    const std::string_view context = label;
    const uint64_t raw = e.real.raw_repr();
    if (raw != e.model.toRaw()) {
      fail("raw representation differs", std::string(context) + ": dispatcher " + show(e.real) + ", model " +
                                             show(e.model) + " (raw " + hex(e.model.toRaw()) + ")");
    }
    if (!(m::KeySet::fromRaw(raw) == e.model)) {
      fail("model raw round trip fails", std::string(context) + ": model " + show(e.model) +
                                             " does not survive fromRaw(toRaw()) (model bug)");
    }
    if (!(DispatchKeySet(DispatchKeySet::RAW, raw) == e.real)) fail("RAW round trip fails", show(e.real));
    KS_EXPECT_EQ(e.real.empty(), e.model.empty(), std::string(context) + ": empty()");

    std::vector<DispatchKey> keys;
    for (DispatchKey k : e.real) keys.push_back(k);
    const std::vector<DispatchKey> expected_keys = e.model.runtimeKeys();
    KS_EXPECT_EQ(keys, expected_keys, std::string(context) + ": iteration (runtimeKeys order)");
    KS_EXPECT_EQ(static_cast<size_t>(e.real.size()), expected_keys.size(), std::string(context) + ": size()");
    for (DispatchKey k : keys) {
      if (!e.real.has(k)) fail("iteration yields a key the set does not have", keyName(k) + " in " + show(e.real));
    }

    KS_EXPECT_EQ(e.real.highestFunctionalityKey(), e.model.highestFunctionalityKey(),
             std::string(context) + ": highestFunctionalityKey()");
    KS_EXPECT_EQ(e.real.highestBackendKey(), e.model.highestBackend(), std::string(context) + ": highestBackendKey()");
    KS_EXPECT_EQ(e.real.highestPriorityTypeId(), e.model.highestPriorityTypeId(),
             std::string(context) + ": highestPriorityTypeId()");
    KS_EXPECT_EQ(static_cast<int>(e.real.getBackendIndex()), e.model.getBackendIndex(),
             std::string(context) + ": getBackendIndex()");
    KS_EXPECT_EQ(highestPriorityBackendTypeId(e.real), m::highestPriorityBackendTypeId(e.model),
             std::string(context) + ": highestPriorityBackendTypeId()");
  }

  void push(Entry e, const char* label) {
    checkEntry(e, label);
    if (pool_.size() == kPoolSize) pool_.pop_front();
    pool_.push_back(std::move(e));
  }

  static DispatchKeySet realFromBackends(const Source& s) {
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

  Entry fromSource(const Source& s) const {
    switch (s.kind) {
      case SourceKind::Raw:
        return {DispatchKeySet(DispatchKeySet::RAW, s.raw), m::KeySet::fromRaw(s.raw)};
      case SourceKind::Key:
        return {DispatchKeySet(s.keys[0]), m::KeySet::of(s.keys[0])};
      case SourceKind::Keys:
        return {realFromKeys(s.keys, s.style), m::KeySet(s.keys)};
      case SourceKind::MixedBackends:
        return {realFromKeys(s.keys, 2), m::KeySet(s.keys)};
      case SourceKind::Backends: {
        m::KeySet model;
        for (BackendComponent b : s.backends) model = model.addBackend(b);
        return {realFromBackends(s), model};
      }
      case SourceKind::Tensor: {
        const auto kind = static_cast<TensorKind>(s.style);
        const BackendComponent b = s.backends[0];
        const DispatchKeySet real = tensorKeySet(kind, b, false, s.inference);
        const m::KeySet input = m::KeySet::of(m::perBackendInstance(functionalityOf(kind), b));
        m::KeySet model;
        if (kind == TensorKind::Nested && !s.inference) {
          // NestedTensorImpl's autograd keys instead of the backend's (see tensor.h).
          model = ((input | m::autocastRelatedKeySet(b)) - m::pythonKeyset()) |
                  m::KeySet{DispatchKey::ADInplaceOrView, DispatchKey::AutogradNestedTensor};
        } else {
          model = m::tensorKeySet(input, s.inference);
        }
        return {real, model};
      }
      case SourceKind::Predefined: {
        const Predefined& p = kPredefined[s.style];
        return {p.real, p.model()};
      }
      case SourceKind::FullAfter:
        return {DispatchKeySet(DispatchKeySet::FULL_AFTER, s.keys[0]), m::KeySet::fullAfter(s.keys[0])};
      case SourceKind::AliasSet:
        return {getRuntimeDispatchKeySet(s.keys[0]), m::aliasKeySet(s.keys[0])};
      case SourceKind::AutogradRelated:
        return {getAutogradRelatedKeySetFromBackend(s.backends[0]), m::autogradRelatedKeySet(s.backends[0])};
      case SourceKind::AutocastRelated:
        return {getAutocastRelatedKeySetFromBackend(s.backends[0]), m::autocastRelatedKeySet(s.backends[0])};
      case SourceKind::BackendFromAutograd:
        return {getBackendKeySetFromAutograd(s.keys[0]), m::getBackendKeySetFromAutograd(s.keys[0])};
      case SourceKind::kCount:
        break;
    }
    return {};
  }

  // c10 forbids has_any(ks) when ks holds backend bits AND a per-backend functionality bit.
  static bool mixesBackendsAndPerBackendFunctionalities(const m::KeySet& ks) {
    if (ks.backends().empty()) return false;
    for (DispatchKey f : ks.functionalities()) {
      if (m::isPerBackendFunctionality(f)) return true;
    }
    return false;
  }

  void iterate(const Entry& e) const {
    // Pre- and post-increment walk the same keys, in strictly ascending priority, each a runtime
    // key; a default iterator equals end(); begin() == end() iff no runtime key.
    std::vector<DispatchKey> pre;
    std::vector<DispatchKey> post;
    for (auto it = e.real.begin(); it != e.real.end(); ++it) pre.push_back(*it);
    for (auto it = e.real.begin(); it != e.real.end();) post.push_back(*it++);
    KS_EXPECT_EQ(post, pre, "post-increment iteration");
    if (!(DispatchKeySet::iterator() == e.real.end())) fail("iterator protocol", "iterator() != end()");
    KS_EXPECT_EQ(e.real.begin() == e.real.end(), pre.empty(), "begin() == end()");
    KS_EXPECT_EQ(static_cast<size_t>(std::distance(e.real.begin(), e.real.end())), pre.size(), "std::distance");
    const std::string printed = toString(e.real);
    if (printed.rfind("DispatchKeySet(", 0) != 0 || printed.back() != ')') fail("toString malformed", printed);
    const auto& order = m::allRuntimeKeys();
    long previous = -1;
    for (DispatchKey k : pre) {
      KS_EXPECT_EQ(isRuntimeDispatchKey(k), true, "isRuntimeDispatchKey(" + keyName(k) + ") of an iterated key");
      const long rank = std::find(order.begin(), order.end(), k) - order.begin();
      if (rank == static_cast<long>(order.size()) || rank <= previous) {
        fail("iteration order", keyName(k) + " out of ascending priority in " + show(e.real));
      }
      previous = rank;
    }
  }

  void aliasQuery(const Entry& e, DispatchKey alias) {
    // Candidates: the keys of the set, the key itself, and a few fixed keys of every class.
    std::vector<DispatchKey> candidates = e.model.runtimeKeys();
    candidates.push_back(alias);
    for (DispatchKey k : {DispatchKey::Undefined, DispatchKey::Dense, DispatchKey::NestedTensor,
                          DispatchKey::NestedTensorCPU, DispatchKey::AutogradOther,
                          DispatchKey::AutogradNestedTensor, DispatchKey::EndOfFunctionalityKeys,
                          DispatchKey::SparseXLA, DispatchKey::Lazy, DispatchKey::AutogradHIP}) {
      candidates.push_back(k);
    }
    for (DispatchKey k : candidates) {
      KS_EXPECT_EQ(isIncludedInAlias(k, alias), m::isIncludedInAlias(k, alias),
               "isIncludedInAlias(" + keyName(k) + ", " + keyName(alias) + ")");
      if (k != DispatchKey::Undefined) {
        KS_EXPECT_EQ(runtimeDispatchKeySetHas(alias, k), m::isIncludedInAlias(k, alias),
                 "runtimeDispatchKeySetHas(" + keyName(alias) + ", " + keyName(k) + ")");
      }
    }
    const Entry expanded{getRuntimeDispatchKeySet(alias), m::aliasKeySet(alias)};
    if (m::isAliasKey(alias)) {
      std::vector<DispatchKey> keys;
      for (DispatchKey k : expanded.real) keys.push_back(k);
      KS_EXPECT_EQ(keys, m::runtimeKeysOfAlias(alias), "runtime keys of alias " + keyName(alias));
    }
    push(expanded, "getRuntimeDispatchKeySet");
  }

  void keyHelpers(DispatchKey k, BackendComponent b) const {
    const std::string name = keyName(k);
    KS_EXPECT_EQ(isValidDispatchKey(k), m::isValidKey(k), "isValidDispatchKey(" + name + ")");
    KS_EXPECT_EQ(isAliasDispatchKey(k), m::isAliasKey(k), "isAliasDispatchKey(" + name + ")");
    KS_EXPECT_EQ(isPerBackendFunctionalityKey(k), m::isPerBackendFunctionality(k),
             "isPerBackendFunctionalityKey(" + name + ")");
    KS_EXPECT_EQ(isRuntimeDispatchKey(k), m::isRuntimeKey(k), "isRuntimeDispatchKey(" + name + ")");
    KS_EXPECT_EQ(toFunctionalityKey(k), m::functionalityOf(k), "toFunctionalityKey(" + name + ")");
    KS_EXPECT_EQ(toBackendComponent(k), m::backendOf(k), "toBackendComponent(" + name + ")");
    KS_EXPECT_EQ(toRuntimePerBackendFunctionalityKey(k, b), m::perBackendInstance(k, b),
             "toRuntimePerBackendFunctionalityKey(" + name + ", " + backendName(b) + ")");
    KS_EXPECT_EQ(isBackendDispatchKey(k), m::isBackendDispatchKey(k), "isBackendDispatchKey(" + name + ")");
    KS_EXPECT_EQ(getAutogradKeyFromBackend(b), m::autogradKeyOfBackend(b),
             "getAutogradKeyFromBackend(" + backendName(b) + ")");
    KS_EXPECT_EQ(hex(DispatchKeySet(b).raw_repr()), hex(m::KeySet::ofBackend(b).toRaw()),
             "DispatchKeySet(" + backendName(b) + ")");
    if (isValidDispatchKey(k)) {
      const std::string_view text = toString(k);
      const std::optional<DispatchKey> parsed = tryParseDispatchKey(text);
      if (!parsed || *parsed != k) {
        fail("name round trip fails", name + " parses back as " + (parsed ? keyName(*parsed) : "nothing"));
      }
    } else {
      KS_EXPECT_EQ(tryParseDispatchKey(toString(k)).has_value(), false,
               "tryParseDispatchKey(toString(" + name + "))");
      try {
        checkValidDispatchKey(k, "keyset_fuzzer");
        fail("checkValidDispatchKey accepts an invalid key", name);
      } catch (const InvalidKeyError&) {
      }
    }
  }

  void runStep(const Step& s) {
    if (s.kind == OpKind::Push) {
      push(fromSource(s.source), "pushed set");
      return;
    }
    if (s.kind == OpKind::KeyHelpers) {
      keyHelpers(s.key, s.backend);
      return;
    }
    const Entry a = operand(s.a);
    const Entry b = operand(s.b);
    const char* ctx = opName(s.kind).data();  // string literals: NUL-terminated
    switch (s.kind) {
      case OpKind::Or: push({a.real | b.real, a.model | b.model}, ctx); break;
      case OpKind::And: push({a.real & b.real, a.model & b.model}, ctx); break;
      case OpKind::Xor: push({a.real ^ b.real, a.model ^ b.model}, ctx); break;
      case OpKind::Minus: push({a.real - b.real, a.model - b.model}, ctx); break;
      case OpKind::OrAssign: {
        Entry& target = operand(s.a);
        target.real |= b.real;
        target.model = target.model | b.model;
        checkEntry(target, ctx);
        break;
      }
      case OpKind::AndAssign: {
        Entry& target = operand(s.a);
        target.real &= b.real;
        target.model = target.model & b.model;
        checkEntry(target, ctx);
        break;
      }
      case OpKind::AddKey: push({a.real.add(s.key), a.model.add(s.key)}, ctx); break;
      case OpKind::AddSet: push({a.real.add(b.real), a.model | b.model}, ctx); break;
      case OpKind::RemoveKey: push({a.real.remove(s.key), a.model.remove(s.key)}, ctx); break;
      case OpKind::RemoveBackend:
        push({a.real.remove_backend(s.backend), a.model.removeBackend(s.backend)}, ctx);
        break;
      case OpKind::AddBackend:
        push({a.real | DispatchKeySet(s.backend), a.model.addBackend(s.backend)}, ctx);
        break;
      case OpKind::RedispatchMask: {
        const DispatchKey top = a.real.highestPriorityTypeId();
        push({a.real & DispatchKeySet(DispatchKeySet::FULL_AFTER, top),
              a.model & m::KeySet::fullAfter(a.model.highestPriorityTypeId())},
             ctx);
        break;
      }
      case OpKind::Has:
        KS_EXPECT_EQ(a.real.has(s.key), a.model.has(s.key), "has(" + keyName(s.key) + ") on " + show(a.real));
        break;
      case OpKind::HasBackend:
        KS_EXPECT_EQ(a.real.has_backend(s.backend), a.model.hasBackend(s.backend),
                 "has_backend(" + backendName(s.backend) + ") on " + show(a.real));
        break;
      case OpKind::HasAll:
        KS_EXPECT_EQ(a.real.has_all(b.real), a.model.hasAll(b.model), "has_all on " + show(a.real) + ", " + show(b.real));
        KS_EXPECT_EQ(a.real.isSupersetOf(b.real), a.model.hasAll(b.model), "isSupersetOf");
        break;
      case OpKind::HasAny: {
        const bool real = a.real.has_any(b.real);
        if (mixesBackendsAndPerBackendFunctionalities(b.model)) {
          // Meaningless in c10 (spec 2.2): only the raw answer is defined.
          KS_EXPECT_EQ(real, (a.real.raw_repr() & b.real.raw_repr()) != 0,
                   "has_any (mixed argument, raw answer) on " + show(a.real) + ", " + show(b.real));
        } else {
          KS_EXPECT_EQ(real, a.model.hasAny(b.model), "has_any on " + show(a.real) + ", " + show(b.real));
        }
        break;
      }
      case OpKind::Equal:
        KS_EXPECT_EQ(a.real == b.real, a.model == b.model, "== on " + show(a.real) + ", " + show(b.real));
        break;
      case OpKind::Iterate:
        iterate(a);
        break;
      case OpKind::Highest:
        checkEntry(a, "highest*");
        break;
      case OpKind::AliasQuery:
        aliasQuery(a, s.key);
        break;
      default:
        break;
    }
  }

  const std::vector<Step>& steps_;
  std::deque<Entry> pool_;
  size_t step_ = 0;
};
#undef KS_EXPECT_EQ

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Step> steps = decode(data, size);
  Runner(steps).run();
  return 0;
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  printProgram(out, decode(data, size));
}
