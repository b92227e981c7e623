#pragma once
// One operator's registrations and its dispatch table (docs/semantics.md §4).

#include <array>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/kernel_function.h"
#include "dispatch/key_sets.h"
#include "dispatch/local_dispatch_key_set.h"
#include "dispatch/table_layout.h"

namespace dispatch {

// Why a table entry holds what it holds; the strings are what dumpComputedTable prints.
enum class EntryTag : uint8_t {
  Kernel,                  // "kernel"
  DefaultBackendKernel,    // "default backend kernel" (CEANF or CEA)
  NestedKernel,            // "nested kernel" (CIA-NestedTensor)
  MathKernel,              // "math kernel" (CIA)
  AmbiguousAutogradOther,  // "ambiguous autogradother"
  AutogradKernel,          // "autograd kernel"
  BackendFallback,         // "backend fallback"
  Missing,                 // "missing"
  MissingInFlavour,        // the flavour has no slot for the key; c10's text for it (trimmed
                           // builds): "backend fallback not registered on mobile"
};
std::string_view toString(EntryTag tag) noexcept;

// The backend fallbacks of a dispatcher, indexed like every operator's table. See Note
// [Fallback Table] in dispatcher.h.
template <class L>
using FallbackTable = std::array<const BasicAnnotatedKernel<L>*, static_cast<size_t>(L::kNumEntries)>;

template <class L>
struct ComputedEntry {
  const BasicAnnotatedKernel<L>* kernel;  // nullptr: missing
  EntryTag tag;
};

// Note [Table Equals Recomputation]
// Every slot always equals computeDispatchTableEntry() of its key, for every registration order
// (we deliberately fix 1.13.1's partial propagation, docs/semantics.md §4.5). A kernel
// (de)registration on key K refreshes the slots K can move, by the steps of docs/semantics.md
// §4.4 that read K's kernel list (the rules: src/slot_dependencies.h), and the fallthrough masks
// of the slots that changed; a fallback change recomputes only its own slot, which is exact
// because compute(k) reads the fallback of index(k) alone, and only when steps 1-7 of §4.4
// found nothing, which the stored tag of the slot records. A new entry has no kernels, so its
// row is the fallbacks.
// The whole-row recomputation stays as the check: sanitizer and fuzz builds compare the row
// with it (checkInvariants) after every registration, drop and fallback change
// (DISPATCH_CHECK_TABLE_REFRESH, dispatch/CMakeLists.txt).

// Note [Lock-free Calls]
// Mutations run under the dispatcher's mutex; calls take no lock. Everything a call reads is
// atomic (table slots, fallthrough masks, the dispatch-argument bitset) and points only to
// immutable kernels that are never freed while the dispatcher lives (dropped ones are retired,
// not deleted), so a call racing a registration sees the old or the new kernel, never a torn one.
// Unit tests corrupt an entry's private state through this to prove checkInvariants() sees it.
struct OperatorEntryTestPeer;

template <class L>
class BasicOperatorEntry {
 public:
  using AnnotatedKernel = BasicAnnotatedKernel<L>;
  using KernelFunction = BasicKernelFunction<L>;
  using KernelList = std::list<AnnotatedKernel>;
  using KernelHandle = typename KernelList::iterator;
  using Fallbacks = FallbackTable<L>;

  explicit BasicOperatorEntry(OperatorName name, const Fallbacks& fallbacks);
  BasicOperatorEntry(const BasicOperatorEntry&) = delete;
  BasicOperatorEntry& operator=(const BasicOperatorEntry&) = delete;

  const OperatorName& operatorName() const noexcept { return cold_->name; }
  const std::string& operatorNameString() const noexcept { return cold_->name_string; }
  bool hasSchema() const noexcept { return schema_.load(std::memory_order_acquire) != nullptr; }
  // Throws OperatorNotFoundError when the operator has no schema.
  const FunctionSchema& schema() const;
  const std::string& schemaDebug() const;
  // Lock-free; schemas are never freed while the dispatcher lives.
  const FunctionSchema* schemaOrNull() const noexcept {
    const SchemaRecord* record = schema_.load(std::memory_order_acquire);
    return record != nullptr ? &record->schema : nullptr;
  }

