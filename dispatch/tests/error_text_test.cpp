// detail::concat builds error messages without a stream; its text must stay byte for byte what
// streaming the same parts with operator<< printed (tests and the c10 comparison read messages).

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "dispatch/dispatch.h"

namespace dispatch {
namespace {

template <typename... Parts>
std::string streamed(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

template <typename... Parts>
void expectSameAsStreamed(const Parts&... parts) {
  EXPECT_EQ(detail::concat(parts...), streamed(parts...));
}

TEST(ErrorTextTest, TextAndCharactersAsStreamed) {
  const std::string owned = "owned";
  const std::string_view view = "view";
  const char* pointer = "pointer";
  expectSameAsStreamed("literal ", owned, ' ', view, pointer, std::string());
  expectSameAsStreamed(static_cast<signed char>('s'), static_cast<unsigned char>('u'));
  EXPECT_EQ(detail::concat(), "");
}

TEST(ErrorTextTest, NumbersAndBoolsAsStreamed) {
  expectSameAsStreamed(0, -1, 42, std::numeric_limits<int>::min());
  expectSameAsStreamed(size_t{0}, std::numeric_limits<size_t>::max(),
                       std::numeric_limits<int64_t>::min(), uint32_t{7}, int16_t{-3});
  expectSameAsStreamed(true, " ", false);
  expectSameAsStreamed("line ", __LINE__);
}

TEST(ErrorTextTest, KeysAsStreamed) {
  expectSameAsStreamed(DispatchKey::CPU, ", ", DispatchKey::AutogradOther, ", ",
                       DispatchKey::Undefined, ", ", DispatchKey::CompositeImplicitAutograd);
  expectSameAsStreamed(BackendComponent::CPUBit, BackendComponent::CUDABit);
  // Values outside the enums print as the placeholder operator<< uses.
  expectSameAsStreamed(static_cast<DispatchKey>(250), static_cast<BackendComponent>(200));
  expectSameAsStreamed(DispatchKeySet(), DispatchKeySet(DispatchKey::CPU),
                       DispatchKeySet({DispatchKey::AutogradCPU, DispatchKey::CUDA,
                                       DispatchKey::BackendSelect}));
  expectSameAsStreamed(ArgType::OptionalTensor, static_cast<ArgType>(99));
}

TEST(ErrorTextTest, NamesAndSchemasAsStreamed) {
  expectSameAsStreamed(OperatorName{"ns::op", ""}, " ", OperatorName{"ns::op", "overload"});
  for (const char* text :
       {"ns::f() -> ()", "ns::f.o(Tensor self) -> Tensor",
        "ns::g(Tensor self, Tensor? other, int x, float y, bool z, str s, Tensor[] l) -> int",
        "ns::h(Tensor a) -> (Tensor, int)", "ns::k() -> (int)"}) {
    expectSameAsStreamed(parseSchema(text));
  }
}

TEST(ErrorTextTest, ValuesWithoutToStringAsStreamed) {
  const Tensor tensor{DispatchKeySet(DispatchKey::CPU), 3};
  expectSameAsStreamed(Value(), Value(true), Value(int64_t{-5}), Value(2.0), Value(std::string("a\"b")),
                       Value(tensor), tensor, Tensor());
  expectSameAsStreamed(Stack{Value(int64_t{1}), Value(tensor)});
}

}  // namespace
}  // namespace dispatch
