#pragma once
// The runner: applies dispatcher actions to a system under test (oracle/runner/system_under_test.h)
// and to the reference model side by side, and compares after each action with the shared
// checks of oracle/runner/seam_checks.h: registration and drop outcomes, the touched operators' tables
// (every operator's after a fallback change; structurally, slot by slot, when the SUT offers a
// RowComparison, as ours does, else as printed), the fallback table when the SUT shows it, the
// thread-local keys after a guard, a call's outcome, and the SUT's own invariants after every
// registration and drop (calls and guards change no table; with a RowComparison, at the end). The model starts from the SUT's
// start-up state. Actions the SUT does not support are skipped on both sides and counted. Our
// dispatcher of each layout runs through it too (oracle/ours/our_dispatcher_runner.h): the fuzzers'
// fast path and the c10 path are this one code.
// Declared-schema traces (boxed_call_fuzzer's inputs: a prologue of Schema actions, then defs
// of declared schemas, typed kernels of chosen signatures and boxed calls on stacks of any
// shape) run through the SUT's declared-schema members (seam_runner_declared.cpp).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/model/model.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::oracle {

class SeamRunner {
 public:
  // The SUT must outlive the runner and start in its start-up state with default TLS.
  explicit SeamRunner(SystemUnderTest& sut);
  SeamRunner(const SeamRunner&) = delete;
  SeamRunner& operator=(const SeamRunner&) = delete;

  // Applies one dispatcher or declared-schema action (key-set actions are refused with
  // std::invalid_argument). Returns the first disagreement, or nullopt (also when the action
  // was skipped).
  std::optional<std::string> step(const Action& action);
  // Every operator's table, the fallback table and the invariants (after the last action).
  std::optional<std::string> checkAll() const;

  size_t skipped() const { return skipped_; }
  const std::string& lastSkipReason() const { return last_skip_reason_; }
  const model::ModelDispatcher& model() const { return model_; }

 private:
  struct Registration {
    std::vector<model::RegistrationId> model_ids;
    int op = -1;  // the operator it touches; -1: every operator (fallbacks)
    std::optional<int> signature;  // a typed kernel of a declared trace: its C++ signature
    bool dropped = false;
  };
  // What a boxed call of a declared trace should do (seam_runner_declared.cpp).
  struct StackExpectation {
    model::CallOutcome outcome;
    bool misfit = false;  // the stack does not fit the arguments: refused, whatever the table says
    std::string skip;     // why the SUT cannot run it meaningfully (empty: run it)
  };

  std::optional<std::string> registerAction(const Action& a);
  std::optional<std::string> dropAction(const Action& a);
  std::optional<std::string> guardAction(const Action& a);
  std::optional<std::string> callAction(const Action& a);
  model::CallOutcome expectedCall(const Action& a, bool follow_startup) const;
  // The action's own work, once the SUT supports it.
  std::optional<std::string> run(const Action& a);
  // Tables of `op` (every operator for -1, plus the fallback table), then the invariants; full:
  // the end-of-trace check (rows recomputed from scratch, printed tables too).
  std::optional<std::string> checkTouched(const std::string& context, int op, bool full = false) const;
  // Counts a skipped action (with why) and reports no disagreement.
  std::optional<std::string> skip(std::string reason);
  // The operator's name in the model's words: fz::opN, or a declared operator's name.
  std::string modelOp(int op) const;
  bool isDeclared(int op) const { return declared_.count(op) != 0; }
  // The registration a Drop names: any ever made (fz traces: a second drop is an error to
  // compare), or a live one (declared traces, as boxed_call_fuzzer drops).
  std::optional<size_t> dropTarget(const Action& a) const;

  // Declared-schema actions (seam_runner_declared.cpp).
  void declare(const Action& a);
  std::optional<std::string> declaredDefAction(const Action& a);
  std::optional<std::string> typedImplAction(const Action& a);
  std::optional<std::string> stackCallAction(const Action& a);
  StackExpectation expectedStackCall(const Action& a, const StackCall& call) const;

  SystemUnderTest& sut_;
  model::ModelDispatcher model_;
  std::vector<Registration> registrations_;  // index == the SUT's handle number
  std::vector<TlsKeys> model_tls_;
  int next_kernel_ = 0;
  std::map<int, DeclaredOp> declared_;
  // Declared traces: what each kernel pops when its operator has no schema (a fallback:
  // nothing), and each operator's first C++ signature, kept while the operator exists.
  std::map<std::string, std::vector<ArgType>> kernel_args_;
  std::map<int, int> cpp_signature_;
  size_t skipped_ = 0;
  std::string last_skip_reason_;
};

// Runs the trace on the SUT: "<sut>: step N (<action>): <disagreement>" for the first
// disagreement, or nullopt. skipped (optional) receives the number of skipped actions,
// skip_reasons (optional) gains one count per skipped action under its reason.
std::optional<std::string> runTraceOnSut(SystemUnderTest& sut, const std::vector<Action>& actions,
                                         size_t* skipped = nullptr,
                                         std::map<std::string, size_t>* skip_reasons = nullptr);

}  // namespace dispatch::oracle
