// Reference model, part 1: keys, key sets, alias resolution, table index.
// Plain code on purpose; every rule cites the spec section it restates.

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <utility>

#include "oracle/model_key_set.h"

namespace dispatch::model {
namespace {

using DK = DispatchKey;
using BC = BackendComponent;

// ---- numeric boundaries (spec 1.2 - 1.5) --------------------------------------------------

constexpr int kNumBackends = 14;          // CPUBit .. PrivateUse3Bit
constexpr int kLastFunctionality = 40;    // PythonDispatcher
constexpr int kSentinelValue = 41;        // EndOfFunctionalityKeys
constexpr int kLastKeyValue = 121;        // CompositeExplicitAutogradNonFunctional

int value(DK k) { return static_cast<int>(toUnderlying(k)); }
int value(BC b) { return static_cast<int>(toUnderlying(b)); }
DK keyFromValue(int v) { return static_cast<DK>(v); }
BC backendFromValue(int v) { return static_cast<BC>(v); }

// One per-backend block of the enum (spec 1.4): StartOf<F>Backends, then one key per backend in
// BackendComponent order, so that key - start == backend value.
struct Block {
  DK functionality;
  DK start;
};
const std::vector<Block>& blocks() {
  static const std::vector<Block> b = {
      {DK::Dense, DK::StartOfDenseBackends},
      {DK::Quantized, DK::StartOfQuantizedBackends},
      {DK::Sparse, DK::StartOfSparseBackends},
      {DK::NestedTensor, DK::StartOfNestedTensorBackends},
      {DK::AutogradFunctionality, DK::StartOfAutogradFunctionalityBackends},
  };
  return b;
}

// The block a key value falls into (start .. start + 14), if any.
const Block* blockOf(DK k) {
  for (const auto& b : blocks()) {
    if (value(b.start) <= value(k) && value(k) <= value(b.start) + kNumBackends) return &b;
  }
  return nullptr;
}

template <typename T>
void insertAll(std::set<T>& into, const std::set<T>& from) {
  into.insert(from.begin(), from.end());
}

}  // namespace

// =============================================================================================
// Keys
// =============================================================================================

const std::vector<BackendComponent>& allBackends() {
  // Spec 1.2, lowest priority first.
  static const std::vector<BC> all = {
      BC::CPUBit, BC::CUDABit,  BC::HIPBit,  BC::XLABit,  BC::MPSBit,
      BC::IPUBit, BC::XPUBit,   BC::HPUBit,  BC::VEBit,   BC::LazyBit,
      BC::MetaBit, BC::PrivateUse1Bit, BC::PrivateUse2Bit, BC::PrivateUse3Bit,
  };
  return all;
}

const std::vector<DispatchKey>& allFunctionalities() {
  // Spec 1.3: values 1..40, lowest priority first.
  static const std::vector<DK> all = [] {
    std::vector<DK> v;
    for (int f = 1; f <= kLastFunctionality; ++f) v.push_back(keyFromValue(f));
    return v;
  }();
  return all;
}

const std::vector<DispatchKey>& perBackendFunctionalities() {
  static const std::vector<DK> all = {DK::Dense, DK::Quantized, DK::Sparse, DK::NestedTensor,
                                      DK::AutogradFunctionality};
  return all;
}

const std::vector<DispatchKey>& aliasKeys() {
  static const std::vector<DK> all = {
      DK::Autograd, DK::CompositeImplicitAutograd, DK::CompositeImplicitAutogradNestedTensor,
      DK::CompositeExplicitAutograd, DK::CompositeExplicitAutogradNonFunctional};
  return all;
}

const std::vector<DispatchKey>& allRuntimeKeys() {
  // Spec 2.6: iterating FULL.
  static const std::vector<DK> all = KeySet::full().runtimeKeys();
  return all;
}

bool isValidKey(DispatchKey k) { return value(k) <= kLastKeyValue; }

bool isAliasKey(DispatchKey k) {
  const auto& a = aliasKeys();
  return std::find(a.begin(), a.end(), k) != a.end();
}

bool isFunctionality(DispatchKey k) { return 1 <= value(k) && value(k) <= kLastFunctionality; }

bool isPerBackendFunctionality(DispatchKey k) {
  const auto& p = perBackendFunctionalities();
  return std::find(p.begin(), p.end(), k) != p.end();
}

bool isPlaceholder(DispatchKey k) {
  for (const auto& b : blocks()) {
    if (b.start == k) return true;
  }
  return false;
}

bool isPerBackendInstance(DispatchKey k) { return blockOf(k) != nullptr && !isPlaceholder(k); }

bool isRuntimeKey(DispatchKey k) {
  // Spec 1.1 kinds 3 and 4.
  if (isFunctionality(k)) return !isPerBackendFunctionality(k);
  return isPerBackendInstance(k);
}

DispatchKey functionalityOf(DispatchKey k) {
  // Spec 1.6 toFunctionalityKey.
  if (value(k) <= kSentinelValue) return k;
  if (const Block* b = blockOf(k)) return b->functionality;
  return DK::Undefined;
}

BackendComponent backendOf(DispatchKey k) {
  // Spec 1.6 toBackendComponent: (k - block start), InvalidBit outside the blocks.
  if (const Block* b = blockOf(k)) return backendFromValue(value(k) - value(b->start));
  return BC::InvalidBit;
}

DispatchKey perBackendInstance(DispatchKey functionality, BackendComponent b) {
  // Spec 1.6 toRuntimePerBackendFunctionalityKey.
  for (const auto& block : blocks()) {
    if (block.functionality == functionality) return keyFromValue(value(block.start) + value(b));
  }
  return DK::Undefined;
}

DispatchKey autogradKeyOfBackend(BackendComponent b) {
  // Spec 1.6 table. HIP, VE and InvalidBit have no autograd key of their own.
  switch (b) {
    case BC::CPUBit: return DK::AutogradCPU;
    case BC::CUDABit: return DK::AutogradCUDA;
    case BC::XLABit: return DK::AutogradXLA;
    case BC::MPSBit: return DK::AutogradMPS;
    case BC::IPUBit: return DK::AutogradIPU;
    case BC::XPUBit: return DK::AutogradXPU;
    case BC::HPUBit: return DK::AutogradHPU;
    case BC::LazyBit: return DK::AutogradLazy;
    case BC::MetaBit: return DK::AutogradMeta;
    case BC::PrivateUse1Bit: return DK::AutogradPrivateUse1;
    case BC::PrivateUse2Bit: return DK::AutogradPrivateUse2;
    case BC::PrivateUse3Bit: return DK::AutogradPrivateUse3;
    default: return DK::AutogradOther;
  }
}

std::string keyName(DispatchKey k) { return std::string(::dispatch::toString(k)); }
std::string backendName(BackendComponent b) { return std::string(::dispatch::toString(b)); }

// =============================================================================================
// KeySet
// =============================================================================================

KeySet::KeySet(std::initializer_list<DispatchKey> keys) {
  for (DK k : keys) *this = *this | of(k);
}

KeySet::KeySet(const std::vector<DispatchKey>& keys) {
  for (DK k : keys) *this = *this | of(k);
}

KeySet KeySet::of(DispatchKey k) {
  // Spec 2.1 "constructing a set from one DispatchKey".
  KeySet s;
  if (k == DK::Undefined || !isValidKey(k) || isAliasKey(k)) return s;  // no bit
  if (value(k) == kSentinelValue) {
    s.unknown_.insert(kSentinelValue);  // the sentinel yields bit 54
    return s;
  }
  if (isFunctionality(k)) {
    s.functionalities_.insert(k);
    return s;
  }
  // A per-backend block key: its functionality, plus its backend unless it is the placeholder.
  s.functionalities_.insert(functionalityOf(k));
  if (backendOf(k) != BC::InvalidBit) s.backends_.insert(backendOf(k));
  return s;
}

KeySet KeySet::ofBackend(BackendComponent b) {
  KeySet s;
  if (1 <= value(b) && value(b) <= kNumBackends) s.backends_.insert(b);
  return s;
}

KeySet KeySet::ofBackends(std::initializer_list<BackendComponent> bs) {
  KeySet s;
  for (BC b : bs) s = s | ofBackend(b);
  return s;
}

KeySet KeySet::allBackendBits() {
  KeySet s;
  for (BC b : allBackends()) s.backends_.insert(b);
  return s;
}

KeySet KeySet::fromRaw(uint64_t raw) {
  // Spec 2.1 representation: bit b-1 for backend b, bit 13+f for functionality f.
  KeySet s;
  for (int bit = 0; bit < 64; ++bit) {
    if (((raw >> bit) & 1u) == 0) continue;
    if (bit < kNumBackends) {
      s.backends_.insert(backendFromValue(bit + 1));
    } else {
      const int f = bit - (kNumBackends - 1);
      if (f <= kLastFunctionality) {
        s.functionalities_.insert(keyFromValue(f));
      } else {
        s.unknown_.insert(f);
      }
    }
  }
  return s;
}

uint64_t KeySet::toRaw() const {
  uint64_t raw = 0;
  for (BC b : backends_) raw |= uint64_t{1} << (value(b) - 1);
  for (DK f : functionalities_) raw |= uint64_t{1} << (kNumBackends + value(f) - 1);
  for (int f : unknown_) raw |= uint64_t{1} << (kNumBackends + f - 1);
  return raw;
}

KeySet KeySet::full() {
  // Spec 2.1 FULL: every backend, every functionality 1..40, not the sentinel.
  KeySet s = allBackendBits();
  for (DK f : allFunctionalities()) s.functionalities_.insert(f);
  return s;
}

KeySet KeySet::fullAfter(DispatchKey t) {
  // Spec 2.1 FULL_AFTER(t) = (1 << (14 + toFunctionalityKey(t) - 1)) - 1, plus PythonDispatcher.
  const int f = value(functionalityOf(t));
  KeySet s;
  if (f == 0) {
    // Literal formula: (1 << 13) - 1 covers backends 1..13 only.
    for (BC b : allBackends()) {
      if (value(b) <= kNumBackends - 1) s.backends_.insert(b);
    }
  } else {
    s = allBackendBits();  // f <= 41, so every g below is a real functionality
    for (int g = 1; g < f; ++g) s.functionalities_.insert(keyFromValue(g));
  }
  s.functionalities_.insert(DK::PythonDispatcher);  // 1.13 adds PythonDispatcher
  return s;
}

bool KeySet::empty() const { return functionalities_.empty() && backends_.empty() && unknown_.empty(); }

KeySet KeySet::operator|(const KeySet& o) const {
  KeySet r = *this;
  insertAll(r.functionalities_, o.functionalities_);
  insertAll(r.backends_, o.backends_);
  insertAll(r.unknown_, o.unknown_);
  return r;
}

namespace {
template <typename T>
std::set<T> intersect(const std::set<T>& a, const std::set<T>& b) {
  std::set<T> r;
  for (const T& x : a) {
    if (b.count(x) != 0) r.insert(x);
  }
  return r;
}
template <typename T>
std::set<T> minus(const std::set<T>& a, const std::set<T>& b) {
  std::set<T> r;
  for (const T& x : a) {
    if (b.count(x) == 0) r.insert(x);
  }
  return r;
}
template <typename T>
std::set<T> symmetricDifference(const std::set<T>& a, const std::set<T>& b) {
  std::set<T> r = minus(a, b);
  insertAll(r, minus(b, a));
  return r;
}
}  // namespace

KeySet KeySet::operator&(const KeySet& o) const {
  KeySet r;
  r.functionalities_ = intersect(functionalities_, o.functionalities_);
  r.backends_ = intersect(backends_, o.backends_);
  r.unknown_ = intersect(unknown_, o.unknown_);
  return r;
}

KeySet KeySet::operator^(const KeySet& o) const {
  KeySet r;
  r.functionalities_ = symmetricDifference(functionalities_, o.functionalities_);
  r.backends_ = symmetricDifference(backends_, o.backends_);
  r.unknown_ = symmetricDifference(unknown_, o.unknown_);
  return r;
}

KeySet KeySet::operator-(const KeySet& o) const {
  // Spec 2.3: repr & (full_backend_mask | ~o): backends of the left side always survive.
  KeySet r;
  r.functionalities_ = minus(functionalities_, o.functionalities_);
  r.backends_ = backends_;
  r.unknown_ = minus(unknown_, o.unknown_);
  return r;
}

KeySet KeySet::add(DispatchKey k) const { return *this | of(k); }

KeySet KeySet::remove(DispatchKey k) const {
  // Spec 2.3: clears only k's functionality (never a backend).
  KeySet key_set = of(k);
  KeySet r = *this;
  r.functionalities_ = minus(functionalities_, key_set.functionalities_);
  r.unknown_ = minus(unknown_, key_set.unknown_);
  return r;
}

KeySet KeySet::addBackend(BackendComponent b) const { return *this | ofBackend(b); }

KeySet KeySet::removeBackend(BackendComponent b) const {
  KeySet r = *this;
  r.backends_.erase(b);
  return r;
}

bool KeySet::has(DispatchKey k) const {
  // Spec 2.2: of(k) is a subset. A key with no representation is never contained (D3).
  const KeySet key_set = of(k);
  if (key_set.empty()) return false;
  return hasAll(key_set);
}

bool KeySet::hasBackend(BackendComponent b) const { return backends_.count(b) != 0; }

bool KeySet::hasAll(const KeySet& o) const { return (*this & o) == o; }

bool KeySet::hasAny(const KeySet& o) const { return !(*this & o).empty(); }

std::vector<DispatchKey> KeySet::runtimeKeys() const {
  // Spec 2.6: functionalities low to high; per-backend ones once per backend, CPU first.
  std::vector<DK> keys;
  for (DK f : functionalities_) {  // std::set<DispatchKey> is ordered by enum value
    if (isPerBackendFunctionality(f)) {
      for (BC b : backends_) keys.push_back(perBackendInstance(f, b));
    } else {
      keys.push_back(f);
    }
  }
  return keys;
}

DispatchKey KeySet::highestFunctionalityKey() const {
  // Spec 2.5. Unknown values sit above every real functionality; literal c10 cast (D4).
  if (!unknown_.empty()) return keyFromValue(*unknown_.rbegin());
  if (!functionalities_.empty()) return *functionalities_.rbegin();
  return DK::Undefined;
}

BackendComponent KeySet::highestBackend() const {
  if (backends_.empty()) return BC::InvalidBit;
  return *backends_.rbegin();
}

DispatchKey KeySet::highestPriorityTypeId() const {
  // Spec 2.5: the instance of the highest functionality for the highest backend; with no
  // backend that is the placeholder of the block ("Unknown").
  const DK f = highestFunctionalityKey();
  if (isPerBackendFunctionality(f)) return perBackendInstance(f, highestBackend());
  return f;
}

int KeySet::getBackendIndex() const {
  // Spec 2.5: 0-based; 0 for CPU and for "no backend".
  if (backends_.empty()) return 0;
  return value(highestBackend()) - 1;
}

std::string toString(const KeySet& ks) {
  std::vector<std::string> parts;
  for (DK k : ks.runtimeKeys()) parts.push_back(keyName(k));
  bool any_per_backend = false;
  for (DK f : ks.functionalities()) {
    if (!isPerBackendFunctionality(f)) continue;
    any_per_backend = true;
    if (ks.backends().empty()) parts.push_back(keyName(f));  // building block, no backend
  }
  if (!any_per_backend) {
    for (BC b : ks.backends()) parts.push_back(backendName(b));
  }
  for (int u : ks.unknownFunctionalityValues()) parts.push_back("unknown#" + std::to_string(u));
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out + "}";
}

std::ostream& operator<<(std::ostream& out, const KeySet& ks) { return out << toString(ks); }

std::string toDebugString(const KeySet& ks) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(ks.toRaw()));
  return toString(ks) + " (raw " + buf + ")";
}

