#pragma once
// Compile-time machinery for unboxed kernels: signature traits, the canonical calling
// convention, C++ signature identity, schema inference, key extraction, and boxing helpers.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "dispatch/schema.h"
#include "dispatch/tensor.h"
#include "dispatch/value.h"

namespace dispatch {

template <class... Ts>
struct TypeList {
  static constexpr size_t size = sizeof...(Ts);
};

// --- KernelTraits ------------------------------------------------------------------------------

namespace detail {

// A kernel may take the dispatch key set as a hidden first parameter (for redispatch, docs/semantics.md §5.4);
// it is not part of the operator's signature, so the traits drop it.
template <class... Args>
struct DropKeySet {
  static constexpr bool takes_dispatch_key_set = false;
  using type = TypeList<Args...>;
};
template <class First, class... Rest>
struct DropKeySet<First, Rest...> {
  static constexpr bool takes_dispatch_key_set =
      std::is_same_v<std::decay_t<First>, DispatchKeySet>;
  using type =
      std::conditional_t<takes_dispatch_key_set, TypeList<Rest...>, TypeList<First, Rest...>>;
};

template <class Ret, class ArgList>
struct NormalizeSignature;
template <class Ret, class... Args>
struct NormalizeSignature<Ret, TypeList<Args...>> {
  using type = std::decay_t<Ret>(std::decay_t<Args>...);
};

template <class Ret, class... Args>
struct FunctionTraitsImpl {
  using ReturnType = Ret;
  using FunctionType = Ret(Args...);  // as declared, keyset parameter included
  static constexpr bool takes_dispatch_key_set = DropKeySet<Args...>::takes_dispatch_key_set;
  using ArgTypes = typename DropKeySet<Args...>::type;
  static constexpr size_t num_args = ArgTypes::size;
  using NormalizedSignature = typename NormalizeSignature<Ret, ArgTypes>::type;
};

template <class F>
concept HasSingleCallOperator = requires { &F::operator(); };

template <class F>
struct CallableTraits {
  static_assert(HasSingleCallOperator<F>,
                "KernelTraits<F>: F must be a function, a function pointer, or a lambda/functor "
                "with exactly one non-template operator() (generic lambdas have no signature)");
};
template <HasSingleCallOperator F>
struct CallableTraits<F> : CallableTraits<decltype(&F::operator())> {};

template <class R, class... A>
struct CallableTraits<R(A...)> : FunctionTraitsImpl<R, A...> {};
template <class R, class... A>
struct CallableTraits<R(A...) noexcept> : FunctionTraitsImpl<R, A...> {};
template <class R, class... A>
struct CallableTraits<R (*)(A...)> : FunctionTraitsImpl<R, A...> {};
template <class R, class... A>
struct CallableTraits<R (*)(A...) noexcept> : FunctionTraitsImpl<R, A...> {};
// operator() of lambdas and functors; non-const too, so that mutable lambdas have traits (whether
// such a kernel is accepted is the kernel wrapper's decision).
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...) const> : FunctionTraitsImpl<R, A...> {};
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...) const noexcept> : FunctionTraitsImpl<R, A...> {};
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...)> : FunctionTraitsImpl<R, A...> {};
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...) noexcept> : FunctionTraitsImpl<R, A...> {};

}  // namespace detail

// For a function type, function pointer, lambda or functor F (cv/ref-qualified forms too):
//   ReturnType, ArgTypes (TypeList, without a leading DispatchKeySet), num_args,
//   takes_dispatch_key_set, FunctionType (as declared), and
//   NormalizedSignature = decay_t<Ret>(decay_t<Args>...) without the key set.
template <class F>
struct KernelTraits : detail::CallableTraits<std::remove_cvref_t<F>> {};

// Note [Canonical Calling Convention]
// Every unboxed entry point passes scalars by value and everything else by const reference.
// A kernel declared Tensor(Tensor, int64_t) and a caller typed Tensor(const Tensor&, int64_t)
// have the same NormalizedSignature, so both sides must also agree on the function-pointer type
// actually called through; calling through a pointer of another type would be UB.
template <class T>
using CanonicalArg =
    std::conditional_t<std::is_scalar_v<std::decay_t<T>>, std::decay_t<T>, const std::decay_t<T>&>;

