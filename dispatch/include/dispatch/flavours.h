#pragma once
// The flavours: one namespace each, with the same names in all, so that a differential test
// can name dispatch::full::Dispatcher and dispatch::mobile::Dispatcher side by side. The flavour
// chosen at build time (DISPATCH_FLAVOUR) is the inline one: plain dispatch::Dispatcher.
// Every class is a template on its layout, so objects of two flavours are different types and
// cannot be mixed by mistake. The namespaces are generated from cmake/flavours.list into
// dispatch/generated_flavours.h (build tree): a new flavour is one line there.

#include "dispatch/library.h"

namespace dispatch {

#define DISPATCH_DETAIL_FLAVOUR_ALIASES(LayoutType)                  \
  using Layout = LayoutType;                                         \
  using Dispatcher = BasicDispatcher<Layout>;                        \
  using OperatorHandle = BasicOperatorHandle<Layout>;                \
  template <class Sig>                                               \
  using TypedOperatorHandle = BasicTypedOperatorHandle<Layout, Sig>; \
  using KernelFunction = BasicKernelFunction<Layout>;                \
  using AnnotatedKernel = BasicAnnotatedKernel<Layout>;              \
  using OperatorEntry = BasicOperatorEntry<Layout>;                  \
  using CppFunction = BasicCppFunction<Layout>;                      \
  using Library = BasicLibrary<Layout>;

#include "dispatch/generated_flavours.h"  // IWYU pragma: export

#undef DISPATCH_DETAIL_FLAVOUR_ALIASES

}  // namespace dispatch
