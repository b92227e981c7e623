#include "dispatch/dispatcher.h"

#include <cstdio>

#include "dispatch/diagnostics.h"

namespace dispatch {

template <class L>
BasicDispatcher<L>::BasicDispatcher() = default;

template <class L>
BasicDispatcher<L>::~BasicDispatcher() = default;

template <class L>
BasicDispatcher<L>& BasicDispatcher<L>::singleton() {
  static BasicDispatcher instance;
  return instance;
}

namespace {
// A registration made on a dispatcher: undone only while that dispatcher is alive, described
// only when release()'s error message needs it.
template <class Undo, class Describe>
class DispatcherRegistration final : public RegistrationHandle::Registration {
 public:
  DispatcherRegistration(std::weak_ptr<int> alive, Undo undo, Describe describe)
      : alive_(std::move(alive)), undo_(std::move(undo)), describe_(std::move(describe)) {}
  void undo() override {
    if (alive_.lock()) undo_();
  }
  std::string describe() const override { return describe_(); }

 private:
  std::weak_ptr<int> alive_;
  Undo undo_;
  Describe describe_;
};
}  // namespace

template <class L>
template <class Undo, class Describe>
RegistrationHandle BasicDispatcher<L>::makeHandle(Undo undo, Describe describe) {
  return RegistrationHandle(std::make_shared<DispatcherRegistration<Undo, Describe>>(
      alive_, std::move(undo), std::move(describe)));
}

template <class L>
typename BasicDispatcher<L>::OperatorDef* BasicDispatcher<L>::findDef(const OperatorName& name) {
  auto found = operator_lookup_table_.find(name);
  return found != operator_lookup_table_.end() ? found->second : nullptr;
}

template <class L>
typename BasicDispatcher<L>::OperatorDef& BasicDispatcher<L>::findOrRegisterName(
    const OperatorName& name) {
  if (OperatorDef* found = findDef(name)) return *found;
  operators_.emplace_back(name, backend_fallback_kernels_);
  operator_lookup_table_.emplace(name, &operators_.back());
  return operators_.back();
}

template <class L>
void BasicDispatcher<L>::cleanup(OperatorDef& def, const OperatorName& name) {
  if (def.def_and_impl_count != 0) return;
  operator_lookup_table_.erase(name);
  for (auto it = operators_.begin(); it != operators_.end(); ++it) {
    if (&*it == &def) {
      // Retired, not freed: OperatorHandles to it stay valid (and see no kernels).
      retired_operators_.splice(retired_operators_.end(), operators_, it);
      return;
    }
  }
}

template <class L>
RegistrationHandle BasicDispatcher<L>::registerLibrary(std::string ns, std::string debug) {
  return tryRegisterLibrary(std::move(ns), std::move(debug)).take();
}

template <class L>
TriedRegistration BasicDispatcher<L>::tryRegisterLibrary(std::string ns, std::string debug) {
  Lock lock(mutex_);
  const auto found = libraries_.find(ns);
  DISPATCH_REFUSE_UNLESS(
      found == libraries_.end(), RegistrationError,
      "Only a single DISPATCH_LIBRARY can be used to register the namespace ", ns,
      "; please put all of your definitions in a single DISPATCH_LIBRARY block. If you were "
      "trying to specify implementations, consider using DISPATCH_LIBRARY_IMPL (which can be "
      "duplicated). If you really intended to define operators for a single namespace in a "
      "distributed way, you can use DISPATCH_LIBRARY_FRAGMENT to explicitly indicate this. "
      "Previous registration of DISPATCH_LIBRARY was ",
      found->second, "; latest registration was ", debug);
  libraries_.emplace(ns, std::move(debug));
  return makeHandle(
      [this, ns] {
        Lock undo_lock(mutex_);
        libraries_.erase(ns);
      },
      [ns] { return detail::concat("library for namespace ", ns); });
}

template <class L>
RegistrationHandle BasicDispatcher<L>::registerDef(FunctionSchema schema, std::string debug) {
  return tryRegisterDef(std::move(schema), std::move(debug)).take();
}

template <class L>
TriedRegistration BasicDispatcher<L>::tryRegisterDef(FunctionSchema schema, std::string debug) {
  Lock lock(mutex_);
  const OperatorName name = schema.name;
  detail::RecordedRegistration recorded(flight_recorder::EventKind::RegisterDef, L::kName,
                                        toString(name), DispatchKey::Undefined, -1, debug);
  // Every check before the first change (a new operator has nothing to disagree with): a
  // refused def returns from here, with nothing to undo.
  if (const OperatorDef* existing = findDef(name)) {
    DISPATCH_REFUSE_UNLESS(
        existing->def_count == 0, RegistrationError,
        "Tried to register an operator (", schema,
        ") with the same name and overload name multiple times. Each overload's schema "
        "should only be registered with a single call to def(). Duplicate "
        "registration: ",
        debug, ". Original registration: ", existing->op.schemaDebug());
    if (auto refusal = existing->op.checkSchema(schema, debug)) return std::move(*refusal);
  }
  OperatorDef& def = findOrRegisterName(name);
  def.op.registerSchema(std::move(schema), std::move(debug));
  ++def.def_count;
  ++def.def_and_impl_count;
  recorded.done();
  return makeHandle([this, &def, name] {
    Lock undo_lock(mutex_);
    detail::RecordedRegistration undo(flight_recorder::EventKind::DeregisterDef, L::kName,
                                      toString(name), DispatchKey::Undefined, -1, {});
    undo.done();
    --def.def_count;
    --def.def_and_impl_count;
    if (def.def_count == 0) def.op.deregisterSchema();
    cleanup(def, name);
  }, [name] { return detail::concat("def of '", name, "'"); });
}

template <class L>
RegistrationHandle BasicDispatcher<L>::registerImpl(OperatorName op,
                                                    std::optional<DispatchKey> key,
                                                    KernelFunction kernel,
                                                    std::optional<CppSignature> cpp_signature,
                                                    std::optional<FunctionSchema> inferred_schema,
                                                    std::string debug) {
  return tryRegisterImpl(std::move(op), key, std::move(kernel), std::move(cpp_signature),
                         std::move(inferred_schema), std::move(debug))
      .take();
}

template <class L>
TriedRegistration BasicDispatcher<L>::tryRegisterImpl(OperatorName op,
                                                      std::optional<DispatchKey> key,
                                                      KernelFunction kernel,
                                                      std::optional<CppSignature> cpp_signature,
                                                      std::optional<FunctionSchema> inferred_schema,
                                                      std::string debug) {
  if (key) {
    // (the message's context text is built only when it is needed)
    DISPATCH_REFUSE_UNLESS(
        isValidDispatchKey(*key), InvalidKeyError,
        invalidDispatchKeyMessage(*key, detail::concat("registerImpl('", toString(op), "')")));
    DISPATCH_REFUSE_UNLESS(
        isRuntimeDispatchKey(*key) || isAliasDispatchKey(*key), InvalidKeyError,
        "registerImpl('", toString(op), "'): ", *key,
        " is neither a runtime key nor an alias key; kernels cannot be registered "
        "to it");
  }
  DISPATCH_REFUSE_UNLESS(
      kernel.isValid(), RegistrationError, "registerImpl('", toString(op), "', ",
      key ? toString(*key) : std::string_view("catch-all"), "): the kernel is empty");
  Lock lock(mutex_);
  detail::RecordedRegistration recorded(
      flight_recorder::EventKind::RegisterImpl, L::kName, toString(op),
      key.value_or(DispatchKey::CompositeImplicitAutograd), key ? L::indexOf(*key) : -1, debug);
  // Every check before the first change, as in registerDef.
  if (const OperatorDef* existing = findDef(op)) {
    if (auto refusal = existing->op.checkKernel(key, cpp_signature, inferred_schema, debug)) {
      return std::move(*refusal);
    }
  }
  OperatorDef& def = findOrRegisterName(op);
  const auto kernel_handle =
      def.op.registerKernel(backend_fallback_kernels_, key, std::move(kernel),
                            std::move(cpp_signature), std::move(inferred_schema), std::move(debug));
  ++def.def_and_impl_count;
  recorded.done();
  return makeHandle([this, &def, op, key, kernel_handle] {
    Lock undo_lock(mutex_);
    detail::RecordedRegistration undo(
        flight_recorder::EventKind::DeregisterImpl, L::kName, toString(op),
        key.value_or(DispatchKey::CompositeImplicitAutograd), key ? L::indexOf(*key) : -1,
        kernel_handle->debug);
    def.op.deregisterKernel(backend_fallback_kernels_, key, kernel_handle);
    --def.def_and_impl_count;
    cleanup(def, op);
    undo.done();
  }, [op, key] {
    return detail::concat("impl of '", op, "' for ", key ? "dispatch key " : "catch-all",
                          key ? toString(*key) : std::string_view());
  });
}

template <class L>
RegistrationHandle BasicDispatcher<L>::registerName(OperatorName op) {
  Lock lock(mutex_);
  OperatorDef& def = findOrRegisterName(op);
  ++def.def_and_impl_count;
  return makeHandle([this, &def, op] {
    Lock undo_lock(mutex_);
    --def.def_and_impl_count;
    cleanup(def, op);
  }, [op] { return detail::concat("name registration of '", op, "'"); });
}

template <class L>
RegistrationHandle BasicDispatcher<L>::registerFallback(DispatchKey k, KernelFunction kernel,
                                                        std::string debug) {
  return tryRegisterFallback(k, std::move(kernel), std::move(debug)).take();
}

template <class L>
TriedRegistration BasicDispatcher<L>::tryRegisterFallback(DispatchKey k, KernelFunction kernel,
                                                          std::string debug) {
  DISPATCH_REFUSE_UNLESS(
      isValidDispatchKey(k), InvalidKeyError,
      invalidDispatchKeyMessage(k, "registerFallback"));
  const int index = L::indexOf(k);
  // Recorded before the checks: a crash below still shows which fallback was being registered.
  detail::RecordedRegistration recorded(flight_recorder::EventKind::RegisterFallback, L::kName,
                                        {}, k, index, debug);
  DISPATCH_REFUSE_UNLESS(
      !isAliasDispatchKey(k), InvalidKeyError, "registerFallback: ", k,
      " is an alias key; register it through Library::fallback, which expands it to "
      "its runtime keys");
  DISPATCH_REFUSE_UNLESS(
      isRuntimeDispatchKey(k), InvalidKeyError, "registerFallback: ", k,
      " is not a runtime dispatch key");
  DISPATCH_REFUSE_UNLESS(
      index >= 0 && index < L::kNumEntries, InvalidKeyError, "registerFallback: ", k,
      " has no slot in the '", L::kName, "' flavour (idx=", index, ", table size ",
      L::kNumEntries, ")");
  DISPATCH_REFUSE_UNLESS(
      kernel.isValid(), RegistrationError, "registerFallback(", k,
      "): the kernel is empty");
  Lock lock(mutex_);
  auto& slot = backend_fallback_kernels_[static_cast<size_t>(index)];
  DISPATCH_REFUSE_UNLESS(
      slot == nullptr, RegistrationError,
      "Tried to register multiple backend fallbacks for the same dispatch key ", k,
      "; previous registration ", slot->debug, ", new registration ", debug);
  fallback_kernels_.push_back(AnnotatedKernel{std::move(kernel), std::nullopt, std::move(debug)});
  slot = &fallback_kernels_.back();
  for (auto& def : operators_) def.op.updateFallback(backend_fallback_kernels_, k);
  // Retired operators too: handles to them stay usable, so their tables must stay exact.
  for (auto& def : retired_operators_) def.op.updateFallback(backend_fallback_kernels_, k);
  recorded.done();
  return makeHandle([this, k, index] {
    Lock undo_lock(mutex_);
    detail::RecordedRegistration undo(flight_recorder::EventKind::DeregisterFallback, L::kName,
                                      {}, k, index, {});
    deregisterFallback(k, index);
    undo.done();
  }, [k] { return detail::concat("backend fallback for dispatch key ", k); });
}

template <class L>
void BasicDispatcher<L>::deregisterFallback(DispatchKey k, int index) {
  // The kernel object stays in fallback_kernels_: calls in flight may still run it.
  backend_fallback_kernels_[static_cast<size_t>(index)] = nullptr;
  for (auto& def : operators_) def.op.updateFallback(backend_fallback_kernels_, k);
  for (auto& def : retired_operators_) def.op.updateFallback(backend_fallback_kernels_, k);
}

template <class L>
std::optional<typename BasicDispatcher<L>::OperatorHandle> BasicDispatcher<L>::findOp(
    const OperatorName& name) const {
  Lock lock(mutex_);
  auto found = operator_lookup_table_.find(name);
  if (found == operator_lookup_table_.end()) return std::nullopt;
  return OperatorHandle(this, found->second);
}

template <class L>
std::optional<typename BasicDispatcher<L>::OperatorHandle> BasicDispatcher<L>::findSchema(
    const OperatorName& name) const {
  auto op = findOp(name);
  if (op && op->hasSchema()) return op;
  return std::nullopt;
}

template <class L>
typename BasicDispatcher<L>::OperatorHandle BasicDispatcher<L>::findSchemaOrThrow(
    std::string_view name, std::string_view overload_name) const {
  const OperatorName op_name{std::string(name), std::string(overload_name)};
  auto op = findOp(op_name);
  DISPATCH_CHECK(op.has_value(), OperatorNotFoundError, "Could not find schema for ",
                 toString(op_name));
  DISPATCH_CHECK(op->hasSchema(), OperatorNotFoundError, "Could not find schema for ",
                 toString(op_name),
                 " but we found an implementation; did you forget to def() the operator?");
  return *op;
}

template <class L>
std::vector<OperatorName> BasicDispatcher<L>::findDanglingImpls() const {
  Lock lock(mutex_);
  std::vector<OperatorName> names;
  for (const auto& def : operators_) {
    if (!def.op.hasSchema()) names.push_back(def.op.operatorName());
  }
  return names;
}

template <class L>
std::vector<OperatorName> BasicDispatcher<L>::getRegistrationsForDispatchKey(
    std::optional<DispatchKey> k) const {
  Lock lock(mutex_);
  std::vector<OperatorName> names;
  for (const auto& def : operators_) {
    if (!k || def.op.hasKernelForDispatchKey(*k)) names.push_back(def.op.operatorName());
  }
  return names;
}

template <class L>
std::vector<OperatorName> BasicDispatcher<L>::getAllOpNames() const {
  return getRegistrationsForDispatchKey(std::nullopt);
}

template <class L>
bool BasicDispatcher<L>::hasBackendFallbackForDispatchKey(DispatchKey k) const {
  const int index = L::indexOf(k);
  if (index < 0 || !isValidDispatchKey(k) || isAliasDispatchKey(k)) return false;
  Lock lock(mutex_);
  return backend_fallback_kernels_[static_cast<size_t>(index)] != nullptr;
}

template <class L>
void BasicDispatcher<L>::checkInvariants() const {
  Lock lock(mutex_);
  for (const auto& def : operators_) def.op.checkInvariants(backend_fallback_kernels_);
}

template <class L>
std::string BasicDispatcher<L>::dumpFallbacks() const {
  Lock lock(mutex_);
  std::string out;
  for (DispatchKey k : DispatchKeySet(DispatchKeySet::FULL)) {
    const int index = L::indexOf(k);
    if (index < 0) continue;
    if (const auto* kernel = backend_fallback_kernels_[static_cast<size_t>(index)]) {
      out += detail::concat(k, ": ", kernel->kernel.isFallthrough() ? "fallthrough " : "",
                            kernel->debug, "\n");
    }
  }
  return out;
}

template <class L>
const typename BasicDispatcher<L>::AnnotatedKernel* BasicDispatcher<L>::backendFallback(
    DispatchKey k) const {
  const int index = L::indexOf(k);
  if (index < 0 || !isValidDispatchKey(k) || !isRuntimeDispatchKey(k)) return nullptr;
  Lock lock(mutex_);
  return backend_fallback_kernels_[static_cast<size_t>(index)];
}

template <class L>
size_t BasicDispatcher<L>::numBackendFallbacks() const {
  Lock lock(mutex_);
  size_t occupied = 0;
  for (const auto* kernel : backend_fallback_kernels_) occupied += kernel != nullptr ? 1 : 0;
  return occupied;
}

template <class L>
size_t BasicDispatcher<L>::numOperators() const {
  Lock lock(mutex_);
  return operators_.size();
}

#define DISPATCH_DETAIL_INSTANTIATE_DISPATCHER(L) template class BasicDispatcher<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_INSTANTIATE_DISPATCHER)
#undef DISPATCH_DETAIL_INSTANTIATE_DISPATCHER

}  // namespace dispatch