// R(A...) -> R(CanonicalArg<A>...), for a normalized signature.
template <class Sig>
struct CanonicalSignature;
template <class R, class... A>
struct CanonicalSignature<R(A...)> {
  using type = R(CanonicalArg<A>...);
};
template <class Sig>
using CanonicalSignature_t = typename CanonicalSignature<Sig>::type;

// --- CppSignature ------------------------------------------------------------------------------

// The identity of a kernel's or caller's C++ signature (docs/semantics.md §4.3 step 1), taken from the
// normalized signature: Tensor(Tensor, int64_t), Tensor(const Tensor&, int64_t) and
// Tensor(DispatchKeySet, const Tensor&, int64_t) are the same signature.
class CppSignature final {
 public:
  // F: anything KernelTraits accepts.
  template <class F>
  static CppSignature make() {
    return CppSignature(typeid(typename KernelTraits<F>::NormalizedSignature));
  }

  // Demangled, e.g. "dispatch::Tensor (dispatch::Tensor, long)". Built on each use: only error
  // messages need it, while every registration and typed() makes a signature.
  std::string name() const;

  friend bool operator==(const CppSignature& a, const CppSignature& b) noexcept {
    return a.type_ == b.type_;
  }

 private:
  explicit CppSignature(const std::type_info& type) noexcept : type_(type) {}

  std::type_index type_;
};

std::ostream& operator<<(std::ostream& out, const CppSignature& sig);

// --- inferSchema -------------------------------------------------------------------------------

namespace detail {
template <class T>
constexpr ArgType argTypeOf() {
  if constexpr (is_supported_value_type_v<T>) {
    return ValueTraits<T>::type;
  } else {
    static_assert(is_supported_value_type_v<T>,
                  "unsupported kernel argument or return type (see T in this instantiation): "
                  "use Tensor, std::optional<Tensor>, std::vector<Tensor>, int64_t, double, bool "
                  "or std::string (no int, float, const char*), or void as a return type");
    return ArgType::Tensor;
  }
}

// "_<i>". Built by appending: GCC 12 -O3 reports a false -Wrestrict for "_" + std::to_string(i).
inline std::string inferredArgName(size_t i) {
  std::string name = "_";
  name += std::to_string(i);
  return name;
}

template <class Sig>
struct SchemaInference;
template <class R, class... A>
struct SchemaInference<R(A...)> {
  static FunctionSchema infer(OperatorName name) {
    FunctionSchema schema{std::move(name), {}, {}};
    schema.arguments.reserve(sizeof...(A));
    [[maybe_unused]] size_t i = 0;
    ((schema.arguments.push_back(Argument{inferredArgName(i++), argTypeOf<A>()})), ...);
    if constexpr (!std::is_void_v<R>) schema.returns.push_back(argTypeOf<R>());
    return schema;
  }
};
}  // namespace detail

// The schema a kernel's C++ signature implies: arguments "_0", "_1", ...; a void return means no
// returns. F: anything KernelTraits accepts (the key-set parameter is not part of the schema).
template <class F>
FunctionSchema inferSchema(OperatorName name = {}) {
  return detail::SchemaInference<typename KernelTraits<F>::NormalizedSignature>::infer(
      std::move(name));
}

// --- key extraction (docs/semantics.md §4.9) -----------------------------------------------------------------

namespace detail {
template <class T>
constexpr DispatchKeySet keySetOfArg([[maybe_unused]] const T& arg) noexcept {
  if constexpr (std::is_same_v<T, Tensor>) {
    return arg.key_set();
  } else if constexpr (std::is_same_v<T, std::optional<Tensor>>) {
    return arg ? arg->key_set() : DispatchKeySet();
  } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    DispatchKeySet ks;
    for (const Tensor& t : arg) ks = ks | t.key_set();
    return ks;
  } else {
    return DispatchKeySet();  // int, double, bool, str carry no keys
  }
}
}  // namespace detail