  // --- mutations: the caller holds the dispatcher's mutex ---
  // Each registration has a const check, which returns the refusal (Schema, SignatureMismatch),
  // and a mutation that assumes the check passed: the dispatcher runs every check before its
  // first change, so a refusal costs one check and changes nothing. A new entry has no kernels
  // and no schema, so it accepts any of both.
  std::optional<Refusal> checkSchema(const FunctionSchema& schema, const std::string& debug) const;
  void registerSchema(FunctionSchema schema, std::string debug);
  void deregisterSchema();
  // key == nullopt is a catch-all, stored under CompositeImplicitAutograd.
  std::optional<Refusal> checkKernel(std::optional<DispatchKey> key,
                                     const std::optional<CppSignature>& cpp_signature,
                                     const std::optional<FunctionSchema>& inferred_schema,
                                     const std::string& debug) const;
  KernelHandle registerKernel(const Fallbacks& fallbacks, std::optional<DispatchKey> key,
                              KernelFunction kernel, std::optional<CppSignature> cpp_signature,
                              std::optional<FunctionSchema> inferred_schema, std::string debug);
  void deregisterKernel(const Fallbacks& fallbacks, std::optional<DispatchKey> key,
                        KernelHandle handle);
  // The fallback of key k changed (k has a slot in this layout).
  void updateFallback(const Fallbacks& fallbacks, DispatchKey k);

  // --- the call path: lock-free ---
  // ((args | tls included) - tls excluded) & the fallthrough mask of the arguments' backend.
  // The result never has bit 63 set (every mask is a subset of FULL).
  DispatchKeySet computeDispatchKeySet(DispatchKeySet args) const noexcept {
    const uint64_t mask =
        non_fallthrough_per_backend_[L::fallthroughMaskOf(args.raw_repr())].load(
            std::memory_order_relaxed);
    return applyTlsToArgs(args) & DispatchKeySet(DispatchKeySet::RAW, mask);
  }
  uint64_t dispatchArgBitset() const noexcept {
    return dispatch_arg_bitset_.load(std::memory_order_relaxed);
  }
  // Note [Missing Kernel]
  // The kernel for a final key set. Never null: an empty slot, and the sentinel slot of keys
  // without one, hold missingKernel(), a boxed kernel that throws NotImplementedError
  // (reportError), so the call path has no null or range test besides the unboxed one.
  const AnnotatedKernel& lookup(DispatchKeySet ks) const noexcept {
    return *table_[L::slotOf(ks)].load(std::memory_order_acquire);
  }
  // lookup() of a set computeDispatchKeySet returned (bit 63 clear): one instruction less.
  const AnnotatedKernel& lookupComputed(DispatchKeySet ks) const noexcept {
    return *table_[L::slotOfBelowBit63(ks)].load(std::memory_order_acquire);
  }
  static const AnnotatedKernel& missingKernel() noexcept;
  // Throws the NotImplementedError of a call that found no kernel for ks.
  [[noreturn]] void reportError(DispatchKeySet ks) const;

  // --- introspection (caller holds the mutex unless noted) ---
  ComputedEntry<L> computeDispatchTableEntry(const Fallbacks& fallbacks, DispatchKey k) const;
  // Recomputed from scratch (docs/semantics.md §4.8); one line per valid entry.
  std::string dumpComputedTable(const Fallbacks& fallbacks) const;
  // The same format, read from the live table and its tags.
  std::string dumpDispatchTable() const;
  // The tag of k's live slot (why it holds what lookup() returns for k), as dumpDispatchTable
  // prints it; nullopt when k is not Undefined or a runtime key with a slot in this flavour.
  std::optional<EntryTag> liveTag(DispatchKey k) const;
  std::string dumpState() const;
  // Throws InternalError naming the first violated invariant.
  void checkInvariants(const Fallbacks& fallbacks) const;
  // Runtime keys whose table entry is valid (lock-free).
  std::vector<DispatchKey> listAllDispatchKeys() const;
  bool hasKernelForDispatchKey(DispatchKey k) const;
  bool hasKernelForAnyDispatchKey(DispatchKeySet ks) const;
  // The newest kernel registered directly for k; throws NotImplementedError if there is none.
  const AnnotatedKernel& kernelForDispatchKeyAnnotated(DispatchKey k) const;
  const KernelFunction& kernelForDispatchKey(DispatchKey k) const {
    return kernelForDispatchKeyAnnotated(k).kernel;
  }
  bool hasComputedKernelForDispatchKey(DispatchKey k) const;
  const std::optional<CppSignature>& cppSignature() const noexcept { return cold_->cpp_signature; }
  // c10's "wrong signature" error for a typed() whose signature differs from cppSignature().
  [[noreturn]] void reportSignatureError(const CppSignature& call_signature) const;
  // Bytes this entry owns: the object plus its heap (kernel lists, schema, names).
  size_t memoryFootprint() const;

