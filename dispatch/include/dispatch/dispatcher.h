#pragma once
// The dispatcher: operator registry, backend fallbacks, registration API (docs/semantics.md §5).
// An ordinary object: tests and fuzz targets make a fresh one per case; applications use the
// process-wide singleton() through the static registration API (library.h).

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/operator_handle.h"
#include "dispatch/registration_handle.h"

namespace dispatch {

template <class L>
class BasicDispatcher {
 public:
  using Layout = L;
  using OperatorHandle = BasicOperatorHandle<L>;
  using KernelFunction = BasicKernelFunction<L>;
  using AnnotatedKernel = BasicAnnotatedKernel<L>;

  BasicDispatcher();
  ~BasicDispatcher();
  BasicDispatcher(const BasicDispatcher&) = delete;
  BasicDispatcher& operator=(const BasicDispatcher&) = delete;

  // The process-wide instance of this flavour, for static registration.
  static BasicDispatcher& singleton();

  // --- registration (each takes the mutex; a failed call changes nothing) ---
  // registerLibrary, registerDef, registerImpl and registerFallback each have a try... twin that
  // returns the refusal as a value (TriedRegistration) instead of throwing it: same checks, same
  // message; the throwing form is the try form followed by take().

  // Claims a namespace for one library. Throws RegistrationError if it is taken.
  RegistrationHandle registerLibrary(std::string ns, std::string debug);
  TriedRegistration tryRegisterLibrary(std::string ns, std::string debug);
  // Throws RegistrationError on a duplicate def, SchemaError if existing kernels disagree.
  RegistrationHandle registerDef(FunctionSchema schema, std::string debug);
  TriedRegistration tryRegisterDef(FunctionSchema schema, std::string debug);
  // key: a runtime or alias key, or nullopt for a catch-all (stored as CompositeImplicitAutograd).
  RegistrationHandle registerImpl(OperatorName op, std::optional<DispatchKey> key,
                                  KernelFunction kernel, std::optional<CppSignature> cpp_signature,
                                  std::optional<FunctionSchema> inferred_schema, std::string debug);
  TriedRegistration tryRegisterImpl(OperatorName op, std::optional<DispatchKey> key,
                                    KernelFunction kernel, std::optional<CppSignature> cpp_signature,
                                    std::optional<FunctionSchema> inferred_schema, std::string debug);
  // Keeps the operator alive without a def or impl.
  RegistrationHandle registerName(OperatorName op);
  // k must be a runtime key with a slot in this flavour (aliases: use Library::fallback, which
  // expands them and skips keys the flavour lacks). One fallback per key.
  RegistrationHandle registerFallback(DispatchKey k, KernelFunction kernel, std::string debug);
  TriedRegistration tryRegisterFallback(DispatchKey k, KernelFunction kernel, std::string debug);

  // --- lookup ---
  std::optional<OperatorHandle> findOp(const OperatorName& name) const;
  std::optional<OperatorHandle> findSchema(const OperatorName& name) const;
  OperatorHandle findSchemaOrThrow(std::string_view name, std::string_view overload_name = "") const;
  std::vector<OperatorName> findDanglingImpls() const;
  // Operators with a direct kernel for k (any kernel at all for nullopt).
  std::vector<OperatorName> getRegistrationsForDispatchKey(std::optional<DispatchKey> k) const;
  std::vector<OperatorName> getAllOpNames() const;
  bool hasBackendFallbackForDispatchKey(DispatchKey k) const;

  // --- whole-dispatcher checks and introspection ---
  // Runs every operator's checkInvariants; throws InternalError on the first violation.
  void checkInvariants() const;
  // "Key: [fallthrough ]<debug>" for every registered fallback, in slot order.
  std::string dumpFallbacks() const;
  // The backend fallback in k's slot, as a value (what dumpFallbacks prints for k): nullptr when
  // there is none, or when k is not a runtime key with a slot in this flavour.
  const AnnotatedKernel* backendFallback(DispatchKey k) const;
  // How many fallback slots are occupied (the lines dumpFallbacks prints).
  size_t numBackendFallbacks() const;
  size_t numOperators() const;
  static constexpr size_t fallbackTableBytes() noexcept { return sizeof(FallbackTable<L>); }

 private:
  friend class BasicOperatorHandle<L>;
  using OperatorDef = BasicOperatorDef<L>;
  using Lock = std::lock_guard<std::mutex>;

  OperatorDef* findDef(const OperatorName& name);  // nullptr: no such operator
  OperatorDef& findOrRegisterName(const OperatorName& name);
  void cleanup(OperatorDef& def, const OperatorName& name);
  void deregisterFallback(DispatchKey k, int index);
  // undo() runs only while this dispatcher is alive; describe() names the registration.
  template <class Undo, class Describe>
  RegistrationHandle makeHandle(Undo undo, Describe describe);

