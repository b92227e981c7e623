#pragma once
// The one mapping from a dispatch table layout to the model's flavour: by name, through the
// flavour declarations both sides are generated from (cmake/flavours.list). A layout without a
// declaration does not compile here, rather than silently being checked against another
// flavour's slots.

#include <cstdint>
#include <iterator>

#include "dispatch/table_layout.h"
#include "oracle/flavour_declarations.h"
#include "oracle/model/model_key_set.h"

namespace dispatch::oracle {

namespace detail {
template <class L>
consteval model::Flavour modelFlavourNamed() {
  for (size_t i = 0; i < std::size(model::kFlavourDeclarations); ++i) {
    if (model::kFlavourDeclarations[i].name == L::kName) return model::Flavour{static_cast<uint8_t>(i)};
  }
  throw "no model flavour for this layout: declare it in cmake/flavours.list";
}
}  // namespace detail

template <class L>
inline constexpr model::Flavour kModelFlavour = detail::modelFlavourNamed<L>();

}  // namespace dispatch::oracle
