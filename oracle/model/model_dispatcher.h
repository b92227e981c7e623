#pragma once
// Reference model, part 2: registrations, computed table entries, fallbacks and calls
// (docs/semantics.md sections 4, 5 and 6). Plain stacks per key; computedEntry recomputes a table entry from
// the registrations each time it is asked for, so "table == recomputation" holds by construction.
// computedRow memoises one operator's entries (every slot) until that operator's registrations
// change (a fallback change recomputes only the slots it changed); calls read it, so a trace pays
// for the recomputation once per change.
//
// See oracle/model/model.h for the list of decisions taken where the spec leaves room.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/model/model_key_set.h"

namespace dispatch::model {

// =============================================================================================
// Results
// =============================================================================================

// Every successful registration gets a fresh id: 1, 2, 3, ... (never reused; a failed call
// consumes none).
using RegistrationId = int64_t;

enum class ErrorKind {
  InvalidKey,              // key outside the enum, alias where a runtime key is needed, ...
  Registration,            // duplicate def, slot taken, unknown / already dropped id
  NotFound,                // call on an operator that has no registration
  NotImplemented,          // no kernel for the key, key absent in the flavour, fallthrough run
  AmbiguousAutogradOther,  // the ambiguous AutogradOther kernel was called (docs/semantics.md §4.6)
};
std::string toString(ErrorKind k);

struct Error {
  ErrorKind kind = ErrorKind::Registration;
  std::string message;
  // For call / redispatch errors: the key the error names (docs/semantics.md §4.8). Unset for NotFound and
  // registration errors.
  std::optional<DispatchKey> key;

  bool operator==(const Error&) const = default;
};
// "NotImplemented(key=CUDA): Could not run 'op' with arguments from the 'CUDA' backend..."
std::string toString(const Error& e);
std::ostream& operator<<(std::ostream& out, const Error& e);

// Result of def / impl / fallbackDirect / fallbackLibrary: exactly one of id, error is set.
struct RegistrationResult {
  std::optional<RegistrationId> id;
  std::optional<Error> error;
  bool ok() const { return id.has_value(); }
};
std::string toString(const RegistrationResult& r);

// Result of drop: error unset on success.
struct Status {
  std::optional<Error> error;
  bool ok() const { return !error.has_value(); }
};
std::string toString(const Status& s);

// =============================================================================================
// Computed table entries (docs/semantics.md §4.4)
// =============================================================================================

enum class EntryKind { Kernel, Fallthrough, Ambiguous, Missing };
std::string toString(EntryKind k);

// Provenance tags, exactly as the real dumpComputedTable prints them (docs/semantics.md §4.4).
namespace tags {
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kDefaultBackendKernel = "default backend kernel";
inline constexpr std::string_view kNestedKernel = "nested kernel";
inline constexpr std::string_view kMathKernel = "math kernel";
inline constexpr std::string_view kAmbiguousAutogradOther = "ambiguous autogradother";
inline constexpr std::string_view kAutogradKernel = "autograd kernel";
inline constexpr std::string_view kBackendFallback = "backend fallback";
inline constexpr std::string_view kMissing = "missing";
// A key the flavour has no slot for, in c10's words (it says "mobile" for any trimmed build).
inline constexpr std::string_view kNoSlotInFlavour = "backend fallback not registered on mobile";
// Model only: computedEntry asked for a key that is neither Undefined nor a runtime key (D11).
inline constexpr std::string_view kNotARuntimeKey = "not a runtime key";
}  // namespace tags

// The debug name of the special ambiguous AutogradOther kernel (docs/semantics.md §4.6).
inline constexpr std::string_view kAmbiguousKernelName = "ambiguous_autogradother";

struct ComputedEntry {
  EntryKind kind = EntryKind::Missing;
  std::string debug;  // kernel / fallback debug name; empty when Missing
  std::string_view tag;  // one of tags::* (static text, so a view never dangles)

  bool operator==(const ComputedEntry&) const = default;
};
// "fallthrough fb [backend fallback]", "ambiguous_autogradother [ambiguous autogradother]",
// "<missing> [missing]".
std::string toString(const ComputedEntry& e);

// =============================================================================================
// Calls (docs/semantics.md §4.8, 4.9, 5.5, 5.6)
// =============================================================================================

struct CallSuccess {
  std::string kernel;  // debug name of the kernel that runs
  KeySet keys;         // the final key set passed to it (after TLS and the fallthrough mask)

