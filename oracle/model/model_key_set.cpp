// Reference model, part 1: keys, key sets, predefined sets (model_aliases.cpp and
// model_table_index.cpp hold the rest of model_key_set.h). Plain code on purpose; every rule cites
// the spec section it restates.

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <utility>

#include "oracle/model/model_key_set.h"

namespace dispatch::model {
namespace {

using DK = DispatchKey;
using BC = BackendComponent;

// ---- numeric boundaries (docs/semantics.md §1.2 - 1.5) --------------------------------------------------

constexpr int kNumBackends = 14;          // CPUBit .. PrivateUse3Bit
constexpr int kLastFunctionality = 40;    // PythonDispatcher
constexpr int kSentinelValue = 41;        // EndOfFunctionalityKeys
constexpr int kLastKeyValue = 121;        // CompositeExplicitAutogradNonFunctional

int value(DK k) { return static_cast<int>(toUnderlying(k)); }
int value(BC b) { return static_cast<int>(toUnderlying(b)); }
DK keyFromValue(int v) { return static_cast<DK>(v); }
BC backendFromValue(int v) { return static_cast<BC>(v); }

// One per-backend block of the enum (docs/semantics.md §1.4): StartOf<F>Backends, then one key per backend in
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

}  // namespace

// =============================================================================================
// Keys
// =============================================================================================

const std::vector<BackendComponent>& allBackends() {
  // docs/semantics.md §1.2, lowest priority first.
  static const std::vector<BC> all = {
      BC::CPUBit, BC::CUDABit,  BC::HIPBit,  BC::XLABit,  BC::MPSBit,
      BC::IPUBit, BC::XPUBit,   BC::HPUBit,  BC::VEBit,   BC::LazyBit,
      BC::MetaBit, BC::PrivateUse1Bit, BC::PrivateUse2Bit, BC::PrivateUse3Bit,
  };
  return all;
}

const std::vector<DispatchKey>& allFunctionalities() {
  // docs/semantics.md §1.3: values 1..40, lowest priority first.
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
  // docs/semantics.md §2.6: iterating FULL.
  static const std::vector<DK> all = KeySet::full().runtimeKeys();
  return all;
}

bool isValidKey(DispatchKey k) { return value(k) <= kLastKeyValue; }

bool isAliasKey(DispatchKey k) {
  for (DK alias : aliasKeys()) {
    if (alias == k) return true;
  }
  return false;
}

bool isFunctionality(DispatchKey k) { return 1 <= value(k) && value(k) <= kLastFunctionality; }

bool isPerBackendFunctionality(DispatchKey k) {
  for (DK f : perBackendFunctionalities()) {
    if (f == k) return true;
  }
  return false;
}

bool isPlaceholder(DispatchKey k) {
  for (const auto& b : blocks()) {
    if (b.start == k) return true;
  }
  return false;
}

bool isPerBackendInstance(DispatchKey k) { return blockOf(k) != nullptr && !isPlaceholder(k); }

bool isRuntimeKey(DispatchKey k) {
  // docs/semantics.md §1.1 kinds 3 and 4.
  if (isFunctionality(k)) return !isPerBackendFunctionality(k);
  return isPerBackendInstance(k);
}

DispatchKey functionalityOf(DispatchKey k) {
  // docs/semantics.md §1.6 toFunctionalityKey.
  if (value(k) <= kSentinelValue) return k;
  if (const Block* b = blockOf(k)) return b->functionality;
  return DK::Undefined;
}

BackendComponent backendOf(DispatchKey k) {
  // docs/semantics.md §1.6 toBackendComponent: (k - block start), InvalidBit outside the blocks.
  if (const Block* b = blockOf(k)) return backendFromValue(value(k) - value(b->start));
  return BC::InvalidBit;
}

DispatchKey perBackendInstance(DispatchKey functionality, BackendComponent b) {
  // docs/semantics.md §1.6 toRuntimePerBackendFunctionalityKey.
  for (const auto& block : blocks()) {
    if (block.functionality == functionality) return keyFromValue(value(block.start) + value(b));
  }
  return DK::Undefined;
}

DispatchKey autogradKeyOfBackend(BackendComponent b) {
  // docs/semantics.md §1.6 table. HIP, VE and InvalidBit have no autograd key of their own.
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
  // docs/semantics.md §2.1 "constructing a set from one DispatchKey".
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
  // docs/semantics.md §2.1 representation: bit b-1 for backend b, bit 13+f for functionality f.
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
  // docs/semantics.md §2.1 FULL: every backend, every functionality 1..40, not the sentinel.
  KeySet s = allBackendBits();
  for (DK f : allFunctionalities()) s.functionalities_.insert(f);
  return s;
}

KeySet KeySet::fullAfter(DispatchKey t) {
  // docs/semantics.md §2.1 FULL_AFTER(t) = (1 << (14 + toFunctionalityKey(t) - 1)) - 1, plus PythonDispatcher.
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
  KeySet r;
  r.functionalities_ = functionalities_ | o.functionalities_;
  r.backends_ = backends_ | o.backends_;
  r.unknown_ = unknown_ | o.unknown_;
  return r;
}


KeySet KeySet::operator&(const KeySet& o) const {
  KeySet r;
  r.functionalities_ = functionalities_ & o.functionalities_;
  r.backends_ = backends_ & o.backends_;
  r.unknown_ = unknown_ & o.unknown_;
  return r;
}

KeySet KeySet::operator^(const KeySet& o) const {
  KeySet r;
  r.functionalities_ = functionalities_ ^ o.functionalities_;
  r.backends_ = backends_ ^ o.backends_;
  r.unknown_ = unknown_ ^ o.unknown_;
  return r;
}

KeySet KeySet::operator-(const KeySet& o) const {
  // docs/semantics.md §2.3: repr & (full_backend_mask | ~o): backends of the left side always survive.
  KeySet r;
  r.functionalities_ = functionalities_.minus(o.functionalities_);
  r.backends_ = backends_;
  r.unknown_ = unknown_.minus(o.unknown_);
  return r;
}

KeySet KeySet::add(DispatchKey k) const { return *this | of(k); }

KeySet KeySet::remove(DispatchKey k) const {
  // docs/semantics.md §2.3: clears only k's functionality (never a backend).
  KeySet key_set = of(k);
  KeySet r = *this;
  r.functionalities_ = functionalities_.minus(key_set.functionalities_);
  r.unknown_ = unknown_.minus(key_set.unknown_);
  return r;
}

KeySet KeySet::addBackend(BackendComponent b) const { return *this | ofBackend(b); }

KeySet KeySet::removeBackend(BackendComponent b) const {
  KeySet r = *this;
  r.backends_.erase(b);
  return r;
}

bool KeySet::has(DispatchKey k) const {
  // docs/semantics.md §2.2: of(k) is a subset. A key with no representation is never contained (D3).
  // The members of of(k), case by case as of() builds them, looked up without building it.
  if (k == DK::Undefined || !isValidKey(k) || isAliasKey(k)) return false;
  if (value(k) == kSentinelValue) return unknown_.count(kSentinelValue) != 0;
  if (isFunctionality(k)) return functionalities_.count(k) != 0;
  return functionalities_.count(functionalityOf(k)) != 0 &&
         (backendOf(k) == BC::InvalidBit || backends_.count(backendOf(k)) != 0);
}

bool KeySet::hasBackend(BackendComponent b) const { return backends_.count(b) != 0; }

bool KeySet::hasAll(const KeySet& o) const {
  // (*this & o) == o, i.e. every functionality, backend and unknown value of o is in this set.
  return o.functionalities_.isSubsetOf(functionalities_) && o.backends_.isSubsetOf(backends_) &&
         o.unknown_.isSubsetOf(unknown_);
}

bool KeySet::hasAny(const KeySet& o) const { return !(*this & o).empty(); }

std::vector<DispatchKey> KeySet::runtimeKeys() const {
  // docs/semantics.md §2.6: functionalities low to high; per-backend ones once per backend, CPU first.
  std::vector<DK> keys;
  for (DK f : functionalities_) {  // a ValueSet iterates in enum value order
    if (isPerBackendFunctionality(f)) {
      for (BC b : backends_) keys.push_back(perBackendInstance(f, b));
    } else {
      keys.push_back(f);
    }
  }
  return keys;
}

DispatchKey KeySet::highestFunctionalityKey() const {
  // docs/semantics.md §2.5. Unknown values sit above every real functionality; literal c10 cast (D4).
  if (!unknown_.empty()) return keyFromValue(unknown_.max());
  if (!functionalities_.empty()) return functionalities_.max();
  return DK::Undefined;
}

BackendComponent KeySet::highestBackend() const {
  if (backends_.empty()) return BC::InvalidBit;
  return backends_.max();
}

DispatchKey KeySet::highestPriorityTypeId() const {
  // docs/semantics.md §2.5: the instance of the highest functionality for the highest backend; with no
  // backend that is the placeholder of the block ("Unknown").
  const DK f = highestFunctionalityKey();
  if (isPerBackendFunctionality(f)) return perBackendInstance(f, highestBackend());
  return f;
}

int KeySet::getBackendIndex() const {
  // docs/semantics.md §2.5: 0-based; 0 for CPU and for "no backend".
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
// Predefined sets (docs/semantics.md §2.7, 2.8, 5.5)
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

}  // namespace dispatch::model
