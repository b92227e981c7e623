#pragma once
// Applies dispatcher actions to a system under test with no model: the oracles judge the system
// by itself, so they hold for any release of any dispatcher (c10 2.x, which the 1.13.1 model
// does not describe, among them). After every action:
//   - a registration or drop: the system's own invariant check (for c10: checkInvariants and
//     every live slot probed against the computed table);
//   - a refused def or impl: every operator's table exactly as before;
//   - a drop of the registration made last, with no registration or drop since: every table
//     exactly as before it was made (register then deregister changes nothing);
//   - a guard push: the thread-local set grows by exactly the guard's keys; a pop: both sets
//     exactly as before the push;
//   - a call: it runs what the computed table names for its key set (when the SUT can tell:
//     SystemUnderTest::slotACallRuns), a call that would run a start-up fallback is skipped;
//   - a call, registration or drop: no error of an unclassified kind (an internal assert).
// Reports use the seam runner's words ("<Kind>: invariant check fails: ...", "drop: ..."), so
// the known-bug signatures read both.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/model/model.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::oracle {

class ModelFreeRunner {
 public:
  // The SUT must outlive the runner and start with no registrations of the trace's.
  explicit ModelFreeRunner(SystemUnderTest& sut);
  ModelFreeRunner(const ModelFreeRunner&) = delete;
  ModelFreeRunner& operator=(const ModelFreeRunner&) = delete;

  // Applies one dispatcher action (not key-set or declared-schema actions: std::invalid_argument).
  // Returns the first broken oracle, or nullopt (also when the action was skipped).
  std::optional<std::string> step(const Action& action);
  // The invariants once more, after the last action.
  std::optional<std::string> checkAll() const;

  size_t skipped() const { return skipped_; }
  const std::string& lastSkipReason() const { return last_skip_reason_; }

 private:
  // Every operator's table and the fallback table, as the system prints them.
  using Tables = std::vector<std::optional<std::string>>;
  struct Registration {
    Tables before;  // the tables just before it was made
    size_t made_at = 0;  // changes_ once it was made
    bool dropped = false;
  };

  std::optional<std::string> registerAction(const Action& a);
  std::optional<std::string> dropAction(const Action& a);
  std::optional<std::string> guardAction(const Action& a);
  std::optional<std::string> callAction(const Action& a);
  Tables tables() const;
  std::optional<std::string> invariants(const std::string& context) const;

  SystemUnderTest& sut_;
  // Only for SystemUnderTest::unsupported(), which reads a model for one c10 difference; it
  // stays empty (no registration is ever made on it).
  const model::ModelDispatcher no_model_;
  std::vector<Registration> registrations_;  // index == the SUT's handle number
  std::vector<TlsKeys> tls_before_guard_;
  int next_kernel_ = 0;
  size_t changes_ = 0;  // registrations and drops so far (refused ones change nothing)
  size_t skipped_ = 0;
  std::string last_skip_reason_;
};

// Runs the trace: "<sut>: step N (<action>): <broken oracle>", or nullopt. skipped and
// skip_reasons as for runTraceOnSut.
std::optional<std::string> runTraceModelFree(SystemUnderTest& sut, const std::vector<Action>& actions,
                                             size_t* skipped = nullptr,
                                             std::map<std::string, size_t>* skip_reasons = nullptr);

}  // namespace dispatch::oracle
