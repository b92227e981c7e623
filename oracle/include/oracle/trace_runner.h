#pragma once
// Runs an action trace against a real dispatcher of one flavour and the reference model side by
// side, and reports the first disagreement. Shared by the API-sequence fuzzers, the stateful and
// cross-flavour properties, the repro job and the regression tests.

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "oracle/action.h"
#include "dispatch/flavours.h"
#include "oracle/model.h"

namespace dispatch::oracle {

template <class L>
class TraceRunner {
 public:
  TraceRunner();
  ~TraceRunner();
  TraceRunner(const TraceRunner&) = delete;
  TraceRunner& operator=(const TraceRunner&) = delete;

  // Applies the action to both and checks what it can have changed (the incremental check):
  // a registration or drop on one operator: that operator's row, slot by slot (kernel identity
  // and fallthrough flag, against the model's memoised row); a fallback change: every
  // operator's row and the fallback table; a call: its outcome; a guard: the thread-local keys. Returns a description of the first disagreement, or nullopt.
  // Library bugs (InternalError, e.g. a failed invariant check) propagate as exceptions; a
  // key-set action (no dispatcher involved) is refused with std::invalid_argument.
  std::optional<std::string> step(const Action& action);

  // The full check (done after the last action): every operator's row slot by slot against
  // the model's entries recomputed from scratch (not its memo), the tags through the live
  // table's dump, the fallback table, and the dispatcher's checkInvariants.
  std::optional<std::string> checkAll() const;

  std::string_view flavour() const noexcept { return L::kName; }
  const BasicDispatcher<L>& dispatcher() const noexcept { return dispatcher_; }
  const model::ModelDispatcher& model() const noexcept { return model_; }

 private:
  // What one registration action left behind, on each side.
  struct Registration {
    std::optional<RegistrationHandle> handle;     // def, impl, direct fallback
    std::vector<BasicLibrary<L>> libraries;       // library and start-up fallbacks
    std::vector<model::RegistrationId> model_ids;
    int op = -1;  // the operator it touches; -1: every operator (fallbacks)
    bool dropped = false;
  };
  using Guard = std::variant<std::unique_ptr<IncludeDispatchKeyGuard>,
                             std::unique_ptr<ExcludeDispatchKeyGuard>>;
  struct ModelTls {
    model::KeySet included;
    model::KeySet excluded;
  };

  std::optional<std::string> registerAction(const Action& a);
  std::optional<std::string> dropAction(const Action& a);
  std::optional<std::string> guardAction(const Action& a);
  std::optional<std::string> callAction(const Action& a);
  // The model's expected outcome of a call (following pass-through fallbacks).
  model::CallOutcome expectedCall(const Action& a) const;
  // The incremental check after a registration or drop that touched `op` (-1: the fallbacks).
  std::optional<std::string> checkTouched(std::string_view context, int op) const;
  // Operator `op`'s live row against the model's memoised row (incremental) or against
  // computedEntry from scratch (full, which also compares the printed tables, tags included).
  std::optional<std::string> compareRow(std::string_view context, int op, bool full) const;
  std::optional<std::string> compareFallbacks(std::string_view context) const;

  BasicDispatcher<L> dispatcher_;
  model::ModelDispatcher model_;
  std::vector<Registration> registrations_;  // after dispatcher_: dropped before it dies
  std::vector<Guard> guards_;
  std::vector<ModelTls> model_tls_;
  int next_kernel_ = 0;
};

#define DISPATCH_ORACLE_EXTERN_RUNNER(L) extern template class TraceRunner<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_EXTERN_RUNNER)
#undef DISPATCH_ORACLE_EXTERN_RUNNER

// Runs the whole trace on a fresh runner of each flavour (one after the other, so their TLS
// guards never interleave). Returns "<flavour>: step N (<action>): <disagreement>" for the first
// disagreement, or nullopt.
std::optional<std::string> runTraceOnAllFlavours(const std::vector<Action>& actions);

}  // namespace dispatch::oracle
