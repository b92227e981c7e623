#pragma once
// The inverse of FuzzedDataProvider's integer consumption: writes the bytes from which
// ConsumeIntegralInRange / ConsumeIntegral / ConsumeBool read back the given values, in the
// order they are consumed. FuzzedDataProvider takes integers from the END of the input, most
// significant byte first, as many bytes as the range needs; bytes() returns the input.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace dispatch::oracle {

class FdpWriter {
 public:
  template <class T>
  void integralInRange(T min, T max, T value) {
    static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(uint64_t));
    if (value < min || value > max) throw std::invalid_argument("FdpWriter: value out of range");
    const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
    const uint64_t offset = static_cast<uint64_t>(value) - static_cast<uint64_t>(min);
    size_t n = 0;
    while (n < sizeof(T) && (range >> (8 * n)) > 0) ++n;
    for (size_t i = n; i-- > 0;) tail_.push_back(static_cast<uint8_t>(offset >> (8 * i)));
  }
  template <class T>
  void integral(T value) {
    integralInRange(std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), value);
  }
  void boolean(bool value) { integral<uint8_t>(value ? 1 : 0); }

  // The input: the consumed-from-the-end bytes in reverse.
  std::vector<uint8_t> bytes() const { return {tail_.rbegin(), tail_.rend()}; }

 private:
  std::vector<uint8_t> tail_;  // in consumption order
};

}  // namespace dispatch::oracle