DispatchKey highestPriorityBackendTypeId(const KeySet& ks) {
  const KeySet backend_functionality_keys =
      KeySet{DK::Dense, DK::Quantized, DK::Sparse} | KeySet::allBackendBits();
  return (ks & backend_functionality_keys).highestPriorityTypeId();
}

// =============================================================================================
// Predefined sets (spec 2.7, 2.8, 5.5)
// =============================================================================================

const KeySet& autogradDispatchKeyset() {
  static const KeySet s{DK::AutogradFunctionality, DK::AutogradOther, DK::AutogradNestedTensor};
  return s;
}

const KeySet& autocastDispatchKeyset() {
  static const KeySet s{DK::AutocastCPU, DK::AutocastXPU, DK::AutocastCUDA};
  return s;
}

const KeySet& autogradOtherBackends() {
  static const KeySet s =
      KeySet{DK::FPGA, DK::ORT, DK::Vulkan, DK::Metal, DK::SparseCsrCPU, DK::SparseCsrCUDA,
             DK::CustomRNGKeyId, DK::MkldnnCPU, DK::Sparse, DK::Quantized} |
      KeySet::allBackendBits();
  return s;
}

const KeySet& backendDispatchKeyset() {
  static const KeySet s = autogradOtherBackends() | KeySet{DK::Dense};
  return s;
}

