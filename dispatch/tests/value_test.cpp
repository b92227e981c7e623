// Value (our IValue), its printing, and the ValueTraits conversions used by boxing.

#include "dispatch/value.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

namespace dispatch {
namespace {

const Tensor kCpu = makeTensor(TensorKind::Dense, BC::CPUBit, false, false, 1);
const Tensor kCuda = makeTensor(TensorKind::Dense, BC::CUDABit, false, false, 2);

std::string str(const Value& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

TEST(ValueTest, KindsFromConstructors) {
  EXPECT_EQ(Value().tag(), Value::Tag::None);
  EXPECT_EQ(Value(std::nullopt).tag(), Value::Tag::None);
  EXPECT_EQ(Value(true).tag(), Value::Tag::Bool);
  EXPECT_EQ(Value(int64_t{3}).tag(), Value::Tag::Int);
  EXPECT_EQ(Value(3).tag(), Value::Tag::Int);
  EXPECT_EQ(Value(3u).tag(), Value::Tag::Int);
  EXPECT_EQ(Value(2.5).tag(), Value::Tag::Double);
  EXPECT_EQ(Value(2.5f).tag(), Value::Tag::Double);
  EXPECT_EQ(Value("abc").tag(), Value::Tag::String);
  EXPECT_EQ(Value(std::string("abc")).tag(), Value::Tag::String);
  EXPECT_EQ(Value(std::string_view("abc")).tag(), Value::Tag::String);
  EXPECT_EQ(Value(kCpu).tag(), Value::Tag::Tensor);
  EXPECT_EQ(Value(Tensor()).tag(), Value::Tag::Tensor);  // undefined is still a Tensor
  EXPECT_EQ(Value(std::vector<Tensor>{kCpu}).tag(), Value::Tag::TensorList);
  EXPECT_EQ(Value(std::optional<Tensor>()).tag(), Value::Tag::None);
  EXPECT_EQ(Value(std::optional<Tensor>(kCpu)).tag(), Value::Tag::Tensor);
}

// The classic IValue pitfall: a pointer or a char silently becoming a Bool or an Int.
TEST(ValueTest, NoSurprisingConversions) {
  static_assert(!std::is_constructible_v<Value, int*>);
  static_assert(!std::is_constructible_v<Value, const void*>);
  static_assert(!std::is_constructible_v<Value, char>);
  static_assert(!std::is_constructible_v<Value, std::nullptr_t>);
  static_assert(!std::is_constructible_v<Value, uint64_t>);  // would not fit int64_t
  static_assert(!std::is_constructible_v<Value, long double>);
  static_assert(!std::is_constructible_v<Value, DispatchKeySet>);
  static_assert(std::is_constructible_v<Value, const char*>);
  EXPECT_TRUE(Value("x").isString());
}

TEST(ValueTest, Accessors) {
  EXPECT_TRUE(Value().isNone());
  EXPECT_TRUE(Value(false).isBool());
  EXPECT_FALSE(Value(false).toBool());
  EXPECT_EQ(Value(-5).toInt(), -5);
  EXPECT_EQ(Value(std::numeric_limits<int64_t>::min()).toInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_DOUBLE_EQ(Value(0.25).toDouble(), 0.25);
  EXPECT_EQ(Value("hi").toString(), "hi");
  EXPECT_EQ(Value(kCpu).toTensor(), kCpu);
  EXPECT_EQ(Value(std::vector<Tensor>{kCpu, kCuda}).toTensorList(),
            (std::vector<Tensor>{kCpu, kCuda}));
  EXPECT_EQ(*Value(kCpu).tryToTensor(), kCpu);
  EXPECT_EQ(Value(1).tryToTensor(), nullptr);
  EXPECT_EQ(Value(kCpu).tryToTensorList(), nullptr);
}

TEST(ValueTest, RvalueAccessorsMove) {
  Value s(std::string(100, 'x'));
  const std::string taken = std::move(s).toString();
  EXPECT_EQ(taken.size(), 100u);
  Value l(std::vector<Tensor>{kCpu});
  EXPECT_EQ(std::move(l).toTensorList().size(), 1u);
}

TEST(ValueTest, WrongKindThrowsNamingBothKinds) {
  try {
    (void)Value("abc").toInt();
    FAIL() << "expected BoxedCallError";
  } catch (const BoxedCallError& e) {
    EXPECT_NE(std::string(e.what()).find("Int"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("String"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Value().toTensor(), BoxedCallError);
  EXPECT_THROW((void)Value(1).toBool(), BoxedCallError);
  EXPECT_THROW((void)Value(1).toDouble(), BoxedCallError);
  EXPECT_THROW((void)Value(kCpu).toTensorList(), BoxedCallError);
  EXPECT_THROW((void)Value(1.0).toString(), BoxedCallError);
  EXPECT_THROW((void)Value(std::vector<Tensor>{}).toTensor(), BoxedCallError);
}

TEST(ValueTest, NullCStringThrows) {
  const char* null = nullptr;
  EXPECT_THROW(Value{null}, Error);
}

TEST(ValueTest, Equality) {
  EXPECT_EQ(Value(), Value(std::nullopt));
  EXPECT_EQ(Value(3), Value(int64_t{3}));
  EXPECT_NE(Value(3), Value(3.0));  // different kinds are never equal
  EXPECT_NE(Value(1), Value(true));
  EXPECT_EQ(Value("a"), Value(std::string("a")));
  EXPECT_NE(Value(kCpu), Value(kCuda));
  EXPECT_EQ(Value(std::vector<Tensor>{kCpu}), Value(std::vector<Tensor>{kCpu}));
  EXPECT_NE(Value(std::vector<Tensor>{kCpu}), Value(kCpu));
  EXPECT_NE(Value(std::numeric_limits<double>::quiet_NaN()),
            Value(std::numeric_limits<double>::quiet_NaN()));
}

TEST(ValueTest, Printing) {
  EXPECT_EQ(str(Value()), "None");
  EXPECT_EQ(str(Value(true)), "true");
  EXPECT_EQ(str(Value(-7)), "-7");
  EXPECT_EQ(str(Value(2.5)), "2.5");
  EXPECT_EQ(str(Value(1.0)), "1.0");  // a Double never reads like an Int
  EXPECT_EQ(str(Value(0.1)), "0.1");
  EXPECT_EQ(str(Value(1e300)), "1e+300");
  EXPECT_EQ(str(Value(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(str(Value("a\"b\\c\n")), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(str(Value(Tensor(DispatchKeySet(DK::CPU), 4))), "Tensor(id=4, DispatchKeySet(CPU))");
  EXPECT_EQ(str(Value(std::vector<Tensor>{})), "[]");
  EXPECT_EQ(str(Value(std::vector<Tensor>{Tensor(), Tensor(DispatchKeySet(DK::CUDA), 1)})),
            "[Tensor(undefined, id=0), Tensor(id=1, DispatchKeySet(CUDA))]");
  std::ostringstream out;
  out << Stack{Value(1), Value("x")} << ' ' << Value::Tag::TensorList;
  EXPECT_EQ(out.str(), "Stack[1, \"x\"] TensorList");
}

TEST(ValueTest, FitsArgType) {
  EXPECT_TRUE(fitsArgType(Value(kCpu), ArgType::Tensor));
  EXPECT_TRUE(fitsArgType(Value(Tensor()), ArgType::Tensor));
  EXPECT_FALSE(fitsArgType(Value(), ArgType::Tensor));
  EXPECT_TRUE(fitsArgType(Value(), ArgType::OptionalTensor));
  EXPECT_TRUE(fitsArgType(Value(kCpu), ArgType::OptionalTensor));
  EXPECT_FALSE(fitsArgType(Value(1), ArgType::OptionalTensor));
  EXPECT_TRUE(fitsArgType(Value(std::vector<Tensor>{}), ArgType::TensorList));
  EXPECT_FALSE(fitsArgType(Value(kCpu), ArgType::TensorList));
  EXPECT_TRUE(fitsArgType(Value(1), ArgType::Int));
  EXPECT_FALSE(fitsArgType(Value(1), ArgType::Float));  // no int -> float promotion
  EXPECT_TRUE(fitsArgType(Value(1.0), ArgType::Float));
  EXPECT_TRUE(fitsArgType(Value(true), ArgType::Bool));
  EXPECT_FALSE(fitsArgType(Value(true), ArgType::Int));
  EXPECT_TRUE(fitsArgType(Value("s"), ArgType::String));
  EXPECT_FALSE(fitsArgType(Value(), ArgType::String));
}

TEST(ValueTraitsTest, SupportedTypes) {
  static_assert(is_supported_value_type_v<bool>);
  static_assert(is_supported_value_type_v<int64_t>);
  static_assert(is_supported_value_type_v<double>);
  static_assert(is_supported_value_type_v<std::string>);
  static_assert(is_supported_value_type_v<Tensor>);
  static_assert(is_supported_value_type_v<const Tensor&>);
  static_assert(is_supported_value_type_v<std::vector<Tensor>>);
  static_assert(is_supported_value_type_v<std::optional<Tensor>>);
  static_assert(!is_supported_value_type_v<void>);
  static_assert(!is_supported_value_type_v<int>);
  static_assert(!is_supported_value_type_v<float>);
  static_assert(!is_supported_value_type_v<const char*>);
  static_assert(!is_supported_value_type_v<std::vector<int64_t>>);
  static_assert(is_supported_return_type_v<void>);
  static_assert(is_supported_return_type_v<Tensor>);
  static_assert(!is_supported_return_type_v<int>);

  static_assert(ValueTraits<bool>::type == ArgType::Bool);
  static_assert(ValueTraits<int64_t>::type == ArgType::Int);
  static_assert(ValueTraits<double>::type == ArgType::Float);
  static_assert(ValueTraits<std::string>::type == ArgType::String);
  static_assert(ValueTraits<Tensor>::type == ArgType::Tensor);
  static_assert(ValueTraits<std::vector<Tensor>>::type == ArgType::TensorList);
  static_assert(ValueTraits<std::optional<Tensor>>::type == ArgType::OptionalTensor);
}

template <class T>
void expectRoundTrip(const T& v) {
  const Value boxed = ValueTraits<T>::toValue(v);
  EXPECT_TRUE(fitsArgType(boxed, ValueTraits<T>::type)) << boxed;
  EXPECT_EQ(ValueTraits<T>::fromValue(boxed), v);
}

TEST(ValueTraitsTest, RoundTrips) {
  expectRoundTrip(true);
  expectRoundTrip(int64_t{-9});
  expectRoundTrip(3.75);
  expectRoundTrip(std::string("str"));
  expectRoundTrip(kCpu);
  expectRoundTrip(Tensor());
  expectRoundTrip(std::vector<Tensor>{kCpu, kCuda});
  expectRoundTrip(std::optional<Tensor>());
  expectRoundTrip(std::optional<Tensor>(kCuda));
  expectRoundTrip(std::optional<Tensor>(Tensor()));  // engaged but undefined stays engaged
}

TEST(ValueTraitsTest, FromValueRejectsWrongKind) {
  EXPECT_THROW(ValueTraits<bool>::fromValue(Value(1)), BoxedCallError);
  EXPECT_THROW(ValueTraits<int64_t>::fromValue(Value(1.0)), BoxedCallError);
  EXPECT_THROW(ValueTraits<double>::fromValue(Value(1)), BoxedCallError);
  EXPECT_THROW(ValueTraits<std::string>::fromValue(Value()), BoxedCallError);
  EXPECT_THROW(ValueTraits<Tensor>::fromValue(Value()), BoxedCallError);
  EXPECT_THROW(ValueTraits<std::vector<Tensor>>::fromValue(Value(kCpu)), BoxedCallError);
  EXPECT_THROW(ValueTraits<std::optional<Tensor>>::fromValue(Value(1)), BoxedCallError);
  try {
    ValueTraits<std::optional<Tensor>>::fromValue(Value("s"));
    FAIL() << "expected BoxedCallError";
  } catch (const BoxedCallError& e) {
    EXPECT_NE(std::string(e.what()).find("Tensor?"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("String"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dispatch