 private:
  struct SchemaRecord {
    FunctionSchema schema;
    std::string debug;
  };
  struct KernelSummary;

  KernelSummary summarize() const;
  // index: L::indexOf(k), which the callers walking the slots already know.
  ComputedEntry<L> compute(const KernelSummary& summary, const Fallbacks& fallbacks,
                           DispatchKey k, int index) const;
  ComputedEntry<L> compute(const KernelSummary& summary, const Fallbacks& fallbacks,
                           DispatchKey k) const;
  // key: as registerKernel and deregisterKernel got it; change: "registering" or "dropping".
  void updateAfterKernelChange(const Fallbacks& fallbacks, std::optional<DispatchKey> key,
                               std::string_view change);
  // Recomputes one slot and, if its fallthrough-ness changed, the masks' bit for it.
  void refreshSlot(const KernelSummary& summary, const Fallbacks& fallbacks, DispatchKey k,
                   int index);
  // In DISPATCH_CHECK_TABLE_REFRESH builds, checkInvariants() after a change, its InternalError
  // naming the change; elsewhere nothing.
  void checkRefreshedRow(const Fallbacks& fallbacks, std::string_view change) const;
  void setEntry(int index, ComputedEntry<L> entry);
  void rebuildFallthroughMasks();
  void setFallthroughForKey(DispatchKey k, bool is_fallthrough);
  // Throws the InternalError naming the first key whose entry backend b's mask gets wrong.
  [[noreturn]] void reportFallthroughMaskViolation(size_t b, uint64_t mask_bits) const;
  std::optional<Refusal> checkSignature(const CppSignature& signature, std::optional<DispatchKey> key,
                                        const std::string& debug) const;
  // "schema\n    its debug", or "name\n    <no_schema>": the operator in signature errors.
  std::string operatorForSignatureError(std::string_view no_schema) const;
  // The table slot at index, nullptr for missingKernel().
  const AnnotatedKernel* loadSlot(int index,
                                  std::memory_order order = std::memory_order_acquire) const {
    const AnnotatedKernel* kernel = table_[static_cast<size_t>(index)].load(order);
    return kernel == &missingKernel() ? nullptr : kernel;
  }

  // Registration-side state nothing on the call path reads, on the heap: the entry itself is
  // what calls read, sized by the layout (Note [Entry Size]).
  struct Cold {
    OperatorName name;
    std::string name_string;
    std::list<SchemaRecord> schemas;            // every schema ever set, kept for in-flight calls
    KernelList retired_kernels;                 // dropped, kept alive for in-flight calls
    std::optional<CppSignature> cpp_signature;  // first one seen; never forgotten
    std::string cpp_signature_debug;
    std::optional<DispatchKey> cpp_signature_key;  // the key it was registered for
  };

  std::atomic<const SchemaRecord*> schema_{nullptr};
  std::atomic<uint64_t> dispatch_arg_bitset_{0};
  std::unique_ptr<Cold> cold_;

  // Note [Entry Size]
  // The state the call path reads (Note [Lock-free Calls]): the table plus its always-missing
  // sentinel slot, and one fallthrough mask per backend that has per-backend slots (mobile: 2).
  std::array<std::atomic<const AnnotatedKernel*>, static_cast<size_t>(L::kNumEntries) + 1> table_{};
  std::array<std::atomic<uint64_t>, static_cast<size_t>(L::kNumFallthroughMasks)>
      non_fallthrough_per_backend_{};
  std::array<EntryTag, static_cast<size_t>(L::kNumEntries)> tags_{};

  std::map<DispatchKey, KernelList> kernels_;  // newest first; keys are runtime or alias keys

  friend struct OperatorEntryTestPeer;
};

#define DISPATCH_DETAIL_EXTERN_ENTRY(L) extern template class BasicOperatorEntry<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_EXTERN_ENTRY)
#undef DISPATCH_DETAIL_EXTERN_ENTRY

}  // namespace dispatch