  mutable std::mutex mutex_;
  std::list<OperatorDef> operators_;
  std::list<OperatorDef> retired_operators_;  // dropped, kept for handles still held
  std::unordered_map<OperatorName, OperatorDef*> operator_lookup_table_;
  std::unordered_map<std::string, std::string> libraries_;
  // Note [Fallback Table]
  // A fixed-size array member indexed exactly like every operator's table, so slot i means the
  // same key everywhere; trimmed flavours make it as small as their tables (8 on mobile). Its
  // neighbours are ordinary members, as in PyTorch: an index of -1 or N lands in them, which is
  // the historic bug's shape (docs/semantics.md §6.3) and why every index here is bounds-checked.
  FallbackTable<L> backend_fallback_kernels_{};
  std::list<AnnotatedKernel> fallback_kernels_;  // owns every fallback ever registered
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

// --- OperatorHandle members that need the dispatcher ---

template <class L>
std::string BasicOperatorHandle<L>::dumpState() const {
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  return entry().dumpState();
}

template <class L>
std::string BasicOperatorHandle<L>::dumpComputedTable() const {
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  return entry().dumpComputedTable(dispatcher_->backend_fallback_kernels_);
}

template <class L>
std::string BasicOperatorHandle<L>::dumpDispatchTable() const {
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  return entry().dumpDispatchTable();
}

template <class L>
void BasicOperatorHandle<L>::checkInvariants() const {
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  entry().checkInvariants(dispatcher_->backend_fallback_kernels_);
}

template <class L>
bool BasicOperatorHandle<L>::hasKernelForDispatchKey(DispatchKey k) const {
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  return entry().hasKernelForDispatchKey(k);
}

template <class L>
bool BasicOperatorHandle<L>::hasComputedKernelForDispatchKey(DispatchKey k) const {
  return entry().hasComputedKernelForDispatchKey(k);
}

template <class L>
template <class Sig>
BasicTypedOperatorHandle<L, Sig> BasicOperatorHandle<L>::typed() const {
  using Normalized = typename KernelTraits<Sig*>::NormalizedSignature;
  const CppSignature signature = CppSignature::make<Normalized>();
  std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
  const auto& expected = entry().cppSignature();
  if (expected && !(*expected == signature)) entry().reportSignatureError(signature);
  if (const FunctionSchema* schema = entry().schemaOrNull()) {
    auto difference = findSchemaDifferences(*schema, inferSchema<Normalized>(schema->name));
    DISPATCH_CHECK(!difference, SignatureMismatchError, "Tried to access or call operator ",
                   operatorNameString(), " with a signature that does not match its schema ",
                   toString(*schema), ": ", *difference);
  }
  return BasicTypedOperatorHandle<L, Sig>(*this);
}

template <class L>
void BasicOperatorHandle<L>::callBoxedForDispatchKey(DispatchKey k, Stack* stack) const {
  checkValidDispatchKey(k, "callBoxedForDispatchKey");
  const BasicAnnotatedKernel<L>* kernel = nullptr;
  {
    std::lock_guard<std::mutex> lock(dispatcher_->mutex_);
    const auto& op = entry();
    if (op.hasKernelForDispatchKey(k)) {
      kernel = &op.kernelForDispatchKeyAnnotated(k);
    } else {
      const int index = L::indexOf(k);
      DISPATCH_CHECK(index >= 0 && !isAliasDispatchKey(k), NotImplementedError,
                     "callBoxedForDispatchKey: '", operatorNameString(), "' has no kernel for ", k,
                     " and ", k, " has no fallback slot in the '", L::kName, "' flavour");
      kernel = dispatcher_->backend_fallback_kernels_[static_cast<size_t>(index)];
      DISPATCH_CHECK(kernel != nullptr, NotImplementedError, "callBoxedForDispatchKey: '",
                     operatorNameString(), "' has neither a kernel nor a backend fallback for ", k);
    }
  }
  const FunctionSchema* schema = checkStack(*stack);
  const DispatchKeySet ks = entry().computeDispatchKeySet(
      keySetOfStack(*stack, schema ? schema->arguments.size() : 0));
  if (detail::callHooksActive()) [[unlikely]] {
    return callBoxedObserved(*kernel, CallKind::CallBoxedForKey, ks, stack);
  }
  kernel->kernel.callBoxed(*this, ks, stack);
}

#define DISPATCH_DETAIL_EXTERN_DISPATCHER(L) extern template class BasicDispatcher<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_EXTERN_DISPATCHER)
#undef DISPATCH_DETAIL_EXTERN_DISPATCHER

}  // namespace dispatch
