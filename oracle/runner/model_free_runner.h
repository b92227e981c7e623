#pragma once
// Applies dispatcher actions to a system under test with no model: the oracles judge the system
// by itself, so they hold for any release of any dispatcher (c10 2.x, which the 1.13.1 model
// does not describe, among them). After every action:
//   - a registration or drop: the system's own invariant check (for c10: checkInvariants and
//     every live slot probed against the computed table), of the operator a def or impl names
//     and of every operator after a fallback; of every operator again at the end of the trace;
//   - a refused def or impl: every operator's table exactly as before;
//   - a drop of the registration made last, with no registration or drop since: every table
//     exactly as before it was made (register then deregister changes nothing);
//   - a guard push: the thread-local set grows by exactly the guard's keys; a pop: both sets
//     exactly as before the push;
//   - a call: it runs what the computed table names for its key set (when the SUT can tell:
//     SystemUnderTest::slotACallRuns), a call that would run a start-up fallback is skipped;
//   - a call, registration or drop: no error of an unclassified kind (an internal assert);
//   - at the end of the trace, order independence (PyTorch's commute() idea): every registration
//     still alive is dropped, newest first, which must bring back the tables of the trace's start,
//     then made again in another order (oracle/runner/registration_order.h), which must give the
//     tables of the end of the trace, the system's invariant check holding after every drop and
//     registration of both phases.
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
  // After the last action: the invariants once more, then order independence.
  std::optional<std::string> checkAll();

  size_t skipped() const { return skipped_; }
  const std::string& lastSkipReason() const { return last_skip_reason_; }

 private:
  // Every operator's table and the fallback table, as the system prints them.
  using Tables = std::vector<std::optional<std::string>>;
  struct Registration {
    Tables before;  // the tables just before it was made
    size_t made_at = 0;  // changes_ once it was made
    bool dropped = false;
    Action action;       // what made it, and the kernel (or fallback) name it registered
    std::string kernel;
  };

  std::optional<std::string> registerAction(const Action& a);
  SutOutcome registerOnSut(const Action& a, const std::string& kernel);
  std::optional<std::string> orderIndependence();
  std::optional<std::string> dropAction(const Action& a);
  std::optional<std::string> guardAction(const Action& a);
  std::optional<std::string> callAction(const Action& a);
  Tables tables() const;
  // After `made` (a registration, or the drop of one): the system's check, of the one operator
  // the action can change where it names one (a def or an impl), else of everything.
  std::optional<std::string> invariantsAfter(const Action& made, const std::string& context) const;
  std::optional<std::string> invariants(const std::string& context) const;

  SystemUnderTest& sut_;
  // Only for SystemUnderTest::unsupported(), which reads a model for one c10 difference; it
  // stays empty (no registration is ever made on it).
  const model::ModelDispatcher no_model_;
  const Tables at_start_;
  std::vector<Registration> registrations_;  // index == the SUT's handle number
  // A refused fallback that left some of its keys registered (c10 registers an alias's keys one
  // by one): the state then holds more than the live registrations, so order independence
  // cannot be judged by dropping and remaking them.
  bool state_beyond_registrations_ = false;
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
