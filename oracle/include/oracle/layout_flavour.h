#pragma once
// The one mapping from a dispatch table layout to the model's flavour. The model knows the full
// table and the mobile table (model::tableSlots); any other layout (a selective build's trimmed
// table, say) has no model flavour and does not compile here, rather than silently being
// checked against the mobile slots.

#include "dispatch/table_layout.h"
#include "oracle/model_key_set.h"

namespace dispatch::oracle {

template <class L>
struct ModelFlavourOf {
  static_assert(sizeof(L) == 0,
                "no model flavour for this layout: the model knows the full and the mobile table "
                "only (add the layout's slots to model::tableSlots first)");
};
template <>
struct ModelFlavourOf<FullLayout> {
  static constexpr model::Flavour value = model::Flavour::Full;
};
template <>
struct ModelFlavourOf<MobileLayout> {
  static constexpr model::Flavour value = model::Flavour::Mobile;
};

template <class L>
inline constexpr model::Flavour kModelFlavour = ModelFlavourOf<L>::value;

}  // namespace dispatch::oracle