  bool operator==(const CallSuccess&) const = default;
};

// Exactly one of success, error is set.
struct CallOutcome {
  std::optional<CallSuccess> success;
  std::optional<Error> error;
  bool ok() const { return success.has_value(); }

  bool operator==(const CallOutcome&) const = default;
};
// "runs cpu_kernel with {CPU}" or "error NotImplemented(key=CUDA): ...".
std::string toString(const CallOutcome& c);
std::ostream& operator<<(std::ostream& out, const CallOutcome& c);

// One occupied fallback slot.
struct FallbackSlot {
  DispatchKey key = DispatchKey::Undefined;  // the runtime key it was registered for
  std::string debug;
  bool fallthrough = false;
  RegistrationId id = 0;

  bool operator==(const FallbackSlot&) const = default;
};

// =============================================================================================
// ModelDispatcher
// =============================================================================================

// One dispatcher of one flavour. Mutating calls either succeed or return an Error and leave
// the model exactly as it was. Not thread-safe (it is an oracle).
class ModelDispatcher {
 public:
  explicit ModelDispatcher(Flavour flavour = Flavour::Full);

  Flavour flavour() const { return flavour_; }

  // ---- registration (docs/semantics.md §5.2, 5.3, 4.3) ------------------------------------------------

  // Registers the schema of `op` (a name, overload included, e.g. "aten::add.Tensor") with
  // num_args arguments. Error Registration if `op` already has a live def. Dropping the id
  // removes the schema again.
  RegistrationResult def(const std::string& op, int num_args);

  // Registers a kernel. key == nullopt is a catch-all, stored under CompositeImplicitAutograd.
  // The key must be a valid enum value and an alias key or a runtime key (not Undefined, not a
  // building block such as Dense, not a placeholder, not the sentinel): else InvalidKey.
  // Kernels on one key form a stack, newest first; dropping removes that exact registration
  // wherever it sits. A fallthrough impl gives entries of kind Fallthrough.
  RegistrationResult impl(const std::string& op, std::optional<DispatchKey> key,
                          const std::string& kernel, bool fallthrough = false);

  // Dispatcher::registerFallback: key must be a runtime key (an alias gives InvalidKey "use a
  // library fallback to expand aliases"; Undefined, building blocks, placeholders, the sentinel
  // and invalid values give InvalidKey too); tableIndex(key) < 0 in this flavour gives
  // InvalidKey; an occupied slot gives Registration.
  RegistrationResult fallbackDirect(DispatchKey key, const std::string& debug,
                                    bool fallthrough = false);

  // Library::fallback: expands key with runtimeKeysOfAlias (alias -> its runtime keys, runtime
  // key -> itself, anything else -> nothing), skips keys whose index is < 0 in this flavour,
  // and registers every remaining one, all or nothing (any occupied slot: Registration error,
  // nothing registered). An invalid enum value gives InvalidKey. The single id drops them all;
  // it may own no slot at all (e.g. key Dense anywhere, or key CUDA on mobile).
  RegistrationResult fallbackLibrary(DispatchKey key, const std::string& debug,
                                     bool fallthrough = false);

  // A library block's own registration (docs/semantics.md §5.2, the library API): the block's
  // other registrations are made after it and dropped with it. A DEF block claims its namespace
  // (claims_namespace): while it is live, a second claim of ns is a Registration error. Dropping
  // the id ends the claim.
  RegistrationResult openLibrary(const std::string& ns, bool claims_namespace);
  // Whether a live DEF block claims ns.
  bool claimsNamespace(const std::string& ns) const { return namespaces_.count(ns) > 0; }

  // Undoes one registration. An id never issued or already dropped: Registration error.
  Status drop(RegistrationId id);

  // ---- introspection ----------------------------------------------------------------------

