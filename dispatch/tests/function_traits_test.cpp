// Kernel signature traits, CppSignature, schema inference, key extraction and boxing helpers.

#include "dispatch/function_traits.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <type_traits>

namespace dispatch {
namespace {

const Tensor kCpu = makeTensor(TensorKind::Dense, BC::CPUBit, false, false, 1);
const Tensor kCuda = makeTensor(TensorKind::Dense, BC::CUDABit, false, false, 2);
const Tensor kMeta = makeTensor(TensorKind::Dense, BC::MetaBit, false, false, 3);

Tensor freeKernel(const Tensor& t, int64_t) { return t; }
Tensor freeKernelWithKeys(DispatchKeySet, Tensor t, int64_t) noexcept { return t; }
void voidKernel(std::vector<Tensor>, std::optional<Tensor>, double, bool, std::string) {}

struct Functor {
  Tensor operator()(const Tensor& t, const int64_t&) const { return t; }
};
struct FunctorWithKeys {
  Tensor operator()(const DispatchKeySet&, const Tensor& t, int64_t) const noexcept { return t; }
};

template <class A, class B>
constexpr bool same = std::is_same_v<A, B>;

// --- KernelTraits ---

TEST(KernelTraitsTest, FunctionTypesAndPointers) {
  using F = KernelTraits<decltype(freeKernel)>;
  static_assert(same<F::ReturnType, Tensor>);
  static_assert(same<F::ArgTypes, TypeList<const Tensor&, int64_t>>);
  static_assert(!F::takes_dispatch_key_set);
  static_assert(F::num_args == 2);
  static_assert(same<F::NormalizedSignature, Tensor(Tensor, int64_t)>);
  static_assert(same<F::FunctionType, Tensor(const Tensor&, int64_t)>);

  using P = KernelTraits<decltype(&freeKernelWithKeys)>;
  static_assert(P::takes_dispatch_key_set);
  static_assert(same<P::ArgTypes, TypeList<Tensor, int64_t>>);
  static_assert(same<P::NormalizedSignature, Tensor(Tensor, int64_t)>);
  static_assert(same<P::FunctionType, Tensor(DispatchKeySet, Tensor, int64_t)>);

  using V = KernelTraits<decltype(voidKernel)>;
  static_assert(same<V::ReturnType, void>);
  static_assert(V::num_args == 5);
  static_assert(
      same<V::NormalizedSignature,
           void(std::vector<Tensor>, std::optional<Tensor>, double, bool, std::string)>);

  // A keyset-only kernel takes no operator arguments.
  using K = KernelTraits<void(DispatchKeySet)>;
  static_assert(K::takes_dispatch_key_set && K::num_args == 0);
  static_assert(same<K::NormalizedSignature, void()>);
  static_assert(!KernelTraits<void()>::takes_dispatch_key_set);
  // Only the first parameter counts as the hidden key set.
  using Later = KernelTraits<void(Tensor, DispatchKeySet)>;
  static_assert(!Later::takes_dispatch_key_set && Later::num_args == 2);
}

TEST(KernelTraitsTest, LambdasAndFunctors) {
  auto lambda = [](const Tensor& t, int64_t) { return t; };
  auto with_keys = [](DispatchKeySet, const Tensor& t, int64_t) -> Tensor { return t; };
  // A call operator that is not const (the count is read, so newer clangs see it used).
  auto mutable_lambda = [n = 0](Tensor t) mutable { return ++n > 0 ? t : Tensor(); };
  using L = KernelTraits<decltype(lambda)>;
  static_assert(!L::takes_dispatch_key_set);
  static_assert(same<L::NormalizedSignature, Tensor(Tensor, int64_t)>);
  using LK = KernelTraits<const decltype(with_keys)&>;
  static_assert(LK::takes_dispatch_key_set);
  static_assert(same<LK::ArgTypes, TypeList<const Tensor&, int64_t>>);
  static_assert(same<LK::NormalizedSignature, Tensor(Tensor, int64_t)>);
  static_assert(same<KernelTraits<decltype(mutable_lambda)>::NormalizedSignature, Tensor(Tensor)>);

  static_assert(same<KernelTraits<Functor>::NormalizedSignature, Tensor(Tensor, int64_t)>);
  static_assert(same<KernelTraits<Functor>::ArgTypes, TypeList<const Tensor&, const int64_t&>>);
  static_assert(KernelTraits<FunctorWithKeys>::takes_dispatch_key_set);  // const& decays too
  static_assert(same<KernelTraits<FunctorWithKeys>::NormalizedSignature, Tensor(Tensor, int64_t)>);
}

TEST(KernelTraitsTest, CanonicalArg) {
  static_assert(same<CanonicalArg<int64_t>, int64_t>);
  static_assert(same<CanonicalArg<const int64_t&>, int64_t>);
  static_assert(same<CanonicalArg<double>, double>);
  static_assert(same<CanonicalArg<bool>, bool>);
  static_assert(same<CanonicalArg<Tensor>, const Tensor&>);
  static_assert(same<CanonicalArg<const Tensor&>, const Tensor&>);
  static_assert(same<CanonicalArg<Tensor&&>, const Tensor&>);
  static_assert(same<CanonicalArg<std::string>, const std::string&>);
  static_assert(same<CanonicalArg<std::optional<Tensor>>, const std::optional<Tensor>&>);
  static_assert(same<CanonicalArg<DispatchKeySet>, const DispatchKeySet&>);  // a class, not scalar
  // Kernel and caller spelled differently end up with one function-pointer type.
  using FromKernel = CanonicalSignature_t<KernelTraits<Tensor(Tensor, int64_t)>::NormalizedSignature>;
  using FromCaller =
      CanonicalSignature_t<KernelTraits<Tensor(const Tensor&, int64_t)>::NormalizedSignature>;
  static_assert(same<FromKernel, FromCaller>);
  static_assert(same<FromKernel, Tensor(const Tensor&, int64_t)>);
}

// A kernel written in the canonical convention is callable through the canonical pointer type
// both sides compute, whatever spelling the caller used.
TEST(KernelTraitsTest, CanonicalPointerCallsKernel) {
  using Sig = KernelTraits<Tensor(Tensor, int64_t)>::NormalizedSignature;
  CanonicalSignature_t<Sig>* fn = &freeKernel;
  EXPECT_EQ(fn(kCpu, 1), kCpu);
  EXPECT_EQ(freeKernelWithKeys(kCuda.key_set(), kCuda, 1), kCuda);
  voidKernel({}, std::nullopt, 0.0, false, "");
}

// --- CppSignature ---

TEST(CppSignatureTest, EqualityIgnoresReferencesAndKeySet) {
  const auto a = CppSignature::make<Tensor(Tensor, int64_t)>();
  EXPECT_EQ(a, CppSignature::make<Tensor(const Tensor&, int64_t)>());
  EXPECT_EQ(a, CppSignature::make<Tensor(DispatchKeySet, const Tensor&, int64_t)>());
  EXPECT_EQ(a, CppSignature::make<decltype(freeKernel)>());
  EXPECT_EQ(a, CppSignature::make<decltype(&freeKernelWithKeys)>());
  EXPECT_EQ(a, CppSignature::make<Functor>());
  auto lambda = [](const Tensor& t, int64_t) { return t; };
  EXPECT_EQ(a, CppSignature::make<decltype(lambda)>());

  EXPECT_FALSE(a == CppSignature::make<Tensor(Tensor, double)>());
  EXPECT_FALSE(a == CppSignature::make<Tensor(Tensor)>());
  EXPECT_FALSE(a == CppSignature::make<void(Tensor, int64_t)>());
  EXPECT_FALSE(a == CppSignature::make<Tensor(int64_t, Tensor)>());
}

TEST(CppSignatureTest, ReadableName) {
  const std::string name = CppSignature::make<Tensor(const Tensor&, int64_t)>().name();
  EXPECT_NE(name.find("dispatch::Tensor ("), std::string::npos) << name;
  EXPECT_EQ(name.find('&'), std::string::npos) << name;  // normalized: no references
}

// --- inferSchema ---

TEST(InferSchemaTest, FromSignature) {
  const FunctionSchema s = inferSchema<Tensor(const Tensor&, int64_t)>();
  EXPECT_EQ(toString(s), "(Tensor _0, int _1) -> Tensor");
  EXPECT_EQ(s, inferSchema<decltype(freeKernelWithKeys)>());  // key set is not an argument

  const FunctionSchema v = inferSchema<decltype(voidKernel)>(OperatorName{"ns::v", "x"});
  EXPECT_EQ(toString(v), "ns::v.x(Tensor[] _0, Tensor? _1, float _2, bool _3, str _4) -> ()");
  EXPECT_EQ(toString(inferSchema<bool()>()), "() -> bool");
}

TEST(InferSchemaTest, MatchesParsedSchema) {
  const FunctionSchema declared = parseSchema("ns::op(Tensor self, int n) -> Tensor");
  EXPECT_EQ(findSchemaDifferences(declared, inferSchema<Functor>()), std::nullopt);
  EXPECT_EQ(findSchemaDifferences(declared, inferSchema<Tensor(Tensor, double)>()),
            "Type mismatch in argument 2: int vs float");
}

// --- key extraction ---

TEST(KeySetOfArgsTest, OrsTensorLikeArguments) {
  EXPECT_EQ(keySetOfArgs(), DispatchKeySet());
  EXPECT_EQ(keySetOfArgs(int64_t{1}, 2.0, true, std::string("s")), DispatchKeySet());
  EXPECT_EQ(keySetOfArgs(kCpu), kCpu.key_set());
  EXPECT_EQ(keySetOfArgs(kCpu, int64_t{3}, kCuda), kCpu.key_set() | kCuda.key_set());
  EXPECT_EQ(keySetOfArgs(std::optional<Tensor>()), DispatchKeySet());
  EXPECT_EQ(keySetOfArgs(std::optional<Tensor>(kMeta), int64_t{1}), kMeta.key_set());
  EXPECT_EQ(keySetOfArgs(std::vector<Tensor>{kCpu, kMeta}), kCpu.key_set() | kMeta.key_set());
  EXPECT_EQ(keySetOfArgs(Tensor(), std::vector<Tensor>{}), DispatchKeySet());
  // Mixed devices: CUDA outranks CPU (docs/semantics.md §1.2).
  EXPECT_EQ(keySetOfArgs(kCpu, kCuda).highestPriorityTypeId(), DK::AutocastCUDA);
  EXPECT_EQ(highestPriorityBackendTypeId(keySetOfArgs(kCpu, kCuda)), DK::CUDA);
  static_assert(keySetOfArgs(Tensor(DispatchKeySet(DK::CPU)), int64_t{1}) ==
                DispatchKeySet(DK::CPU));
  static_assert(noexcept(keySetOfArgs(kCpu, std::vector<Tensor>{})));
}

TEST(KeySetOfStackTest, OrsTensorValuesOfTheArguments) {
  const Stack stack{Value(kMeta), Value(kCpu), Value(), Value(std::vector<Tensor>{kCuda}),
                    Value(3)};
  EXPECT_EQ(keySetOfStack(stack, 0), DispatchKeySet());
  EXPECT_EQ(keySetOfStack(stack, 1), DispatchKeySet());
  EXPECT_EQ(keySetOfStack(stack, 3), kCuda.key_set());
  EXPECT_EQ(keySetOfStack(stack, 4), kCuda.key_set() | kCpu.key_set());
  EXPECT_EQ(keySetOfStack(stack, 5), kCuda.key_set() | kCpu.key_set() | kMeta.key_set());
  EXPECT_EQ(keySetOfStack(stack, 100), keySetOfStack(stack, 5));
  EXPECT_EQ(keySetOfStack(Stack{}, 2), DispatchKeySet());
}

TEST(KeySetOfStackTest, AgreesWithUnboxed) {
  Stack stack;
  pushArgs(stack, kCpu, std::optional<Tensor>(kMeta), std::vector<Tensor>{kCuda}, int64_t{2});
  EXPECT_EQ(keySetOfStack(stack, 4),
            keySetOfArgs(kCpu, std::optional<Tensor>(kMeta), std::vector<Tensor>{kCuda}, int64_t{2}));
}

// --- boxing helpers ---

TEST(BoxingTest, PushPopRoundTrip) {
  Stack stack{Value("below")};
  pushArgs(stack, kCpu, int64_t{7}, 1.5, true, std::string("s"), std::vector<Tensor>{kCuda},
           std::optional<Tensor>(), std::optional<Tensor>(kMeta));
  ASSERT_EQ(stack.size(), 9u);
  EXPECT_EQ(stack[1], Value(kCpu));
  EXPECT_EQ(stack[7], Value());

  auto [t, i, d, b, s, l, none, some] =
      popArgs<const Tensor&, int64_t, double, bool, std::string, std::vector<Tensor>,
              std::optional<Tensor>, std::optional<Tensor>>(stack, "ns::op");
  static_assert(same<decltype(t), Tensor>);  // decayed
  EXPECT_EQ(t, kCpu);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(b);
  EXPECT_EQ(s, "s");
  EXPECT_EQ(l, std::vector<Tensor>{kCuda});
  EXPECT_EQ(none, std::nullopt);
  EXPECT_EQ(some, kMeta);
  EXPECT_EQ(stack, Stack{Value("below")});  // only the arguments were popped
}

TEST(BoxingTest, PopNothing) {
  Stack stack{Value(1)};
  EXPECT_EQ(popArgs<>(stack, "ns::op"), std::tuple<>());
  EXPECT_EQ(stack.size(), 1u);
}

std::string boxingError(const std::function<void()>& f) {
  try {
    f();
  } catch (const BoxedCallError& e) {
    return e.what();
  }
  return "";
}

TEST(BoxingTest, PopArgsTooFew) {
  Stack stack{Value(kCpu)};
  const std::string err = boxingError([&] { popArgs<Tensor, int64_t>(stack, "ns::few"); });
  EXPECT_NE(err.find("ns::few"), std::string::npos) << err;
  EXPECT_NE(err.find("expected 2"), std::string::npos) << err;
  EXPECT_NE(err.find("only 1"), std::string::npos) << err;
  EXPECT_EQ(stack.size(), 1u);
}

TEST(BoxingTest, PopArgsKindMismatchLeavesStackUnchanged) {
  Stack stack{Value(std::string(50, 'x')), Value(kCpu), Value(2.0)};
  const Stack before = stack;
  const std::string err =
      boxingError([&] { popArgs<std::string, Tensor, int64_t>(stack, "ns::kind"); });
  EXPECT_NE(err.find("ns::kind"), std::string::npos) << err;
  EXPECT_NE(err.find("argument 2"), std::string::npos) << err;
  EXPECT_NE(err.find("int"), std::string::npos) << err;
  EXPECT_NE(err.find("Double"), std::string::npos) << err;
  EXPECT_EQ(stack, before);  // nothing was moved out before the check failed
  // None fits Tensor? but not Tensor.
  Stack none{Value()};
  EXPECT_THROW(popArgs<Tensor>(none, "ns::op"), BoxedCallError);
  EXPECT_EQ(std::get<0>(popArgs<std::optional<Tensor>>(none, "ns::op")), std::nullopt);
}

TEST(BoxingTest, PopReturn) {
  Stack stack{Value(kCpu)};
  EXPECT_EQ(popReturn<Tensor>(stack, "ns::op"), kCpu);
  EXPECT_TRUE(stack.empty());
  EXPECT_NO_THROW(popReturn<void>(stack, "ns::op"));
  stack = {Value()};
  EXPECT_EQ(popReturn<std::optional<Tensor>>(stack, "ns::op"), std::nullopt);
  stack = {Value(std::vector<Tensor>{kCuda})};
  EXPECT_EQ(popReturn<std::vector<Tensor>>(stack, "ns::op"), std::vector<Tensor>{kCuda});
}

TEST(BoxingTest, PopReturnErrors) {
  Stack stack;
  std::string err = boxingError([&] { popReturn<Tensor>(stack, "ns::none"); });
  EXPECT_NE(err.find("ns::none"), std::string::npos) << err;
  EXPECT_NE(err.find("exactly 1"), std::string::npos) << err;

  stack = {Value(1)};
  err = boxingError([&] { popReturn<void>(stack, "ns::void"); });
  EXPECT_NE(err.find("ns::void"), std::string::npos) << err;
  EXPECT_NE(err.find("exactly 0"), std::string::npos) << err;

  stack = {Value(kCpu), Value(kCpu)};
  EXPECT_THROW(popReturn<Tensor>(stack, "ns::two"), BoxedCallError);
  EXPECT_EQ(stack.size(), 2u);

  stack = {Value("s")};
  err = boxingError([&] { popReturn<Tensor>(stack, "ns::kind"); });
  EXPECT_NE(err.find("ns::kind"), std::string::npos) << err;
  EXPECT_NE(err.find("return value must be Tensor"), std::string::npos) << err;
  EXPECT_EQ(stack, Stack{Value("s")});
}

}  // namespace
}  // namespace dispatch