const KeySet& mathDispatchKeyset() {
  static const KeySet s =
      backendDispatchKeyset() | autogradDispatchKeyset() | KeySet{DK::NestedTensor};
  return s;
}

const KeySet& nonFunctionalBackendDispatchKeyset() {
  static const KeySet s = backendDispatchKeyset()
                              .remove(DK::Sparse)
                              .removeBackend(BC::XLABit)
                              .removeBackend(BC::LazyBit);
  return s;
}

const KeySet& nestedDispatchKeyset() {
  static const KeySet s =
      KeySet{DK::AutogradNestedTensor, DK::NestedTensor} | KeySet::allBackendBits();
  return s;
}

const KeySet& pythonKeyset() {
  static const KeySet s{DK::Python, DK::PythonTLSSnapshot};
  return s;
}

const KeySet& defaultIncludedSet() {
  static const KeySet s{DK::BackendSelect, DK::ADInplaceOrView};
  return s;
}

const KeySet& defaultExcludedSet() {
  static const KeySet s{DK::AutocastCPU, DK::AutocastXPU, DK::AutocastCUDA};
  return s;
}

// =============================================================================================
// Alias resolution (spec 2.8)
// =============================================================================================

namespace {

// Position of a runtime key in priority order (Undefined first), for sorting.
int priorityRank(DK k) {
  const auto& slots = tableSlots(Flavour::Full);
  return static_cast<int>(std::find(slots.begin(), slots.end(), k) - slots.begin());
}

void sortByPriority(std::vector<DK>& keys) {
  std::sort(keys.begin(), keys.end(),
            [](DK a, DK b) { return priorityRank(a) < priorityRank(b); });
}

// Every instance of functionality F, on every backend except those in `skip`.
void addInstances(std::vector<DK>& keys, DK functionality, std::set<BC> skip = {}) {
  for (BC b : allBackends()) {
    if (skip.count(b) == 0) keys.push_back(perBackendInstance(functionality, b));
  }
}

// FPGA, ORT, Vulkan, Metal, CustomRNGKeyId, MkldnnCPU, SparseCsrCPU, SparseCsrCUDA: the plain
// functionalities that act as backends (spec 2.7 autogradother_backends minus the blocks).
const std::vector<DK> kPlainBackends = {DK::FPGA,           DK::ORT,          DK::Vulkan,
                                        DK::Metal,          DK::CustomRNGKeyId, DK::MkldnnCPU,
                                        DK::SparseCsrCPU,   DK::SparseCsrCUDA};

}  // namespace

