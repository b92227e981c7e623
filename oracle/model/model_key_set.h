#pragma once
// Reference model, part 1: keys, key sets, alias resolution and the runtime table index.
//
// A deliberately simple, independent re-statement of docs/semantics.md sections 1-3 and 6.2.
// It shares nothing with dispatch/ except the
// public enums DispatchKey / BackendComponent and their names (dispatch/dispatch_key.h).
// Everything here is plain set / std::vector code (a set of small values is a ValueSet,
// oracle/model/model_value_set.h, one flag per value); the only bit arithmetic on the library's
// layout is the raw uint64_t conversion at the boundary (KeySet::fromRaw / toRaw).
//
// See oracle/model/model.h for the list of decisions taken where the spec leaves room.

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "oracle/model/model_value_set.h"

namespace dispatch::model {

using ::dispatch::BackendComponent;
using ::dispatch::DispatchKey;

// =============================================================================================
// Keys (docs/semantics.md §1.1 - 1.6). Names differ from the c10 helpers in dispatch/dispatch_key.h on purpose
// (functionalityOf instead of toFunctionalityKey, ...): the model restates them itself.
// =============================================================================================

// The 14 backends CPUBit .. PrivateUse3Bit, lowest priority first (docs/semantics.md §1.2).
const std::vector<BackendComponent>& allBackends();

// The 40 functionality keys Dense .. PythonDispatcher (values 1..40), lowest priority first,
// per-backend building blocks included (docs/semantics.md §1.3).
const std::vector<DispatchKey>& allFunctionalities();

// Dense, Quantized, Sparse, NestedTensor, AutogradFunctionality (docs/semantics.md §1.1 kind 2).
const std::vector<DispatchKey>& perBackendFunctionalities();

// Autograd, CIA, CIA-NestedTensor, CEA, CEANF (docs/semantics.md §1.5).
const std::vector<DispatchKey>& aliasKeys();

// Every runtime key (plain functionalities and per-backend instances), ascending priority:
// the 105 keys of iterating FULL (docs/semantics.md §2.6). Undefined is not included.
const std::vector<DispatchKey>& allRuntimeKeys();

// A value the enum declares: 0 .. CompositeExplicitAutogradNonFunctional (121).
bool isValidKey(DispatchKey k);
// One of the five alias keys (docs/semantics.md §1.5).
bool isAliasKey(DispatchKey k);
// A functionality value 1..40, building blocks included.
bool isFunctionality(DispatchKey k);
// Dense, Quantized, Sparse, NestedTensor or AutogradFunctionality.
bool isPerBackendFunctionality(DispatchKey k);
// A StartOf<F>Backends placeholder ("Unknown", "QuantizedUnknown", ...; docs/semantics.md §1.4).
bool isPlaceholder(DispatchKey k);
// CPU, QuantizedCUDA, AutogradXLA, ...: a key of a per-backend block other than its placeholder.
bool isPerBackendInstance(DispatchKey k);
// A key that owns a table slot and is not Undefined: a plain functionality (1..40, not a
// building block) or a per-backend instance. Not an alias, placeholder, sentinel or Undefined.
bool isRuntimeKey(DispatchKey k);

// c10 toFunctionalityKey (docs/semantics.md §1.6): functionality values map to themselves (the sentinel 41
// included), per-backend block keys to their functionality, anything else to Undefined.
DispatchKey functionalityOf(DispatchKey k);
// c10 toBackendComponent (docs/semantics.md §1.6): the backend of a per-backend block key (InvalidBit for the
// placeholder), InvalidBit for everything else.
BackendComponent backendOf(DispatchKey k);
// c10 toRuntimePerBackendFunctionalityKey (docs/semantics.md §1.6): F's instance for backend b (the
// placeholder for InvalidBit); Undefined when F is not a per-backend functionality.
DispatchKey perBackendInstance(DispatchKey functionality, BackendComponent b);

// c10 getAutogradKeyFromBackend (docs/semantics.md §1.6 table): AutogradOther for HIP, VE and InvalidBit.
DispatchKey autogradKeyOfBackend(BackendComponent b);

// The canonical name of a key / backend (from dispatch/dispatch_key.h), as a std::string.
std::string keyName(DispatchKey k);
std::string backendName(BackendComponent b);

// =============================================================================================
// KeySet (docs/semantics.md §2)
// =============================================================================================

// A key set as a pair of plain sets (docs/semantics.md §2.4 "cross-product semantics"):
//   * functionalities(): functionality keys 1..40 (building blocks such as Dense included);
//   * backends():        BackendComponents CPUBit..PrivateUse3Bit;
//   * unknownFunctionalityValues(): functionality values 41..50, i.e. raw bits 54..63, which
//     only arise from fromRaw() or from adding EndOfFunctionalityKeys (docs/semantics.md §2.1: "the sentinel
//     41 yields bit 54"). They are carried through the algebra and round-trip through raw.
// Its runtime keys are every plain functionality plus every (per-backend functionality x
// backend) pair. Two sets are equal iff all three parts are equal (== raw equality).
class KeySet {
 public:
  // The empty set (raw 0).
  KeySet() = default;
  // The union of the single-key sets of `keys` (docs/semantics.md §2.1 "from a list of keys").
  KeySet(std::initializer_list<DispatchKey> keys);
  explicit KeySet(const std::vector<DispatchKey>& keys);