  // An operator exists while it has at least one live def or impl registration.
  bool hasOperator(const std::string& op) const;
  bool hasSchema(const std::string& op) const;
  std::optional<int> schemaNumArgs(const std::string& op) const;
  std::vector<std::string> operatorNames() const;  // sorted
  // Live registration ids, ascending.
  std::vector<RegistrationId> liveRegistrations() const;
  // The kernel stack of (op, key), newest first, as debug names ("fallthrough " prefixed for
  // fallthrough impls). key may be an alias; a catch-all is under CIA.
  std::vector<std::string> kernelStack(const std::string& op, DispatchKey key) const;
  // c10 hasKernelForDispatchKey: the op has a direct kernel on key (runtime or alias).
  bool hasKernelForDispatchKey(const std::string& op, DispatchKey key) const;
  // The fallback in slot tableIndex(key), if that index is >= 0 and the slot is occupied.
  std::optional<FallbackSlot> fallbackFor(DispatchKey key) const;
  // All occupied slots: slot index -> fallback.
  const std::map<int, FallbackSlot>& fallbackSlots() const { return fallbacks_; }

  // The entry computeDispatchTableEntryWithDebug(k) gives for `op` (docs/semantics.md §4.4); k must be
  // Undefined or a runtime key (else Missing / tags::kNotARuntimeKey). An operator that does
  // not exist is treated as one without kernels (only fallbacks apply).
  ComputedEntry computedEntry(const std::string& op, DispatchKey k) const;

  // One operator's table as computedEntry gives it: entry i is computedEntry(op,
  // tableSlots(flavour)[i]), Missing entries included. Memoised: forgotten when the operator's
  // registrations change (recomputed on the next request); a fallback change recomputes, in
  // every memoised row, the entries of the slots it changed (the only entries that read them).
  using ComputedRow = std::vector<ComputedEntry>;
  const ComputedRow& computedRow(const std::string& op) const;
  // The same row computed from scratch, bypassing the memo (what a full check compares with).
  ComputedRow recomputedRow(const std::string& op) const;

  // For Undefined, then every runtime key of FULL in ascending priority, skipping keys whose
  // index is < 0 in this flavour and entries of kind Missing, one line
  // "<Key>: [fallthrough ]<debug> [<tag>]\n" (docs/semantics.md §4.8).
  std::string dumpComputedTable(const std::string& op) const;
  // The same text for a row given in tableSlots order (e.g. entries computed just before).
  std::string dumpRow(const ComputedRow& row) const;
  // Dispatcher::dumpFallbacks: "<Key>: [fallthrough ]<debug>\n" for every occupied slot, keys in
  // ascending priority.
  std::string dumpFallbacks() const;

  // The fallthrough mask used for a call whose argument set has backend index b (docs/semantics.md §4.9):
  // FULL minus every plain functionality whose entry is a Fallthrough, minus every per-backend
  // functionality F whose entry for F's instance on backend b+1 is a Fallthrough. Keys absent
  // in this flavour (index < 0) are never removed.
  KeySet nonFallthroughMask(const std::string& op, int backend_index) const;

  // ((args | included) - excluded) & nonFallthroughMask(op, args.getBackendIndex()).
  // The backend index comes from the ARGUMENT set alone, before TLS (1.13 quirk, #141581).
  KeySet finalKeySet(const std::string& op, const KeySet& args, const KeySet& tls_included,
                     const KeySet& tls_excluded) const;

  // Dispatcher::call (docs/semantics.md §4.8, 4.9, 5.5): NotFound if the op does not exist; otherwise
  // final = finalKeySet(...), then lookup(final) as in redispatch.
  CallOutcome call(const std::string& op, const KeySet& args, const KeySet& tls_included,
                   const KeySet& tls_excluded) const;
  // call with the default TLS (defaultIncludedSet(), defaultExcludedSet()).
  CallOutcome call(const std::string& op, const KeySet& args) const;

  // Dispatcher::redispatch (docs/semantics.md §5.6): the lookup on ks exactly as given (no TLS, no mask):
  //   NotFound if the op does not exist;
  //   idx = tableIndex(ks) < 0       -> NotImplemented, key highestPriorityTypeId(ks);
  //   entry of tableSlots()[idx]:
  //     Missing                      -> NotImplemented, key highestPriorityTypeId(ks), or the
  //                                     "no tensor arguments" variant with key Undefined when
  //                                     that type id is Undefined (D12);
  //     Ambiguous                    -> AmbiguousAutogradOther, key AutogradOther;
  //     Fallthrough                  -> NotImplemented "fallthrough kernel called" (D13);
  //     Kernel                       -> success {debug, ks}.
  CallOutcome redispatch(const std::string& op, const KeySet& ks) const;