std::vector<DispatchKey> runtimeKeysOfAlias(DispatchKey alias) {
  std::vector<DK> keys;
  switch (alias) {
    case DK::Autograd:
      // AutogradOther, Autograd x 14, AutogradNestedTensor (16).
      keys.push_back(DK::AutogradOther);
      addInstances(keys, DK::AutogradFunctionality);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeImplicitAutograd:
      // Dense/Quantized/Sparse/NestedTensor x 14, the 8 plain backends, AutogradOther,
      // Autograd x 14, AutogradNestedTensor (80).
      addInstances(keys, DK::Dense);
      addInstances(keys, DK::Quantized);
      addInstances(keys, DK::Sparse);
      addInstances(keys, DK::NestedTensor);
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      keys.push_back(DK::AutogradOther);
      addInstances(keys, DK::AutogradFunctionality);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeImplicitAutogradNestedTensor:
      // NestedTensor x 14 + AutogradNestedTensor (15).
      addInstances(keys, DK::NestedTensor);
      keys.push_back(DK::AutogradNestedTensor);
      break;
    case DK::CompositeExplicitAutograd:
      // Dense/Quantized/Sparse x 14 + the 8 plain backends (50).
      addInstances(keys, DK::Dense);
      addInstances(keys, DK::Quantized);
      addInstances(keys, DK::Sparse);
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      break;
    case DK::CompositeExplicitAutogradNonFunctional:
      // CEA without Sparse and without anything on XLA or Lazy (12 + 12 + 8 = 32).
      addInstances(keys, DK::Dense, {BC::XLABit, BC::LazyBit});
      addInstances(keys, DK::Quantized, {BC::XLABit, BC::LazyBit});
      keys.insert(keys.end(), kPlainBackends.begin(), kPlainBackends.end());
      break;
    default:
      // A runtime key is its own expansion; anything else expands to nothing (D8).
      if (isValidKey(alias) && isRuntimeKey(alias)) keys.push_back(alias);
      break;
  }
  sortByPriority(keys);
  return keys;
}

