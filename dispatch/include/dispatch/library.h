#pragma once
// torch::Library-style registration: def/impl/fallback blocks and the static-registration
// macros DISPATCH_LIBRARY, DISPATCH_LIBRARY_IMPL, DISPATCH_LIBRARY_FRAGMENT.

#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "dispatch/dispatcher.h"

namespace dispatch {

// A kernel plus what registration needs to know about it (C++ signature, inferred schema).
template <class L>
class BasicCppFunction {
 public:
  using KernelFunction = BasicKernelFunction<L>;
  using BoxedFunction = typename KernelFunction::BoxedFunction;

  // A typed kernel: function pointer, lambda or functor (optionally taking DispatchKeySet first).
  template <class F, std::enable_if_t<!std::is_same_v<std::decay_t<F>, BasicCppFunction>, int> = 0>
  explicit BasicCppFunction(F&& f)
      : kernel_(KernelFunction::makeFromUnboxed(std::forward<F>(f))),
        cpp_signature_(CppSignature::make<Normalized<F>>()),
        inferred_schema_(inferSchema<Normalized<F>>()) {}

  static BasicCppFunction makeFallthrough() {
    return BasicCppFunction(KernelFunction::makeFallthrough());
  }
  template <BoxedFunction* fn>
  static BasicCppFunction makeFromBoxedFunction() {
    return BasicCppFunction(KernelFunction::template makeFromBoxedFunction<fn>());
  }
  template <class F>
  static BasicCppFunction makeFromBoxedLambda(F&& f) {
    return BasicCppFunction(KernelFunction::makeFromBoxedLambda(std::forward<F>(f)));
  }
  // Names the kernel in dumps and error messages instead of "registered at file:line".
  BasicCppFunction&& withDebug(std::string debug) && {
    debug_ = std::move(debug);
    return std::move(*this);
  }

  KernelFunction kernel_;
  std::optional<CppSignature> cpp_signature_;
  std::optional<FunctionSchema> inferred_schema_;
  std::string debug_;

 private:
  template <class F>
  using Normalized = typename KernelTraits<std::decay_t<F>>::NormalizedSignature;
  explicit BasicCppFunction(KernelFunction kernel) : kernel_(std::move(kernel)) {}
};

// One library block. Owns its registrations: destroying (or reset()) undoes them all.
template <class L>
class BasicLibrary {
 public:
  enum class Kind { DEF, IMPL, FRAGMENT };
  using CppFunction = BasicCppFunction<L>;

  // ns "_" with Kind::IMPL is the namespace-less block that may register fallbacks.
  BasicLibrary(Kind kind, std::string ns, std::optional<DispatchKey> key,
               BasicDispatcher<L>& dispatcher, std::string_view file = "", uint32_t line = 0);
  BasicLibrary(BasicLibrary&&) = default;
  // The constructor without the exception: the open block, or the refusal of its key, its kind
  // or its namespace claim (nothing registered).
  static std::variant<BasicLibrary, Refusal> tryOpen(Kind kind, std::string ns, std::optional<DispatchKey> key,
                                                     BasicDispatcher<L>& dispatcher,
                                                     std::string_view file = "", uint32_t line = 0);

  // Defines an operator from schema text; names without "ns::" get this library's namespace.
  BasicLibrary& def(std::string_view schema) { return raiseIf(tryDef(schema)); }
  // def, plus the given kernel as the catch-all (CompositeImplicitAutograd) implementation.
  template <class F>
  BasicLibrary& def(std::string_view schema, F&& f) {
    def(schema);
    const FunctionSchema parsed = parseSchema(schema, ns_);
    return raiseIf(tryImplFor(parsed.name, std::nullopt, toCppFunction(std::forward<F>(f))));
  }

  // Implements an operator ("op", "op.overload" or "ns::op") for this block's key; in a block
  // without a key, or with CatchAll (c10's spelling of "no key"), as the catch-all.
  template <class F>
  BasicLibrary& impl(std::string_view name, F&& f) {
    return raiseIf(tryImpl(name, std::forward<F>(f)));
  }

  // def(schema) and impl() without the exception: the refusal (the block left as it was), or
  // nullopt when the registration was made. Text that does not parse still throws SchemaError:
  // it is the caller's mistake, not a state of the dispatcher.
  std::optional<Refusal> tryDef(std::string_view schema);
  template <class F>
  std::optional<Refusal> tryImpl(std::string_view name, F&& f) {
    std::variant<OperatorName, Refusal> qualified = tryQualifiedName(name);
    if (Refusal* refusal = std::get_if<Refusal>(&qualified)) return std::move(*refusal);
    return tryImplFor(std::get<OperatorName>(std::move(qualified)), kernelKey(),
                      toCppFunction(std::forward<F>(f)));
  }