// OR of the key sets of every Tensor, engaged optional<Tensor> and Tensor list argument. No
// allocation, no branches beyond the optional and the list loops.
template <class... Args>
constexpr DispatchKeySet keySetOfArgs(const Args&... args) noexcept {
  return (DispatchKeySet() | ... | detail::keySetOfArg(args));
}

// The boxed counterpart: OR over the last num_args values (all of them if the stack is
// shorter) of kind Tensor or TensorList. None and scalars contribute nothing.
inline DispatchKeySet keySetOfStack(const Stack& stack, size_t num_args) noexcept {
  DispatchKeySet ks;
  const size_t first = num_args >= stack.size() ? 0 : stack.size() - num_args;
  for (size_t i = first; i < stack.size(); ++i) {
    if (const Tensor* t = stack[i].tryToTensor()) {
      ks = ks | t->key_set();
    } else if (const std::vector<Tensor>* ts = stack[i].tryToTensorList()) {
      for (const Tensor& e : *ts) ks = ks | e.key_set();
    }
  }
  return ks;
}

// --- boxing helpers ----------------------------------------------------------------------------

namespace detail {
// Out of line so the templates below stay small; each throws BoxedCallError.
[[noreturn]] void throwTooFewArgs(std::string_view op_name, size_t expected, const Stack& stack);
[[noreturn]] void throwArgKindMismatch(std::string_view op_name, size_t index, size_t count,
                                       const Value& v, ArgType expected);
[[noreturn]] void throwReturnMismatch(std::string_view op_name, size_t expected,
                                      const Stack& stack);

inline void checkArgKind(std::string_view op_name, size_t index, size_t count, const Value& v,
                         ArgType expected) {
  if (!fitsArgType(v, expected)) throwArgKindMismatch(op_name, index, count, v, expected);
}
}  // namespace detail

// Pushes each argument as a Value, first argument deepest.
template <class... Args>
void pushArgs(Stack& stack, const Args&... args) {
  static_assert((is_supported_value_type_v<Args> && ...),
                "pushArgs: every argument must be Tensor, std::optional<Tensor>, "
                "std::vector<Tensor>, int64_t, double, bool or std::string");
  (stack.push_back(ValueTraits<Args>::toValue(args)), ...);
}

// Takes a boxed kernel's result off the stack. The stack must hold exactly the returns (the
// kernel popped its arguments): nothing for void, else one value of Ret's kind. Anything else
// throws BoxedCallError naming op_name; the stack is then left as it was.
template <class Ret>
Ret popReturn(Stack& stack, std::string_view op_name) {
  if constexpr (std::is_void_v<Ret>) {
    if (!stack.empty()) detail::throwReturnMismatch(op_name, 0, stack);
  } else {
    constexpr ArgType type = detail::argTypeOf<Ret>();
    if (stack.size() != 1) detail::throwReturnMismatch(op_name, 1, stack);
    detail::checkArgKind(op_name, 0, 0, stack.back(), type);  // count 0: "return value"
    Ret result = ValueTraits<Ret>::fromValue(std::move(stack.back()));
    stack.pop_back();
    return result;
  }
}

// Pops the last sizeof...(Args) values, converting the first of them to the first Args. All
// kinds are checked before anything is moved, so on BoxedCallError (too few values, or a kind
// mismatch naming op_name and the 0-based argument index) the stack is unchanged.
template <class... Args>
std::tuple<std::decay_t<Args>...> popArgs(Stack& stack, std::string_view op_name) {
  constexpr size_t n = sizeof...(Args);
  if (stack.size() < n) detail::throwTooFewArgs(op_name, n, stack);
  const size_t base = stack.size() - n;
  [&]<size_t... I>(std::index_sequence<I...>) {
    (detail::checkArgKind(op_name, I, n, stack[base + I], detail::argTypeOf<std::decay_t<Args>>()),
     ...);
  }(std::index_sequence_for<Args...>{});
  auto result = [&]<size_t... I>(std::index_sequence<I...>) {
    // Braced initialization evaluates left to right.
    return std::tuple<std::decay_t<Args>...>{
        ValueTraits<std::decay_t<Args>>::fromValue(std::move(stack[base + I]))...};
  }(std::index_sequence_for<Args...>{});
  stack.resize(base);
  return result;
}

}  // namespace dispatch
