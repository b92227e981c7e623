#pragma once
// The keys a NamedKey action can name: keys that releases of c10 after 1.13.1 added (2.x: the
// MTIA and MAIA backends with their per-backend functionalities, more autocast keys, the
// functorch alias FuncTorchBatchedDecomposition, ...) and that c10 takes registrations on
// (runtime keys: impls and fallbacks; alias keys: impls and library fallbacks). Spelled as c10
// spells them; a system resolves each by name, and says so when it has no key of that name (our
// dispatcher's keys are 1.13.1's, and so are the model's).
//
// Part of the byte codec: a NamedKey action's key byte picks entry (byte mod the list's length).
// The order is fixed; a key added later needs a new list under new weights, or the committed
// inputs of the targets that pick NamedKey would decode differently.

#include <array>
#include <string_view>

namespace dispatch::oracle {

inline constexpr std::array<std::string_view, 34> kReleaseKeyNames = {
    // The MTIA and MAIA backends (2.x), their autograd keys, and the functorch alias.
    "MTIA", "AutogradMTIA", "MAIA", "AutogradMAIA", "FuncTorchBatchedDecomposition",
    // Their other per-backend functionalities.
    "QuantizedMTIA", "QuantizedMAIA", "SparseMTIA", "SparseMAIA", "NestedTensorMTIA", "NestedTensorMAIA",
    "SparseCsrMTIA", "SparseCsrMAIA",
    // Autocast keys for more backends.
    "AutocastMTIA", "AutocastMAIA", "AutocastHPU", "AutocastIPU", "AutocastMPS", "AutocastXLA",
    "AutocastPrivateUse1",
    // Functionality keys 2.x added.
    "BatchedNestedTensor", "PreDispatch",
    // SparseCsr became a per-backend functionality in 2.x (1.13 had SparseCsrCPU and SparseCsrCUDA
    // only, which the enum names).
    "SparseCsrHIP", "SparseCsrXLA", "SparseCsrMPS", "SparseCsrIPU", "SparseCsrXPU", "SparseCsrHPU", "SparseCsrVE",
    "SparseCsrLazy", "SparseCsrMeta", "SparseCsrPrivateUse1", "SparseCsrPrivateUse2", "SparseCsrPrivateUse3"};

}  // namespace dispatch::oracle