  // The set built from one key (docs/semantics.md §2.1 table): Undefined, alias keys and values outside the
  // enum give the empty set; EndOfFunctionalityKeys gives unknown functionality value 41; a
  // functionality gives itself; a per-backend instance gives its functionality + its backend;
  // a placeholder gives its functionality only.
  static KeySet of(DispatchKey k);
  // One backend bit (empty for InvalidBit).
  static KeySet ofBackend(BackendComponent b);
  static KeySet ofBackends(std::initializer_list<BackendComponent> bs);
  // Every backend bit, no functionality (c10 backend_bitset_mask).
  static KeySet allBackendBits();
  // Decode bit by bit: bit i < 14 is backend i+1; bit i >= 14 is functionality value i-13
  // (values 41..50 kept as unknown functionality values).
  static KeySet fromRaw(uint64_t raw);
  // FULL: all backends and all functionalities 1..40 (docs/semantics.md §2.1). No unknown values.
  static KeySet full();
  // FULL_AFTER(t) (docs/semantics.md §2.1): all backends, every functionality strictly below
  // functionalityOf(t), plus PythonDispatcher. Literal formula: for t whose functionality is
  // Undefined (Undefined, aliases) the "all backends" part is backends 1..13 only.
  static KeySet fullAfter(DispatchKey t);

  uint64_t toRaw() const;

  using Functionalities = ValueSet<DispatchKey, 41>;  // values 1..40 only
  using Backends = ValueSet<BackendComponent, 15>;     // CPUBit..PrivateUse3Bit only
  using UnknownValues = ValueSet<int, 51>;             // values 41..50 only
  const Functionalities& functionalities() const { return functionalities_; }
  const Backends& backends() const { return backends_; }
  const UnknownValues& unknownFunctionalityValues() const { return unknown_; }

  // No functionality, no backend, no unknown value (raw 0): "an undefined tensor".
  bool empty() const;

  // Algebra (docs/semantics.md §2.3). |, &, ^ act on each part independently (exactly the bitwise ops).
  KeySet operator|(const KeySet& o) const;
  KeySet operator&(const KeySet& o) const;
  KeySet operator^(const KeySet& o) const;
  // Set difference removes functionalities (and unknown values) only: every backend of the
  // left side survives (docs/semantics.md §2.3).
  KeySet operator-(const KeySet& o) const;
  bool operator==(const KeySet& o) const = default;

  // this | of(k).
  [[nodiscard]] KeySet add(DispatchKey k) const;
  // Clears only k's functionality (docs/semantics.md §2.3): remove(CPU) removes Dense for every backend.
  [[nodiscard]] KeySet remove(DispatchKey k) const;
  [[nodiscard]] KeySet addBackend(BackendComponent b) const;
  // The only way to clear a backend.
  [[nodiscard]] KeySet removeBackend(BackendComponent b) const;

  // of(k) is a subset of this (docs/semantics.md §2.2): a per-backend instance needs BOTH its functionality
  // and its backend. Keys whose single-key set is empty (Undefined, aliases, out-of-range
  // values) are never contained (decision D3).
  bool has(DispatchKey k) const;
  bool hasBackend(BackendComponent b) const;
  // Superset test (c10 has_all / isSupersetOf).
  bool hasAll(const KeySet& o) const;
  // Literal c10 has_any: the sets share a functionality, an unknown value or a backend.
  // (c10 forbids o holding both backends and per-backend functionalities; not checked.)
  bool hasAny(const KeySet& o) const;