KeySet aliasKeySet(DispatchKey alias) {
  switch (alias) {
    case DK::Autograd: return autogradDispatchKeyset() | KeySet::allBackendBits();
    case DK::CompositeImplicitAutograd: return mathDispatchKeyset();
    case DK::CompositeImplicitAutogradNestedTensor: return nestedDispatchKeyset();
    case DK::CompositeExplicitAutograd: return backendDispatchKeyset();
    case DK::CompositeExplicitAutogradNonFunctional: return nonFunctionalBackendDispatchKeyset();
    default: return KeySet::of(alias);
  }
}

bool isIncludedInAlias(DispatchKey k, DispatchKey alias) {
  // Spec 2.8: Undefined is never included in any alias.
  if (k == DK::Undefined) return false;
  switch (alias) {
    case DK::Autograd: return autogradDispatchKeyset().has(functionalityOf(k));
    case DK::CompositeImplicitAutograd: return mathDispatchKeyset().has(k);
    case DK::CompositeImplicitAutogradNestedTensor: return nestedDispatchKeyset().has(k);
    case DK::CompositeExplicitAutograd:
      return k != DK::NestedTensor && backendDispatchKeyset().has(k);
    case DK::CompositeExplicitAutogradNonFunctional:
      return k != DK::NestedTensor && nonFunctionalBackendDispatchKeyset().has(k);
    default: return alias == k;
  }
}

