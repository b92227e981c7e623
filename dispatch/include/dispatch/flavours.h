#pragma once
// The flavours: one namespace each, with the same names in both, so that a differential test
// can name dispatch::full::Dispatcher and dispatch::mobile::Dispatcher side by side. The flavour
// chosen at build time (DISPATCH_FLAVOUR) is the inline one: plain dispatch::Dispatcher.
// Every class is a template on its layout, so objects of two flavours are different types and
// cannot be mixed by mistake. A new flavour: a layout in table_layout.h, a namespace here.

#include "dispatch/library.h"

#ifndef DISPATCH_DEFAULT_FLAVOUR_MOBILE
#define DISPATCH_DEFAULT_FLAVOUR_MOBILE 0
#endif

namespace dispatch {

#if DISPATCH_DEFAULT_FLAVOUR_MOBILE
#define DISPATCH_DETAIL_INLINE_IF_FULL
#define DISPATCH_DETAIL_INLINE_IF_MOBILE inline
#else
#define DISPATCH_DETAIL_INLINE_IF_FULL inline
#define DISPATCH_DETAIL_INLINE_IF_MOBILE
#endif

#define DISPATCH_DETAIL_FLAVOUR_ALIASES(LayoutType)               \
  using Layout = LayoutType;                                      \
  using Dispatcher = BasicDispatcher<Layout>;                     \
  using OperatorHandle = BasicOperatorHandle<Layout>;             \
  template <class Sig>                                            \
  using TypedOperatorHandle = BasicTypedOperatorHandle<Layout, Sig>; \
  using KernelFunction = BasicKernelFunction<Layout>;             \
  using AnnotatedKernel = BasicAnnotatedKernel<Layout>;           \
  using OperatorEntry = BasicOperatorEntry<Layout>;               \
  using CppFunction = BasicCppFunction<Layout>;                   \
  using Library = BasicLibrary<Layout>;

DISPATCH_DETAIL_INLINE_IF_FULL namespace full {
DISPATCH_DETAIL_FLAVOUR_ALIASES(FullLayout)
}
DISPATCH_DETAIL_INLINE_IF_MOBILE namespace mobile {
DISPATCH_DETAIL_FLAVOUR_ALIASES(MobileLayout)
}
#undef DISPATCH_DETAIL_FLAVOUR_ALIASES

}  // namespace dispatch
