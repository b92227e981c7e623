#include "dispatch/operator_entry.h"

#include "dispatch/dispatcher.h"
#include "operator_entry_internal.h"
#include "slot_dependencies.h"

namespace dispatch {

std::string_view toString(EntryTag tag) noexcept {
  switch (tag) {
    case EntryTag::Kernel: return "kernel";
    case EntryTag::DefaultBackendKernel: return "default backend kernel";
    case EntryTag::NestedKernel: return "nested kernel";
    case EntryTag::MathKernel: return "math kernel";
    case EntryTag::AmbiguousAutogradOther: return "ambiguous autogradother";
    case EntryTag::AutogradKernel: return "autograd kernel";
    case EntryTag::BackendFallback: return "backend fallback";
    case EntryTag::Missing: return "missing";
    case EntryTag::MissingInFlavour: return "backend fallback not registered on mobile";
  }
  return "?";
}

namespace {

// Steps 1-7 of docs/semantics.md §4.4 found a kernel; a fallback change cannot alter such a slot.
bool decidedBeforeFallback(EntryTag tag) {
  return tag != EntryTag::BackendFallback && tag != EntryTag::Missing &&
         tag != EntryTag::MissingInFlavour;
}

// Steps 8 and 9 of docs/semantics.md §4.4 for a key with slot index (>= 0).
template <class L>
ComputedEntry<L> fallbackEntry(const FallbackTable<L>& fallbacks, int index) {
  if (const auto* fallback = fallbacks[static_cast<size_t>(index)]) {
    return {fallback, EntryTag::BackendFallback};
  }
  return {nullptr, EntryTag::Missing};
}

// c10's text for a kernel whose inferred schema differs from the def's, plus the key the kernel
// is stored under (a catch-all's is CompositeImplicitAutograd): registerSchema only knows that
// one, and the text must not depend on which of def and impl came first.
std::optional<Refusal> checkInferredSchema(const std::string& op_name, const FunctionSchema& from_def,
                                           const std::string& def_debug, const FunctionSchema& inferred,
                                           const std::string& kernel_debug, DispatchKey stored_under) {
  const auto difference = findSchemaDifferences(from_def, inferred);
  DISPATCH_REFUSE_UNLESS(!difference, SchemaError,
                 "Inferred operator schema for a C++ kernel function doesn't match the expected "
                 "function schema.\n  operator: ",
                 op_name, "\n  expected schema: ", from_def, "\n    ", def_debug,
                 "\n  inferred schema: ", inferred, "\n    ", kernel_debug, " (dispatch key ",
                 stored_under, ")\n  reason: ", *difference);
  return std::nullopt;
}

// c10's name for a registration's key in signature errors.
std::string_view keyOrCatchAll(std::optional<DispatchKey> key) {
  return key ? toString(*key) : std::string_view("(catch all)");
}

template <class L>
const BasicAnnotatedKernel<L>& ambiguousAutogradOtherKernel() {
  static const BasicAnnotatedKernel<L> kernel{
      BasicKernelFunction<L>::makeAmbiguousAutogradOther(), std::nullopt,
      "ambiguous_autogradother"};
  return kernel;
}

template <class L>
void missingKernelEntry(const BasicOperatorHandle<L>& op, DispatchKeySet ks, Stack*) {
  op.entry().reportError(ks);
}

}  // namespace

template <class L>
const BasicAnnotatedKernel<L>& BasicOperatorEntry<L>::missingKernel() noexcept {
  static const BasicAnnotatedKernel<L> kernel{
      BasicKernelFunction<L>::template makeFromBoxedFunction<&missingKernelEntry<L>>(),
      std::nullopt, "missing kernel"};
  return kernel;
}

template <class L>
BasicOperatorEntry<L>::BasicOperatorEntry(OperatorName name, const Fallbacks& fallbacks)
    : cold_(std::make_unique<Cold>()) {
  cold_->name = std::move(name);
  cold_->name_string = toString(cold_->name);
  for (auto& slot : table_) slot.store(&missingKernel(), std::memory_order_relaxed);
  for (auto& mask : non_fallthrough_per_backend_) {
    mask.store(DispatchKeySet(DispatchKeySet::FULL).raw_repr(), std::memory_order_relaxed);
  }
  // No kernels yet, so only steps 8 and 9 of docs/semantics.md §4.4 apply: every slot holds the
  // fallback registered before this operator existed, or nothing.
  for (const detail::SlotKey& slot : detail::slotKeys<L>()) {
    setEntry(slot.index, fallbackEntry(fallbacks, slot.index));
  }
  rebuildFallthroughMasks();
  if constexpr (detail::kCheckTableRefresh) checkRefreshedRow(fallbacks, "creating the operator");
}

template <class L>
const FunctionSchema& BasicOperatorEntry<L>::schema() const {
  const SchemaRecord* record = schema_.load(std::memory_order_acquire);
  DISPATCH_CHECK(record != nullptr, OperatorNotFoundError, "operator '", cold_->name_string,
                 "' has no schema; did you forget to def() it?");
  return record->schema;
}

template <class L>
const std::string& BasicOperatorEntry<L>::schemaDebug() const {
  static const std::string none;
  const SchemaRecord* record = schema_.load(std::memory_order_acquire);
  return record != nullptr ? record->debug : none;
}

template <class L>
std::optional<Refusal> BasicOperatorEntry<L>::checkSchema(const FunctionSchema& schema,
                                                          const std::string& debug) const {
  DISPATCH_REFUSE_UNLESS(schema.name == cold_->name, SchemaError, "schema name '", toString(schema.name),
                         "' does not match operator '", cold_->name_string, "'");
  for (const auto& [key, kernels] : kernels_) {
    for (const auto& kernel : kernels) {
      if (!kernel.inferred_schema) continue;
      if (auto refusal = checkInferredSchema(cold_->name_string, schema, debug, *kernel.inferred_schema,
                                             kernel.debug, key)) {
        return refusal;
      }
    }
  }
  return std::nullopt;
}

template <class L>
void BasicOperatorEntry<L>::registerSchema(FunctionSchema schema, std::string debug) {
  DISPATCH_INTERNAL_ASSERT(!hasSchema(), "operator ", cold_->name_string, " already has a schema");
  dispatch_arg_bitset_.store(::dispatch::dispatchArgBitset(schema), std::memory_order_relaxed);
  cold_->schemas.push_back({std::move(schema), std::move(debug)});
  schema_.store(&cold_->schemas.back(), std::memory_order_release);
}

template <class L>
void BasicOperatorEntry<L>::deregisterSchema() {
  DISPATCH_INTERNAL_ASSERT(hasSchema(), "operator ", cold_->name_string, " has no schema to drop");
  schema_.store(nullptr, std::memory_order_release);
  dispatch_arg_bitset_.store(0, std::memory_order_relaxed);
}

template <class L>
std::string BasicOperatorEntry<L>::operatorForSignatureError(std::string_view no_schema) const {
  const SchemaRecord* record = schema_.load(std::memory_order_acquire);
  return record != nullptr ? detail::concat(record->schema, "\n    ", record->debug)
                           : detail::concat(cold_->name_string, "\n    ", no_schema);
}

template <class L>
std::optional<Refusal> BasicOperatorEntry<L>::checkSignature(const CppSignature& signature,
                                                             std::optional<DispatchKey> key,
                                                             const std::string& debug) const {
  if (!cold_->cpp_signature) return std::nullopt;
  DISPATCH_REFUSE_UNLESS(*cold_->cpp_signature == signature, SignatureMismatchError,
                 "\nMismatch in kernel C++ signatures\n  operator: ",
                 operatorForSignatureError("no debug info"), "\n  kernel 1: ",
                 cold_->cpp_signature->name(),
                 "\n    dispatch key: ", keyOrCatchAll(cold_->cpp_signature_key),
                 "\n    ", cold_->cpp_signature_debug, "\n  kernel 2: ", signature.name(),
                 "\n    dispatch key: ", keyOrCatchAll(key), "\n    ", debug, "\n");
  return std::nullopt;
}

template <class L>
void BasicOperatorEntry<L>::reportSignatureError(const CppSignature& call_signature) const {
  DISPATCH_INTERNAL_ASSERT(cold_->cpp_signature && !(*cold_->cpp_signature == call_signature),
                           cold_->name_string,
                           ": reportSignatureError without a mismatch");
  throw SignatureMismatchError(detail::concat(
      "\nTried to access or call an operator with a wrong signature.\n  operator: ",
      operatorForSignatureError("unknown debug info"),
      "\n  correct signature:  ", cold_->cpp_signature->name(), "\n    ",
      cold_->cpp_signature_debug,
      "\n  accessed/called as: ", call_signature.name(),
      "\nThis likely happened in a call to OperatorHandle::typed<Return (Args...)>(). Please "
      "make sure that the function signature matches the signature in the operator "
      "registration call."));
}

template <class L>
std::optional<Refusal> BasicOperatorEntry<L>::checkKernel(
    std::optional<DispatchKey> key, const std::optional<CppSignature>& cpp_signature,
    const std::optional<FunctionSchema>& inferred_schema, const std::string& debug) const {
  if (cpp_signature) {
    if (auto refusal = checkSignature(*cpp_signature, key, debug)) return refusal;
  }
  if (inferred_schema && hasSchema()) {
    return checkInferredSchema(cold_->name_string, schema(), schemaDebug(), *inferred_schema, debug,
                               key.value_or(DispatchKey::CompositeImplicitAutograd));
  }
  return std::nullopt;
}

template <class L>
typename BasicOperatorEntry<L>::KernelHandle BasicOperatorEntry<L>::registerKernel(
    const Fallbacks& fallbacks, std::optional<DispatchKey> key, KernelFunction kernel,
    std::optional<CppSignature> cpp_signature, std::optional<FunctionSchema> inferred_schema,
    std::string debug) {
  const DispatchKey list_key = key.value_or(DispatchKey::CompositeImplicitAutograd);
  if (cpp_signature && !cold_->cpp_signature) {
    cold_->cpp_signature = std::move(cpp_signature);
    cold_->cpp_signature_debug = debug;
    cold_->cpp_signature_key = key;
  }
  KernelList& list = kernels_[list_key];
  // Overriding is allowed and silent here: the newest registration wins (docs/semantics.md §4.3 step 4).
  list.push_front(AnnotatedKernel{std::move(kernel), std::move(inferred_schema), std::move(debug)});
  updateAfterKernelChange(fallbacks, key, "registering");
  return list.begin();
}

template <class L>
void BasicOperatorEntry<L>::deregisterKernel(const Fallbacks& fallbacks,
                                             std::optional<DispatchKey> key,
                                             KernelHandle handle) {
  const DispatchKey list_key = key.value_or(DispatchKey::CompositeImplicitAutograd);
  auto found = kernels_.find(list_key);
  DISPATCH_INTERNAL_ASSERT(found != kernels_.end(), "no kernel list for ", list_key, " on ",
                           cold_->name_string);
  KernelList& list = found->second;
  // Retire, don't free: a concurrent call may still be running this kernel.
  cold_->retired_kernels.splice(cold_->retired_kernels.end(), list, handle);
  if (list.empty()) kernels_.erase(found);
  updateAfterKernelChange(fallbacks, key, "dropping");
}

template <class L>
void BasicOperatorEntry<L>::updateAfterKernelChange(const Fallbacks& fallbacks,
                                                    std::optional<DispatchKey> key,
                                                    std::string_view change) {
  // Only the slots the change can move (Note [Table Equals Recomputation]).
  const DispatchKey list_key = key.value_or(DispatchKey::CompositeImplicitAutograd);
  const auto& dependencies = detail::SlotDependencies<L>::get();
  const KernelSummary summary = summarize();
  for (const auto& [k, index] : dependencies.movedBy(list_key)) {
    refreshSlot(summary, fallbacks, k, index);
  }
  if (list_key == DispatchKey::CompositeExplicitAutograd && summary.cia != nullptr) {
    for (const auto& [k, index] : dependencies.movedByCeaBesideCia()) {
      refreshSlot(summary, fallbacks, k, index);
    }
  }
  if constexpr (detail::kCheckTableRefresh) {
    checkRefreshedRow(fallbacks, detail::concat(change, " a kernel for ", keyOrCatchAll(key)));
  }
}

template <class L>
void BasicOperatorEntry<L>::refreshSlot(const KernelSummary& summary, const Fallbacks& fallbacks,
                                        DispatchKey k, int index) {
  const AnnotatedKernel* before = loadSlot(index, std::memory_order_relaxed);
  const ComputedEntry<L> entry = compute(summary, fallbacks, k, index);
  setEntry(index, entry);
  // The masks follow the slot (Note [Fallthrough Masks]); Undefined has no bit in them.
  const bool was_fallthrough = before != nullptr && before->kernel.isFallthrough();
  const bool is_fallthrough = entry.kernel != nullptr && entry.kernel->kernel.isFallthrough();
  if (was_fallthrough != is_fallthrough && k != DispatchKey::Undefined) {
    setFallthroughForKey(k, is_fallthrough);
  }
}

template <class L>
typename BasicOperatorEntry<L>::KernelSummary BasicOperatorEntry<L>::summarize() const {
  KernelSummary summary;
  summary.kernels = &kernels_;
  // The alias keys end the enum, so their lists end the map.
  for (auto it = kernels_.lower_bound(DispatchKey::StartOfAliasKeys); it != kernels_.end(); ++it) {
    const AnnotatedKernel* front = &it->second.front();
    switch (it->first) {
      case DispatchKey::CompositeImplicitAutograd: summary.cia = front; break;
      case DispatchKey::CompositeImplicitAutogradNestedTensor: summary.cia_nested = front; break;
      case DispatchKey::CompositeExplicitAutograd: summary.cea = front; break;
      case DispatchKey::CompositeExplicitAutogradNonFunctional: summary.ceanf = front; break;
      case DispatchKey::Autograd: summary.autograd = front; break;
      default: break;
    }
  }
  return summary;
}

// docs/semantics.md §4.4, step by step; the first step that applies wins.
template <class L>
ComputedEntry<L> BasicOperatorEntry<L>::compute(const KernelSummary& summary,
                                                const Fallbacks& fallbacks, DispatchKey k,
                                                int index) const {
  const bool undefined = k == DispatchKey::Undefined;
  // 1. A kernel registered for k itself.
  if (auto direct = kernels_.find(k); direct != kernels_.end()) {
    return {&direct->second.front(), EntryTag::Kernel};
  }
  // 2, 3. CompositeExplicitAutogradNonFunctional, then CompositeExplicitAutograd.
  if (summary.ceanf &&
      (undefined || isIncludedInAlias(k, DispatchKey::CompositeExplicitAutogradNonFunctional))) {
    return {summary.ceanf, EntryTag::DefaultBackendKernel};
  }
  if (summary.cea && (undefined || isIncludedInAlias(k, DispatchKey::CompositeExplicitAutograd))) {
    return {summary.cea, EntryTag::DefaultBackendKernel};
  }
  // 4. A backend kernel (or any CEA kernel) makes CIA step aside. Only step 6 reads it: without
  // a CIA kernel the key-set walk is skipped (it was a tenth of a row recomputation).
  const bool has_backend_kernel =
      summary.cia != nullptr &&
      (summary.cea != nullptr || summary.anyKernelIn(getBackendKeySetFromAutograd(k)));
  // 5. CompositeImplicitAutogradNestedTensor.
  if (summary.cia_nested && !undefined &&
      isIncludedInAlias(k, DispatchKey::CompositeImplicitAutogradNestedTensor)) {
    return {summary.cia_nested, EntryTag::NestedKernel};
  }
  // 6. CompositeImplicitAutograd, with the AutogradOther ambiguity (docs/semantics.md §4.6).
  if (summary.cia && (undefined || isIncludedInAlias(k, DispatchKey::CompositeImplicitAutograd))) {
    if (k == DispatchKey::AutogradOther && summary.anyKernelIn(autogradother_backends)) {
      return {&ambiguousAutogradOtherKernel<L>(), EntryTag::AmbiguousAutogradOther};
    }
    if (!has_backend_kernel) return {summary.cia, EntryTag::MathKernel};
  }
  // 7. The Autograd alias.
  if (summary.autograd && isIncludedInAlias(k, DispatchKey::Autograd)) {
    return {summary.autograd, EntryTag::AutogradKernel};
  }
  // 8. The backend fallback of k's slot; keys without a slot have none. 9. Nothing.
  if (index < 0) return {nullptr, EntryTag::MissingInFlavour};
  return fallbackEntry(fallbacks, index);
}

template <class L>
ComputedEntry<L> BasicOperatorEntry<L>::compute(const KernelSummary& summary,
                                                const Fallbacks& fallbacks,
                                                DispatchKey k) const {
  return compute(summary, fallbacks, k, L::indexOf(k));
}

template <class L>
ComputedEntry<L> BasicOperatorEntry<L>::computeDispatchTableEntry(const Fallbacks& fallbacks,
                                                                  DispatchKey k) const {
  return compute(summarize(), fallbacks, k);
}

template <class L>
void BasicOperatorEntry<L>::setEntry(int index, ComputedEntry<L> entry) {
  tags_[static_cast<size_t>(index)] = entry.tag;
  table_[static_cast<size_t>(index)].store(entry.kernel ? entry.kernel : &missingKernel(),
                                           std::memory_order_release);
}

template <class L>
void BasicOperatorEntry<L>::updateFallback(const Fallbacks& fallbacks, DispatchKey k) {
  const int index = L::indexOf(k);
  if (index >= 0 && !decidedBeforeFallback(tags_[static_cast<size_t>(index)])) {
    setEntry(index, fallbackEntry(fallbacks, index));
    const auto* kernel = loadSlot(index, std::memory_order_relaxed);
    setFallthroughForKey(k, kernel != nullptr && kernel->kernel.isFallthrough());
  }
  if constexpr (detail::kCheckTableRefresh) {
    checkRefreshedRow(fallbacks, detail::concat("changing the backend fallback of ", k));
  }
}

// Note [Fallthrough Masks]
// A key whose entry is a fallthrough is masked out of the call's key set before lookup (spec
// 4.9). Plain keys are masked for every backend; a per-backend key only in the mask of its own
// backend, chosen at call time by the arguments' highest backend (before TLS, like 1.13). c10
// also keeps a global mask for when all per-backend masks agree; it then equals any of them, so
// we always use the per-backend one. Keys without a slot are never masked.
template <class L>
void BasicOperatorEntry<L>::setFallthroughForKey(DispatchKey k, bool is_fallthrough) {
  auto apply = [&](std::atomic<uint64_t>& mask) {
    const DispatchKeySet current(DispatchKeySet::RAW, mask.load(std::memory_order_relaxed));
    const DispatchKeySet updated = is_fallthrough ? current.remove(k) : current.add(k);
    mask.store(updated.raw_repr(), std::memory_order_relaxed);
  };
  if (isPerBackendFunctionalityKey(toFunctionalityKey(k)) && isRuntimeDispatchKey(k)) {
    apply(non_fallthrough_per_backend_[static_cast<size_t>(
        L::fallthroughMaskOfBackend(toBackendComponent(k)))]);
  } else {
    for (auto& mask : non_fallthrough_per_backend_) apply(mask);
  }
}

template <class L>
void BasicOperatorEntry<L>::rebuildFallthroughMasks() {
  for (size_t b = 0; b < static_cast<size_t>(L::kNumFallthroughMasks); ++b) {
    non_fallthrough_per_backend_[b].store(DispatchKeySet(DispatchKeySet::FULL).raw_repr(),
                                          std::memory_order_relaxed);
  }
  for (const auto& [k, index] : detail::slotKeys<L>()) {
    if (k == DispatchKey::Undefined) continue;
    const auto* kernel = loadSlot(index, std::memory_order_relaxed);
    if (kernel != nullptr && kernel->kernel.isFallthrough()) setFallthroughForKey(k, true);
  }
}

template <class L>
void BasicOperatorEntry<L>::reportError(DispatchKeySet ks) const {
  std::string available;
  for (DispatchKey k : listAllDispatchKeys()) {
    if (!available.empty()) available += ", ";
    available += toString(k);
  }
  const DispatchKey key = ks.highestPriorityTypeId();
  if (ks.empty() || key == DispatchKey::Undefined) {
    throw NotImplementedError(detail::concat(
        "There were no tensor arguments to this function (e.g., you passed an empty list of "
        "Tensors), but no fallback function is registered for schema ",
        cold_->name_string,
        ". This usually means that this function requires a non-empty list of Tensors, or "
        "that you (the operator writer) forgot to register a fallback function. Available "
        "functions are [",
        available, "]."));
  }
  const bool absent = L::indexOf(ks) < 0;
  throw NotImplementedError(detail::concat(
      "Could not run '", cold_->name_string, "' with arguments from the '", key, "' backend. ",
      absent ? detail::concat("The '", key, "' key has no dispatch table slot in the '", L::kName,
                              "' flavour. ")
             : std::string("This could be because the operator doesn't exist for this backend, "
                           "or was omitted during the selective/custom build process (if "
                           "using custom build). "),
      "'", cold_->name_string, "' is only available for these backends: [", available, "]."));
}

template <class L>
std::vector<DispatchKey> BasicOperatorEntry<L>::listAllDispatchKeys() const {
  std::vector<DispatchKey> keys;
  for (const auto& [k, index] : detail::slotKeys<L>()) {
    if (k != DispatchKey::Undefined && loadSlot(index)) keys.push_back(k);
  }
  return keys;
}

namespace {
// "Key: [fallthrough ]<debug> [<tag>]": one line of the dumps (appended, not streamed: the
// fuzzers' oracle reads these tables after every action).
template <class L>
void appendEntryLine(std::string& out, DispatchKey k, const BasicAnnotatedKernel<L>& kernel,
                     EntryTag tag) {
  out.append(toString(k)).append(": ");
  if (kernel.kernel.isFallthrough()) out.append("fallthrough ");
  out.append(kernel.debug).append(" [").append(toString(tag)).append("]\n");
}
}  // namespace

template <class L>
std::string BasicOperatorEntry<L>::dumpComputedTable(const Fallbacks& fallbacks) const {
  const KernelSummary summary = summarize();
  std::string out;
  for (const auto& [k, index] : detail::slotKeys<L>()) {
    const ComputedEntry<L> entry = compute(summary, fallbacks, k, index);
    if (entry.kernel != nullptr) appendEntryLine<L>(out, k, *entry.kernel, entry.tag);
  }
  return out;
}

template <class L>
std::string BasicOperatorEntry<L>::dumpDispatchTable() const {
  std::string out;
  for (const auto& [k, index] : detail::slotKeys<L>()) {
    const auto* kernel = loadSlot(index);
    if (kernel != nullptr) appendEntryLine<L>(out, k, *kernel, tags_[static_cast<size_t>(index)]);
  }
  return out;
}

template <class L>
std::optional<EntryTag> BasicOperatorEntry<L>::liveTag(DispatchKey k) const {
  // The table keys: Undefined and the runtime keys (forEachTableKey).
  const bool table_key = k == DispatchKey::Undefined || (isValidDispatchKey(k) && isRuntimeDispatchKey(k));
  const int index = table_key ? L::indexOf(k) : -1;
  if (index < 0 || index >= L::kNumEntries) return std::nullopt;
  return tags_[static_cast<size_t>(index)];
}

template <class L>
std::string BasicOperatorEntry<L>::dumpState() const {
  std::string out = detail::concat("name: ", cold_->name_string, "\n");
  if (const SchemaRecord* record = schema_.load(std::memory_order_acquire)) {
    out += detail::concat("schema: ", record->schema, "\ndebug: ", record->debug, "\n");
  } else {
    out += "schema: (none)\n";
  }
  for (const auto& [key, kernels] : kernels_) {  // std::map: enum order, aliases last
    bool active = true;
    for (const auto& kernel : kernels) {
      out += detail::concat(
          key, isAliasDispatchKey(key) ? "[alias]" : "", active ? "" : " (inactive)", ": ",
          kernel.debug, " :: ",
          kernel.inferred_schema ? toString(*kernel.inferred_schema) : std::string("(none)"),
          " [ boxed", kernel.kernel.hasUnboxed() ? " unboxed" : "",
          kernel.kernel.isFallthrough() ? " fallthrough" : "", " ]\n");
      active = false;
    }
  }
  return out;
}

template <class L>
bool BasicOperatorEntry<L>::hasKernelForDispatchKey(DispatchKey k) const {
  return kernels_.count(k) != 0;
}

template <class L>
bool BasicOperatorEntry<L>::hasKernelForAnyDispatchKey(DispatchKeySet ks) const {
  return summarize().anyKernelIn(ks);
}

template <class L>
const BasicAnnotatedKernel<L>& BasicOperatorEntry<L>::kernelForDispatchKeyAnnotated(
    DispatchKey k) const {
  auto found = kernels_.find(k);
  DISPATCH_CHECK(found != kernels_.end(), NotImplementedError, "'", cold_->name_string,
                 "' has no kernel registered for dispatch key ", k);
  return found->second.front();
}

template <class L>
bool BasicOperatorEntry<L>::hasComputedKernelForDispatchKey(DispatchKey k) const {
  DISPATCH_CHECK(!isAliasDispatchKey(k) && isValidDispatchKey(k), InvalidKeyError,
                 "hasComputedKernelForDispatchKey('", cold_->name_string, "'): ", k,
                 " is not a runtime key");
  const int index = L::indexOf(k);
  return index >= 0 && loadSlot(index);
}

template <class L>
size_t BasicOperatorEntry<L>::memoryFootprint() const {
  // std::list and std::map nodes carry two or three pointers of overhead each.
  constexpr size_t kListNode = 2 * sizeof(void*);
  constexpr size_t kMapNode = 4 * sizeof(void*);
  size_t bytes = sizeof(*this) + sizeof(Cold) + cold_->name_string.capacity() +
                 cold_->name.name.capacity() + cold_->name.overload_name.capacity();
  for (const auto& [key, kernels] : kernels_) {
    bytes += kMapNode + sizeof(std::pair<const DispatchKey, KernelList>);
    for (const auto& kernel : kernels) bytes += kListNode + sizeof(kernel) + kernel.debug.capacity();
  }
  for (const auto& record : cold_->schemas) {
    bytes += kListNode + sizeof(record) + record.debug.capacity();
  }
  return bytes;
}

#define DISPATCH_DETAIL_INSTANTIATE_ENTRY(L) template class BasicOperatorEntry<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_INSTANTIATE_ENTRY)
#undef DISPATCH_DETAIL_INSTANTIATE_ENTRY

}  // namespace dispatch