  // Runtime keys in ascending priority (docs/semantics.md §2.6): functionalities low to high; a plain one
  // yields itself; a per-backend one yields one key per backend present, CPU first, and
  // nothing when there is no backend. Unknown functionality values yield nothing (D4).
  std::vector<DispatchKey> runtimeKeys() const;

  // docs/semantics.md §2.5. The highest functionality, Undefined if none. If unknown values are present the
  // literal c10 result static_cast<DispatchKey>(highest unknown value) is returned (D4).
  DispatchKey highestFunctionalityKey() const;
  // The highest backend, InvalidBit if none.
  BackendComponent highestBackend() const;
  // highestFunctionalityKey, turned into its instance for highestBackend when per-backend;
  // with no backend that is the placeholder ("Unknown", "AutogradUnknown", ...).
  DispatchKey highestPriorityTypeId() const;
  // 0-based index of the highest backend (CPU 0 .. PrivateUse3 13); 0 when there is none.
  int getBackendIndex() const;

 private:
  Functionalities functionalities_;
  Backends backends_;
  UnknownValues unknown_;
};

// Lossless, readable: runtime keys ascending, then per-backend functionalities that have no
// backend ("Dense"), then backends when no per-backend functionality is present ("CPUBit"),
// then unknown values ("unknown#41"). Examples: "{CPU, AutogradCPU}", "{}", "{Dense}",
// "{CPUBit, CUDABit}", "{FPGA, CPUBit}", "{CPU, unknown#41}".
std::string toString(const KeySet& ks);
std::ostream& operator<<(std::ostream& out, const KeySet& ks);
// toString plus the raw value: "{CPU} (raw 0x4001)".
std::string toDebugString(const KeySet& ks);

// c10 highestPriorityBackendTypeId (docs/semantics.md §2.5): highestPriorityTypeId of
// ks & ({Dense, Quantized, Sparse} + all backends).
DispatchKey highestPriorityBackendTypeId(const KeySet& ks);

// =============================================================================================
// Predefined sets (docs/semantics.md §2.7, 2.8, 5.5). Each is written out as a plain key list.
// =============================================================================================

// {AutogradFunctionality, AutogradOther, AutogradNestedTensor}, no backends.
const KeySet& autogradDispatchKeyset();
// {AutocastCPU, AutocastXPU, AutocastCUDA}.
const KeySet& autocastDispatchKeyset();
// {FPGA, ORT, Vulkan, Metal, SparseCsrCPU, SparseCsrCUDA, CustomRNGKeyId, MkldnnCPU, Sparse,
// Quantized} + all backends.
const KeySet& autogradOtherBackends();
// autogradOtherBackends + {Dense}.
const KeySet& backendDispatchKeyset();
// backend + autograd + {NestedTensor}.
const KeySet& mathDispatchKeyset();
// backend minus the Sparse functionality minus the XLA and Lazy backends.
const KeySet& nonFunctionalBackendDispatchKeyset();
// {AutogradNestedTensor, NestedTensor} + all backends.
const KeySet& nestedDispatchKeyset();
// {Python, PythonTLSSnapshot}.
const KeySet& pythonKeyset();
// TLS defaults (docs/semantics.md §5.5): included {BackendSelect, ADInplaceOrView},
// excluded {AutocastCPU, AutocastXPU, AutocastCUDA}.
const KeySet& defaultIncludedSet();
const KeySet& defaultExcludedSet();

// =============================================================================================
// Alias resolution (docs/semantics.md §2.8)
// =============================================================================================

// The runtime keys an alias expands to, ascending priority, written out explicitly
// (Autograd 16, CIA 80, CIA-NestedTensor 15, CEA 50, CEANF 32). A runtime key expands to
// itself; Undefined, building blocks, placeholders, the sentinel and invalid values expand to
// nothing (D8).
std::vector<DispatchKey> runtimeKeysOfAlias(DispatchKey alias);

// c10 getRuntimeDispatchKeySet(alias) as a KeySet (the named sets above); of(k) for a
// non-alias k. Its runtimeKeys() equal runtimeKeysOfAlias(alias) (a unit test checks this).
KeySet aliasKeySet(DispatchKey alias);

// c10 isIncludedInAlias (docs/semantics.md §2.8 table): never for Undefined; Autograd: the autograd set has
// functionalityOf(k); CIA: math set has k; CIA-NestedTensor: nested set has k; CEA / CEANF:
// k != NestedTensor and the backend / non-functional set has k; a non-alias `alias`: k == alias.
bool isIncludedInAlias(DispatchKey k, DispatchKey alias);

// c10 getBackendKeySetFromAutograd (docs/semantics.md §2.8): Autograd<X> -> {X} (but AutogradHIP and
// AutogradVE -> {}), AutogradNestedTensor -> all NestedTensor instances, AutogradOther ->
// autogradOtherBackends(), anything else -> {}.
KeySet getBackendKeySetFromAutograd(DispatchKey k);

// c10 isBackendDispatchKey (docs/semantics.md §2.8): k != Undefined, not an alias, k != NestedTensor and the
// backend set has k (true for the 50 CEA runtime keys, false for NestedTensor<X>).
bool isBackendDispatchKey(DispatchKey k);

// {ADInplaceOrView, autogradKeyOfBackend(b)} (docs/semantics.md §2.8).
KeySet autogradRelatedKeySet(BackendComponent b);
// CPU -> {AutocastCPU}, XPU -> {AutocastXPU}, CUDA and XLA -> {AutocastCUDA}, else {}.
KeySet autocastRelatedKeySet(BackendComponent b);

// The key set a tensor carries (docs/semantics.md §5.5): b = highest backend of `input`; add the autocast keys
// of b; remove {Python, PythonTLSSnapshot}; in inference mode remove the autograd keys and
// ADInplaceOrView, otherwise add autogradRelatedKeySet(b).
// tensorKeySet({CPU}) == {CPU, ADInplaceOrView, AutogradCPU, AutocastCPU}.
KeySet tensorKeySet(const KeySet& input, bool inference_mode = false);

// =============================================================================================
// Runtime table index (docs/semantics.md §3, 6.2)
// =============================================================================================

// A build flavour: an index into the flavour declarations (cmake/flavours.list, generated into
// oracle/flavour_declarations.h). Index 0 is always `full`; the others are trimmed tables.
struct Flavour {
  uint8_t index = 0;
  static const Flavour Full;
  friend constexpr bool operator==(Flavour, Flavour) = default;
};
inline constexpr Flavour Flavour::Full{0};

// Every flavour of this build, in declaration order (declared ones, then extra and drawn ones).
const std::vector<Flavour>& allFlavours();
// The flavour declared with this name; throws std::invalid_argument for an unknown name.
Flavour flavourNamed(std::string_view name);
std::string toString(Flavour f);
bool isTrimmed(Flavour f);
// Every key some trimmed flavour keeps, each once, in declaration order (Undefined first).
const std::vector<DispatchKey>& keysOfTrimmedFlavours();

// The key of every slot, in slot order.
// Full (docs/semantics.md §3.2): walk the functionalities in order; Undefined takes slot 0, a plain
// functionality one slot, a per-backend one 14 slots in backend order (106 slots).
// Trimmed (docs/semantics.md §6.2): the declared key names mapped through the model's own key
// names, Undefined first (mobile: Undefined, CPU, QuantizedCPU, SparseCPU, BackendSelect,
// ADInplaceOrView, AutogradOther, AutogradCPU).
const std::vector<DispatchKey>& tableSlots(Flavour f);
int tableSize(Flavour f);

// The slot a key set dispatches to, or -1 ("not available in this build").
// Full: no functionality -> 0; a per-backend highest functionality -> the slot of its
// instance for the highest backend, CPU if there is no backend (docs/semantics.md §3.5 quirk); a plain one
// -> its slot; unknown functionality values present -> -1 (D4).
// Trimmed: the slot of highestPriorityTypeId() in the flavour's slot list, -1 if absent (so
// {Dense}, whose type id is the "Unknown" placeholder, is -1 there but 1 on full); unknown values
// present -> -1.
int tableIndex(const KeySet& ks, Flavour f);
// tableIndex(KeySet::of(k)): aliases and Undefined give 0 (docs/semantics.md §3.5), the sentinel -1 (D5).
int tableIndex(DispatchKey k, Flavour f);

}  // namespace dispatch::model