  // Registers a backend fallback for this block's key: an alias expands to its runtime keys and
  // keys the flavour has no slot for are skipped (docs/semantics.md §5.3). Only in DISPATCH_LIBRARY_IMPL(_, K).
  BasicLibrary& fallback(CppFunction f);
  // fallback() without the exception: the refusal (the block left as it was), or nullopt when
  // every key got its fallback. For callers that expect refusals often (the fuzzers' judge).
  std::optional<Refusal> tryFallback(CppFunction f);

  // Undoes every registration of this block, newest first.
  void reset();
  size_t numRegistrations() const noexcept { return registrations_.size(); }

 private:
  template <class F>
  static CppFunction toCppFunction(F&& f) {
    if constexpr (std::is_same_v<std::decay_t<F>, CppFunction>) {
      return std::forward<F>(f);
    } else {
      return CppFunction(std::forward<F>(f));
    }
  }
  struct Unopened {};  // the members set, no check made and nothing registered yet
  BasicLibrary(Unopened, Kind kind, std::string ns, std::optional<DispatchKey> key,
               BasicDispatcher<L>& dispatcher, std::string_view file, uint32_t line);
  // The constructor's checks, then DISPATCH_LIBRARY's namespace claim.
  std::optional<Refusal> open(std::string_view file, uint32_t line);
  BasicLibrary& raiseIf(const std::optional<Refusal>& refusal) {
    if (refusal) refusal->raise();
    return *this;
  }
  // Keeps a registration the dispatcher made; passes its refusal on.
  std::optional<Refusal> keep(TriedRegistration tried);
  std::optional<Refusal> tryImplFor(OperatorName name, std::optional<DispatchKey> key, CppFunction f);
  // The key kernels of this block are registered for: c10's Library turns CatchAll (the value of
  // Undefined) into no key. fallback() keeps key_ as given: Undefined expands to no keys there.
  std::optional<DispatchKey> kernelKey() const {
    return key_ == DispatchKey::CatchAll ? std::nullopt : key_;
  }
  std::variant<OperatorName, Refusal> tryQualifiedName(std::string_view name) const;
  std::string debugFor(const CppFunction& f) const;

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  BasicDispatcher<L>* dispatcher_;
  std::string where_;  // "registered at file:line"
  std::vector<RegistrationHandle> registrations_;
};

#define DISPATCH_DETAIL_EXTERN_LIBRARY(L) extern template class BasicLibrary<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_EXTERN_LIBRARY)
#undef DISPATCH_DETAIL_EXTERN_LIBRARY

namespace detail {
// Builds a library on the flavour's singleton at static-initialisation time.
template <class L>
class StaticLibrary {
 public:
  using Library = BasicLibrary<L>;
  StaticLibrary(typename Library::Kind kind, void (*init)(Library&), const char* ns,
                std::optional<DispatchKey> key, const char* file, uint32_t line)
      : library_(kind, ns, key, BasicDispatcher<L>::singleton(), file, line) {
    init(library_);
  }

 private:
  Library library_;
};
}  // namespace detail

}  // namespace dispatch

#define DISPATCH_DETAIL_CONCAT_(a, b) a##b
#define DISPATCH_DETAIL_CONCAT(a, b) DISPATCH_DETAIL_CONCAT_(a, b)
#define DISPATCH_DETAIL_UID(prefix) DISPATCH_DETAIL_CONCAT(prefix, __COUNTER__)

// DISPATCH_LIBRARY(ns, m) { m.def("op(Tensor self) -> Tensor"); } on the default flavour.
#define DISPATCH_LIBRARY(ns, m)                                                             \
  DISPATCH_DETAIL_LIBRARY(DEF, ns, std::nullopt, m, DISPATCH_DETAIL_UID(dispatch_library_))
#define DISPATCH_LIBRARY_FRAGMENT(ns, m)                                                    \
  DISPATCH_DETAIL_LIBRARY(FRAGMENT, ns, std::nullopt, m,                                    \
                          DISPATCH_DETAIL_UID(dispatch_library_fragment_))
// DISPATCH_LIBRARY_IMPL(ns, CPU, m) { m.impl("op", fn); }; ns "_" for fallbacks.
#define DISPATCH_LIBRARY_IMPL(ns, k, m)                                                     \
  DISPATCH_DETAIL_LIBRARY(IMPL, ns, ::dispatch::DispatchKey::k, m,                          \
                          DISPATCH_DETAIL_UID(dispatch_library_impl_))
#define DISPATCH_DETAIL_LIBRARY(kind, ns, key, m, uid)                                      \
  static void DISPATCH_DETAIL_CONCAT(uid, _init)(::dispatch::Library&);                     \
  static const ::dispatch::detail::StaticLibrary<::dispatch::Layout>                        \
      DISPATCH_DETAIL_CONCAT(uid, _static)(::dispatch::Library::Kind::kind,                 \
                                           &DISPATCH_DETAIL_CONCAT(uid, _init), #ns, key,   \
                                           __FILE__, __LINE__);                             \
  void DISPATCH_DETAIL_CONCAT(uid, _init)(::dispatch::Library & m)
