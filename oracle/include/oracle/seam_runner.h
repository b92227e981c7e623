#pragma once
// Applies dispatcher actions to a system under test (oracle/system_under_test.h) and to the
// reference model side by side, and compares after each action with the shared checks of
// oracle/seam_checks.h: registration and drop outcomes, the touched operators' tables (every
// operator's after a fallback change), the fallback table when the SUT shows it, the
// thread-local keys after a guard, a call's outcome, and the SUT's own invariants after every
// registration and drop (calls and guards change no table). The model starts from the SUT's start-up state. Actions the SUT does not support are
// skipped on both sides and counted.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "oracle/action.h"
#include "oracle/model.h"
#include "oracle/system_under_test.h"

namespace dispatch::oracle {

class SeamRunner {
 public:
  // The SUT must outlive the runner and start in its start-up state with default TLS.
  explicit SeamRunner(SystemUnderTest& sut);
  SeamRunner(const SeamRunner&) = delete;
  SeamRunner& operator=(const SeamRunner&) = delete;

  // Applies one dispatcher action (key-set actions are refused with std::invalid_argument).
  // Returns the first disagreement, or nullopt (also when the action was skipped).
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
  };

  std::optional<std::string> registerAction(const Action& a);
  std::optional<std::string> dropAction(const Action& a);
  std::optional<std::string> guardAction(const Action& a);
  std::optional<std::string> callAction(const Action& a);
  model::CallOutcome expectedCall(const Action& a, bool follow_startup) const;
  // Tables of `op` (every operator for -1, plus the fallback table), then the invariants.
  std::optional<std::string> checkTouched(const std::string& context, int op) const;

  SystemUnderTest& sut_;
  model::ModelDispatcher model_;
  std::vector<Registration> registrations_;  // index == the SUT's handle number
  std::vector<TlsKeys> model_tls_;
  int next_kernel_ = 0;
  size_t skipped_ = 0;
  std::string last_skip_reason_;
};

// Runs the trace on the SUT: "<sut>: step N (<action>): <disagreement>" for the first
// disagreement, or nullopt. skipped (optional) receives the number of skipped actions.
std::optional<std::string> runTraceOnSut(SystemUnderTest& sut, const std::vector<Action>& actions,
                                         size_t* skipped = nullptr);

}  // namespace dispatch::oracle
