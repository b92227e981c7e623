#pragma once
// Table-cell coverage of registrations (cell_recorder.h): the keys an action names, including
// those the layout has no slot for. One copy for the trace runner and the boxed-call runner.

#include "dispatch/dispatch_key.h"
#include "dispatch/startup_fallbacks.h"
#include "oracle/actions/action.h"
#include "oracle/ours/cell_recorder.h"

namespace dispatch::oracle {

template <class L>
inline void observeActionKeys(CellRecorder& cells, const Action& a) {
  switch (a.kind) {
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      if (a.key) cells.observeKey<L>("impl", *a.key, true);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      cells.observeKey<L>("registerFallback", *a.key, false);
      break;
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      cells.observeKey<L>("Library::fallback", *a.key, true);
      break;
    case ActionKind::LibraryBlock:
      if (!a.block || !isLibraryImpl(a.block->body)) break;
      if (const auto key = libraryKernelKey(*a.block, a.key)) cells.observeKey<L>("library impl", *key, true);
      break;
    case ActionKind::StartupFallbacks:
      for (DispatchKey k : startup_fallthrough_keys) {
        cells.observeKey<L>("start-up fallbacks", k, true);
      }
      for (DispatchKey k : startup_boxed_fallback_keys) {
        cells.observeKey<L>("start-up fallbacks", k, true);
      }
      break;
    default:
      break;
  }
}

}  // namespace dispatch::oracle