  // Readable dump of everything: operators (schema, kernel stacks per key) and fallbacks.
  std::string dumpState() const;

 private:
  struct Kernel {
    RegistrationId id = 0;
    std::string debug;
    bool fallthrough = false;
  };
  struct Operator {
    std::optional<int> num_args;                // the schema, if defined
    std::optional<RegistrationId> def_id;       // the live def
    // One kernel stack per key value (runtime and alias keys; a catch-all is under CIA), newest
    // first, empty where the key has no kernel: looked up by key, never searched.
    std::vector<std::vector<Kernel>> kernels;
  };
  enum class RegKind { Def, Impl, Fallback, Library };
  struct Registration {
    RegKind kind = RegKind::Def;
    std::string op;                       // Def, Impl; Library: the namespace it claims, if any
    DispatchKey key = DispatchKey::Undefined;  // Impl: storage key (CIA for a catch-all)
    std::vector<int> slots;               // Fallback: the slots it owns
  };

  const Operator* findOp(const std::string& op) const;
  Operator& findOrCreateOp(const std::string& op);
  // The kernel stack of key on op, newest first; empty for a null op or a value outside the enum.
  static const std::vector<Kernel>& stackOf(const Operator* op, DispatchKey key) {
    const auto value = static_cast<size_t>(toUnderlying(key));
    return op != nullptr && value < op->kernels.size() ? op->kernels[value] : kNoKernels;
  }
  static const std::vector<Kernel> kNoKernels;
  // computedEntry of an operator already looked up (nullptr: one without kernels).
  ComputedEntry entryOf(const Operator* op, DispatchKey k) const;
  bool hasAliasKernel(const Operator* op, DispatchKey alias) const;
  const Kernel& front(const Operator* op, DispatchKey key) const;
  // hasKernelForAnyDispatchKey(ks), asked of runtime_keys = ks.runtimeKeys().
  bool hasKernelForAnyDispatchKey(const Operator* op, const std::vector<DispatchKey>& runtime_keys) const;
  ComputedEntry fromKernel(const Kernel& k, std::string_view tag) const;
  RegistrationResult registerFallbacks(const std::vector<DispatchKey>& keys,
                                       const std::string& debug, bool fallthrough);
  CallOutcome lookup(const std::string& op, const KeySet& ks) const;
  // After a fallback change: recomputes the entries of these slots in every memoised row.
  void refreshSlots(const std::vector<int>& slots);

  Flavour flavour_;
  RegistrationId next_id_ = 1;
  std::map<std::string, Operator> ops_;
  std::map<RegistrationId, Registration> registrations_;  // live ones only
  std::map<int, FallbackSlot> fallbacks_;                  // slot -> fallback
  std::map<std::string, RegistrationId> namespaces_;       // claimed by a live DEF block
  mutable std::map<std::string, ComputedRow> rows_;        // computedRow's memo
};

// Registers, with fallbackLibrary, the fallbacks PyTorch 1.13 installs at start-up (docs/semantics.md §5.3):
// fallthroughs for AutogradOther, AutogradCPU, AutogradXPU, AutogradCUDA, AutogradXLA,
// AutogradLazy, AutogradMPS, AutogradHPU, ADInplaceOrView, BackendSelect, VmapMode,
// FuncTorchVmapMode, AutocastCUDA, AutocastCPU (debug name "<Key>_fallthrough"), and real
// fallbacks for Named, Conjugate, Negative, ZeroTensor, Functionalize, Batched,
// FuncTorchBatched, FuncTorchDynamicLayerFrontMode, FuncTorchDynamicLayerBackMode,
// FuncTorchGradWrapper, Python, PythonDispatcher, PythonTLSSnapshot, Tracer (debug name
// "<Key>_fallback"). Keys absent in the flavour are skipped. Returns the ids, one per key.
// Precondition: none of those slots is occupied.
std::vector<RegistrationId> registerStartupFallbacks(ModelDispatcher& d);

}  // namespace dispatch::model
