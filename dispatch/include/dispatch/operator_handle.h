#pragma once
// Handles to a registered operator, and the call entry points (docs/semantics.md §5.4-5.6).

#include <cstddef>
#include <string>
#include <vector>

#include "dispatch/diagnostics.h"
#include "dispatch/operator_entry.h"

namespace dispatch {

template <class L>
class BasicDispatcher;
template <class L, class Sig>
class BasicTypedOperatorHandle;

// An operator and its registration counts (docs/semantics.md §5.1). Lives in a std::list: stable address.
template <class L>
struct BasicOperatorDef {
  BasicOperatorDef(OperatorName name, const FallbackTable<L>& fallbacks)
      : op(std::move(name), fallbacks) {}
  BasicOperatorEntry<L> op;
  size_t def_count = 0;
  size_t def_and_impl_count = 0;
};

// A cheap, copyable reference to an operator. It stays usable after the operator's last
// registration is dropped (the entry is retired, not freed) but then sees no kernels.
template <class L>
class BasicOperatorHandle {
 public:
  using Dispatcher = BasicDispatcher<L>;

  BasicOperatorHandle(const Dispatcher* dispatcher, BasicOperatorDef<L>* def) noexcept
      : dispatcher_(dispatcher), def_(def) {}

  const OperatorName& operatorName() const noexcept { return entry().operatorName(); }
  const std::string& operatorNameString() const noexcept { return entry().operatorNameString(); }
  bool hasSchema() const noexcept { return entry().hasSchema(); }
  const FunctionSchema& schema() const { return entry().schema(); }
  const Dispatcher& dispatcher() const noexcept { return *dispatcher_; }
  const BasicOperatorEntry<L>& entry() const noexcept { return def_->op; }

  // Introspection; each takes the dispatcher's lock.
  std::string dumpState() const;
  std::string dumpComputedTable() const;
  std::string dumpDispatchTable() const;
  void checkInvariants() const;
  bool hasKernelForDispatchKey(DispatchKey k) const;
  bool hasComputedKernelForDispatchKey(DispatchKey k) const;
  std::vector<DispatchKey> listAllDispatchKeys() const { return entry().listAllDispatchKeys(); }

  // Checks Sig against the operator's C++ signature and schema once; the typed handle then
  // calls without further checks. Throws SignatureMismatchError / SchemaError.
  template <class Sig>
  BasicTypedOperatorHandle<L, Sig> typed() const;

  // Boxed entry points. The stack holds the arguments (checked against the schema: wrong
  // arity or types throw BoxedCallError) and receives the results.
  void callBoxed(Stack& stack) const { callBoxed(&stack); }
  void callBoxed(Stack* stack) const {
    const auto& op = entry();
    const FunctionSchema* schema = checkStack(*stack);
    const size_t num_args = schema ? schema->arguments.size() : 0;
    const DispatchKeySet ks = op.computeDispatchKeySet(keySetOfStack(*stack, num_args));
    if (detail::callHooksActive()) [[unlikely]] {
      return callBoxedObserved(op.lookupComputed(ks), CallKind::CallBoxed, ks, stack);
    }
    op.lookupComputed(ks).kernel.callBoxed(*this, ks, stack);
  }
  // Looks up ks exactly as given: no TLS, no fallthrough mask (docs/semantics.md §5.6).
  void redispatchBoxed(DispatchKeySet ks, Stack* stack) const {
    checkStack(*stack);
    if (detail::callHooksActive()) [[unlikely]] {
      return callBoxedObserved(entry().lookup(ks), CallKind::RedispatchBoxed, ks, stack);
    }
    entry().lookup(ks).kernel.callBoxed(*this, ks, stack);
  }
  // The direct kernel of k, else k's backend fallback; alias-derived entries are ignored.
  void callBoxedForDispatchKey(DispatchKey k, Stack* stack) const;

  bool operator==(const BasicOperatorHandle& other) const noexcept { return def_ == other.def_; }

 protected:
  const FunctionSchema* checkStack(const Stack& stack) const {
    const FunctionSchema* schema = entry().schemaOrNull();
    if (schema != nullptr) checkStackMatchesSchema(*schema, stack);
    return schema;
  }

  // The boxed entry points when a diagnostics hook is on (diagnostics.h).
  [[gnu::noinline]] void callBoxedObserved(const BasicAnnotatedKernel<L>& kernel, CallKind kind,
                                           DispatchKeySet ks, Stack* stack) const {
    detail::ObservedCall observed(operatorNameString(), L::kName, kind, ks);
    observed.resolved(L::indexOf(ks), kernel.debug);
    kernel.kernel.callBoxed(*this, ks, stack);
  }

  const Dispatcher* dispatcher_;
  BasicOperatorDef<L>* def_;
};

// A handle whose C++ signature was checked once; calls are unboxed and allocation-free.
template <class L, class Ret, class... Args>
class BasicTypedOperatorHandle<L, Ret(Args...)> : public BasicOperatorHandle<L> {
 public:
  using Return = std::decay_t<Ret>;

  // Note [Call Path]
  // Key extraction (OR of the tensor arguments' sets), TLS include/exclude and the fallthrough
  // mask, two count-leading-zeros and the row load for the slot (Note [Slot Rows]), one table
  // load, the unboxed test, one indirect call. Compiled with diagnostics, one more test: the
  // hook word (diagnostics.h); when a hook is on, the same work runs in callObserved.
  Return call(CanonicalArg<Args>... args) const {
    if (detail::callHooksActive()) [[unlikely]] return callObserved(CallKind::Call, {}, args...);
    const auto& op = this->entry();
    const DispatchKeySet ks = op.computeDispatchKeySet(keySetOfArgs(args...));
    return op.lookupComputed(ks).kernel.template call<Return, Args...>(*this, ks, args...);
  }
  // Looks up ks exactly as given; kernels pass `ks & FULL_AFTER(their key)` or similar.
  Return redispatch(DispatchKeySet ks, CanonicalArg<Args>... args) const {
    if (detail::callHooksActive()) [[unlikely]] {
      return callObserved(CallKind::Redispatch, ks, args...);
    }
    return this->entry().lookup(ks).kernel.template call<Return, Args...>(*this, ks, args...);
  }

 private:
  [[gnu::noinline]] Return callObserved(CallKind kind, DispatchKeySet ks,
                                        CanonicalArg<Args>... args) const {
    const auto& op = this->entry();
    if (kind == CallKind::Call) ks = op.computeDispatchKeySet(keySetOfArgs(args...));
    const auto& kernel = op.lookup(ks);
    detail::ObservedCall observed(this->operatorNameString(), L::kName, kind, ks);
    observed.resolved(L::indexOf(ks), kernel.debug);
    return kernel.kernel.template call<Return, Args...>(*this, ks, args...);
  }

  friend class BasicOperatorHandle<L>;
  explicit BasicTypedOperatorHandle(const BasicOperatorHandle<L>& handle)
      : BasicOperatorHandle<L>(handle) {}
};

}  // namespace dispatch