KeySet getBackendKeySetFromAutograd(DispatchKey k) {
  // Spec 2.8 table.
  switch (k) {
    case DK::AutogradCPU: return KeySet{DK::CPU};
    case DK::AutogradCUDA: return KeySet{DK::CUDA};
    case DK::AutogradXLA: return KeySet{DK::XLA};
    case DK::AutogradLazy: return KeySet{DK::Lazy};
    case DK::AutogradMeta: return KeySet{DK::Meta};
    case DK::AutogradMPS: return KeySet{DK::MPS};
    case DK::AutogradHPU: return KeySet{DK::HPU};
    case DK::AutogradIPU: return KeySet{DK::IPU};
    case DK::AutogradXPU: return KeySet{DK::XPU};
    case DK::AutogradPrivateUse1: return KeySet{DK::PrivateUse1};
    case DK::AutogradPrivateUse2: return KeySet{DK::PrivateUse2};
    case DK::AutogradPrivateUse3: return KeySet{DK::PrivateUse3};
    case DK::AutogradNestedTensor: return KeySet{DK::NestedTensor} | KeySet::allBackendBits();
    case DK::AutogradOther: return autogradOtherBackends();
    default: return KeySet{};  // AutogradHIP, AutogradVE and every non-autograd key
  }
}

bool isBackendDispatchKey(DispatchKey k) {
  return k != DK::Undefined && !isAliasKey(k) && k != DK::NestedTensor &&
         backendDispatchKeyset().has(k);
}

