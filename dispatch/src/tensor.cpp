#include "dispatch/tensor.h"

#include <ostream>

namespace dispatch {

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  if (!t.defined()) return out << "Tensor(undefined, id=" << t.id() << ")";
  return out << "Tensor(id=" << t.id() << ", " << t.key_set() << ")";
}

std::string_view toString(TensorKind kind) noexcept {
  switch (kind) {
    case TensorKind::Dense: return "Dense";
    case TensorKind::Quantized: return "Quantized";
    case TensorKind::Sparse: return "Sparse";
    case TensorKind::Nested: return "Nested";
  }
  return "<invalid TensorKind>";
}

}  // namespace dispatch
