#pragma once
// The library block of a LibraryBlock action (oracle/actions/action.h): it opens a block of `kind`
// for namespace `ns` (an IMPL block for the action's key; CatchAll or no key: the catch-all) and
// makes one registration in it on the action's operator. A DEF block also claims its namespace:
// a second live DEF block for it is a registration error. An impl spells the operator "opN"
// (short) or "fz::opN" (qualified); in a DEF or FRAGMENT block it is the catch-all. Any refusal
// undoes the whole block (docs/semantics.md §5.2, the library API).

#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/dispatch_key.h"

namespace dispatch::oracle {

enum class LibraryKind : uint8_t { Def, Impl, Fragment };  // DISPATCH_LIBRARY, _IMPL, _FRAGMENT
enum class LibraryBody : uint8_t {
  Nothing,          // the block alone (a DEF block still claims its namespace)
  Def,              // m.def(op's schema, qualified "fz::opN(...)")
  ImplTyped,        // m.impl(name, typed kernel)
  ImplBoxed,        // m.impl(name, boxed kernel)
  ImplFallthrough,  // m.impl(name, fallthrough)
};
// The namespaces a block can be for: the operators' own, another one, and the wildcard.
inline constexpr std::string_view kLibraryNamespaces[] = {"fz", "fy", "_"};
inline constexpr int kNumLibraryNamespaces = static_cast<int>(std::size(kLibraryNamespaces));
inline constexpr uint8_t kOwnNamespace = 0;       // "fz": opName()'s
inline constexpr uint8_t kOtherNamespace = 1;     // "fy": no operator of the trace
inline constexpr uint8_t kWildcardNamespace = 2;  // "_"
static_assert(kLibraryNamespaces[kOwnNamespace] == "fz" && kLibraryNamespaces[kOtherNamespace] == "fy" &&
              kLibraryNamespaces[kWildcardNamespace] == "_");

struct LibraryBlock {
  LibraryKind kind = LibraryKind::Fragment;
  uint8_t ns = 0;  // index into kLibraryNamespaces
  LibraryBody body = LibraryBody::Nothing;
  bool qualified = false;  // impls: "fz::opN" rather than "opN"
  bool operator==(const LibraryBlock&) const = default;
};

// The block forms the vocabulary draws from (the fuzz codec by index: the order is the committed
// corpora's encoding; the properties pick among them). Most are IMPL blocks on the operators' own
// namespace, where a program's kernels go, in both spellings of the name; the rest reach the
// block rules: one DEF block per namespace (two namespaces, so that a mix-up of the claims
// shows), the wildcard, and schemas and names of another namespace.
inline constexpr std::array<LibraryBlock, 32> kLibraryBlockForms = [] {
  using LK = LibraryKind;
  using LB = LibraryBody;
  constexpr uint8_t fz = kOwnNamespace, fy = kOtherNamespace, wildcard = kWildcardNamespace;
  return std::array<LibraryBlock, 32>{{
      {LK::Impl, fz, LB::ImplTyped, false},       {LK::Impl, fz, LB::ImplTyped, true},
      {LK::Impl, fz, LB::ImplBoxed, false},       {LK::Impl, fz, LB::ImplBoxed, true},
      {LK::Impl, fz, LB::ImplFallthrough, false}, {LK::Impl, fz, LB::ImplFallthrough, true},
      {LK::Impl, fz, LB::ImplTyped, false},       {LK::Impl, fz, LB::ImplBoxed, false},
      {LK::Impl, wildcard, LB::ImplTyped, true},  {LK::Impl, wildcard, LB::ImplBoxed, true},
      {LK::Impl, wildcard, LB::ImplFallthrough, true}, {LK::Impl, fy, LB::ImplBoxed, true},
      {LK::Impl, fz, LB::Def, false},             {LK::Impl, fz, LB::Nothing, false},
      {LK::Def, fz, LB::Nothing, false},          {LK::Def, fz, LB::Def, false},
      {LK::Def, fz, LB::Def, false},              {LK::Def, fz, LB::ImplBoxed, false},
      {LK::Def, fz, LB::ImplTyped, true},         {LK::Def, fy, LB::Nothing, false},
      {LK::Def, fy, LB::Nothing, false},          {LK::Def, fy, LB::Def, false},
      {LK::Def, fy, LB::ImplTyped, true},         {LK::Def, wildcard, LB::Nothing, false},
      {LK::Fragment, fz, LB::Def, false},         {LK::Fragment, fz, LB::Def, false},
      {LK::Fragment, fz, LB::ImplTyped, false},   {LK::Fragment, fz, LB::ImplBoxed, true},
      {LK::Fragment, fz, LB::ImplFallthrough, false}, {LK::Fragment, fy, LB::Def, false},
      {LK::Fragment, fy, LB::Nothing, false},     {LK::Fragment, wildcard, LB::Nothing, false},
  }};
}();

bool isLibraryImpl(LibraryBody body);  // the three impl bodies
// The key an impl in the block goes on: an IMPL block's key; nullopt (the catch-all) for CatchAll
// (the value of Undefined), no key, or a DEF or FRAGMENT block.
std::optional<DispatchKey> libraryKernelKey(const LibraryBlock& block, std::optional<DispatchKey> key);

// Why a block on operator op is not one of the vocabulary (nullopt: it is): a field out of range,
// or a short name outside the operators' namespace (it would name an operator no check walks).
// The runners and the encoder refuse such an action.
std::optional<std::string> libraryBlockProblem(const LibraryBlock& block, int op);

// "DISPATCH_LIBRARY_IMPL(fz, AutogradCPU) { m.impl("op1", typed kernel) }"
std::string describeLibraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key);
// "{dispatch::oracle::LibraryKind::Impl, 0, dispatch::oracle::LibraryBody::ImplTyped, false}"
std::string libraryBlockCpp(const LibraryBlock& block);

}  // namespace dispatch::oracle
