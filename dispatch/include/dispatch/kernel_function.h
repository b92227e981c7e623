#pragma once
// A kernel as the dispatch table stores it: a boxed entry point (always present), an optional
// unboxed entry point, and the functor both of them call. Immutable once built.

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "dispatch/errors.h"
#include "dispatch/function_traits.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"

namespace dispatch {

template <class L>
class BasicOperatorHandle;

// Base of every kernel functor, so that one owning pointer type holds them all.
class OperatorKernel {
 public:
  virtual ~OperatorKernel() = default;
};

enum class KernelKind : uint8_t { Regular, Fallthrough, AmbiguousAutogradOther };

namespace detail {
template <class F>
struct FunctorHolder final : OperatorKernel {
  explicit FunctorHolder(F f) : fn(std::move(f)) {}
  F fn;
};
using AnyFunctionPointer = void (*)();
}  // namespace detail

template <class L>
class BasicKernelFunction {
 public:
  using OperatorHandle = BasicOperatorHandle<L>;
  // The boxed calling convention: arguments on the stack, results pushed back.
  using BoxedFunction = void(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
  using InternalBoxedFunction = void (*)(OperatorKernel*, const OperatorHandle&, DispatchKeySet,
                                         Stack*);

  BasicKernelFunction() = default;  // invalid: "no kernel"

  bool isValid() const noexcept { return boxed_ != nullptr; }
  bool isFallthrough() const noexcept { return kind_ == KernelKind::Fallthrough; }
  bool isAmbiguousAutogradOther() const noexcept {
    return kind_ == KernelKind::AmbiguousAutogradOther;
  }
  bool hasUnboxed() const noexcept { return unboxed_ != nullptr; }
  KernelKind kind() const noexcept { return kind_; }

  void callBoxed(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const {
    boxed_(functor_.get(), op, ks, stack);
  }

  // Calls with the canonical argument types of Sig (see CanonicalArg); boxes the arguments when
  // the kernel has no unboxed entry point (boxed kernels, fallbacks).
  template <class Ret, class... Args>
  Ret call(const OperatorHandle& op, DispatchKeySet ks, CanonicalArg<Args>... args) const {
    if (unboxed_ != nullptr) [[likely]] {
      using Fn = Ret (*)(OperatorKernel*, DispatchKeySet, CanonicalArg<Args>...);
      return reinterpret_cast<Fn>(unboxed_)(functor_.get(), ks, args...);
    }
    return callThroughBoxing<Ret, Args...>(op, ks, args...);
  }

  // --- factories ---

  // A plain function `void fn(const OperatorHandle&, DispatchKeySet, Stack*)`.
  template <BoxedFunction* fn>
  static BasicKernelFunction makeFromBoxedFunction() {
    return BasicKernelFunction(nullptr, &boxedFunctionEntry<fn>, nullptr, KernelKind::Regular);
  }

  // A callable with the boxed signature (may capture state).
  template <class F>
  static BasicKernelFunction makeFromBoxedLambda(F&& f) {
    using Holder = detail::FunctorHolder<std::decay_t<F>>;
    return BasicKernelFunction(std::make_shared<Holder>(std::forward<F>(f)),
                               &boxedLambdaEntry<Holder>, nullptr, KernelKind::Regular);
  }

  // A typed callable (function pointer, lambda, functor), optionally taking the dispatch key
  // set as its first parameter. Gets both entry points.
  template <class F>
  static BasicKernelFunction makeFromUnboxed(F&& f) {
    using Functor = std::decay_t<F>;
    using Traits = KernelTraits<Functor>;
    using Holder = detail::FunctorHolder<Functor>;
    return makeUnboxed<Holder, Traits>(std::make_shared<Holder>(std::forward<F>(f)),
                                       typename Traits::ArgTypes{});
  }

  // "Skip this key": masked out before lookup; running it is an error (docs/semantics.md §4.9).
  static BasicKernelFunction makeFallthrough() {
    return BasicKernelFunction(nullptr, &fallthroughEntry, nullptr, KernelKind::Fallthrough);
  }

  // The AutogradOther slot when CIA and an AutogradOther backend both have kernels (docs/semantics.md §4.6).
  static BasicKernelFunction makeAmbiguousAutogradOther() {
    return BasicKernelFunction(nullptr, &ambiguousAutogradOtherEntry, nullptr,
                               KernelKind::AmbiguousAutogradOther);
  }

 private:
  // Out of line and cold, so that the unboxed call path stays a few instructions long.
  template <class Ret, class... Args>
  [[gnu::noinline, gnu::cold]] Ret callThroughBoxing(const OperatorHandle& op, DispatchKeySet ks,
                                                      CanonicalArg<Args>... args) const {
    Stack stack;
    stack.reserve(sizeof...(Args));
    pushArgs(stack, args...);
    callBoxed(op, ks, &stack);
    return popReturn<Ret>(stack, op.operatorNameString());
  }

  BasicKernelFunction(std::shared_ptr<OperatorKernel> functor, InternalBoxedFunction boxed,
                      detail::AnyFunctionPointer unboxed, KernelKind kind)
      : functor_(std::move(functor)), boxed_(boxed), unboxed_(unboxed), kind_(kind) {}

  template <class Holder, class Traits, class... Args>
  static BasicKernelFunction makeUnboxed(std::shared_ptr<Holder> holder, TypeList<Args...>) {
    using Ret = std::decay_t<typename Traits::ReturnType>;
    using Fn = Ret (*)(OperatorKernel*, DispatchKeySet, CanonicalArg<Args>...);
    Fn unboxed = &unboxedEntry<Holder, Traits, Ret, Args...>;
    return BasicKernelFunction(std::move(holder), &boxedFromUnboxedEntry<Holder, Traits, Ret, Args...>,
                               reinterpret_cast<detail::AnyFunctionPointer>(unboxed),
                               KernelKind::Regular);
  }

  template <class Holder, class Traits, class Ret, class... Args>
  static Ret unboxedEntry(OperatorKernel* functor, DispatchKeySet ks, CanonicalArg<Args>... args) {
    auto& fn = static_cast<Holder*>(functor)->fn;
    if constexpr (Traits::takes_dispatch_key_set) {
      return fn(ks, args...);
    } else {
      (void)ks;
      return fn(args...);
    }
  }

  template <class Holder, class Traits, class Ret, class... Args>
  static void boxedFromUnboxedEntry(OperatorKernel* functor, const OperatorHandle& op,
                                    DispatchKeySet ks, Stack* stack) {
    auto args = popArgs<Args...>(*stack, op.operatorNameString());
    auto invoke = [&](auto&... unpacked) -> Ret {
      return unboxedEntry<Holder, Traits, Ret, Args...>(functor, ks, unpacked...);
    };
    if constexpr (std::is_void_v<Ret>) {
      std::apply(invoke, args);
    } else {
      stack->push_back(ValueTraits<Ret>::toValue(std::apply(invoke, args)));
    }
  }

  template <BoxedFunction* fn>
  static void boxedFunctionEntry(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks,
                                 Stack* stack) {
    fn(op, ks, stack);
  }

  template <class Holder>
  static void boxedLambdaEntry(OperatorKernel* functor, const OperatorHandle& op,
                               DispatchKeySet ks, Stack* stack) {
    static_cast<Holder*>(functor)->fn(op, ks, stack);
  }

  static void fallthroughEntry(OperatorKernel*, const OperatorHandle& op, DispatchKeySet ks,
                               Stack*) {
    throw NotImplementedError(detail::concat(
        "'", op.operatorNameString(), "' reached a fallthrough kernel for dispatch key '",
        ks.highestPriorityTypeId(),
        "'. Fallthrough kernels are skipped by call() and are only supported as backend "
        "fallbacks; a redispatch with an unmasked key set ran it."));
  }

  static void ambiguousAutogradOtherEntry(OperatorKernel*, const OperatorHandle& op,
                                          DispatchKeySet, Stack*) {
    throw AmbiguousAutogradOtherError(detail::concat(
        op.operatorNameString(),
        " has kernels registered to both CompositeImplicitAutograd and a backend mapped to "
        "AutogradOther. This makes the backend kernel unreachable; the dispatcher will always "
        "call the CompositeImplicitAutograd kernel for it. If you want to override the "
        "CompositeImplicitAutograd kernel, please open an issue to request a dedicated Autograd "
        "dispatch key for the backend. If you only want to run inference instead of training, "
        "add InferenceMode before the call.\nCanonical state\n~~~~~~~~~~~\n",
        op.dumpState()));
  }

  std::shared_ptr<OperatorKernel> functor_;
  InternalBoxedFunction boxed_ = nullptr;
  detail::AnyFunctionPointer unboxed_ = nullptr;
  KernelKind kind_ = KernelKind::Regular;
};

// A kernel plus what the registration said about it.
template <class L>
struct BasicAnnotatedKernel {
  BasicKernelFunction<L> kernel;
  std::optional<FunctionSchema> inferred_schema;
  std::string debug;
};

}  // namespace dispatch