KeySet autogradRelatedKeySet(BackendComponent b) {
  return KeySet{DK::ADInplaceOrView, autogradKeyOfBackend(b)};
}

KeySet autocastRelatedKeySet(BackendComponent b) {
  switch (b) {
    case BC::CPUBit: return KeySet{DK::AutocastCPU};
    case BC::XPUBit: return KeySet{DK::AutocastXPU};
    case BC::CUDABit:
    case BC::XLABit: return KeySet{DK::AutocastCUDA};
    default: return KeySet{};
  }
}

KeySet tensorKeySet(const KeySet& input, bool inference_mode) {
  // Spec 5.5 steps 1-4.
  const BC b = input.highestBackend();
  KeySet ks = input | autocastRelatedKeySet(b);
  ks = ks - pythonKeyset();
  if (inference_mode) {
    ks = ks - (autogradDispatchKeyset() | KeySet{DK::ADInplaceOrView});
  } else {
    ks = ks | autogradRelatedKeySet(b);
  }
  return ks;
}

// =============================================================================================
// Table index (spec 3, 6.2)
// =============================================================================================

std::string toString(Flavour f) { return f == Flavour::Full ? "full" : "mobile"; }

const std::vector<DispatchKey>& tableSlots(Flavour f) {
  // Spec 3.2: walk the functionalities in order.
  static const std::vector<DK> full = [] {
    std::vector<DK> slots = {DK::Undefined};  // slot 0
    for (DK functionality : allFunctionalities()) {
      if (isPerBackendFunctionality(functionality)) {
        for (BC b : allBackends()) slots.push_back(perBackendInstance(functionality, b));
      } else {
        slots.push_back(functionality);
      }
    }
    return slots;
  }();
  // Spec 6.2: the trimmed mobile slot map.
  static const std::vector<DK> mobile = {DK::Undefined,       DK::CPU,
                                         DK::QuantizedCPU,    DK::SparseCPU,
                                         DK::BackendSelect,   DK::ADInplaceOrView,
                                         DK::AutogradOther,   DK::AutogradCPU};
  return f == Flavour::Full ? full : mobile;
}

int tableSize(Flavour f) { return static_cast<int>(tableSlots(f).size()); }

namespace {
int slotOf(DK k, Flavour f) {
  const auto& slots = tableSlots(f);
  const auto it = std::find(slots.begin(), slots.end(), k);
  return it == slots.end() ? -1 : static_cast<int>(it - slots.begin());
}
}  // namespace

int tableIndex(const KeySet& ks, Flavour f) {
  // Raw sets with a functionality bit past PythonDispatcher have no slot (D4).
  if (!ks.unknownFunctionalityValues().empty()) return -1;
  if (f == Flavour::Mobile) {
    // Spec 6.2: switch on highestPriorityTypeId; every other key is -1.
    return slotOf(ks.highestPriorityTypeId(), Flavour::Mobile);
  }
  // Spec 3.3: slot of (highest functionality, highest backend); spec 3.5: CPU when no backend.
  const DK functionality = ks.highestFunctionalityKey();
  if (functionality == DK::Undefined) return 0;
  if (isPerBackendFunctionality(functionality)) {
    const BC b = ks.backends().empty() ? BC::CPUBit : ks.highestBackend();
    return slotOf(perBackendInstance(functionality, b), Flavour::Full);
  }
  return slotOf(functionality, Flavour::Full);
}

int tableIndex(DispatchKey k, Flavour f) { return tableIndex(KeySet::of(k), f); }

}  // namespace dispatch::model
