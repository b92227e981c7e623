#pragma once
// A workload replayed into our dispatcher of one flavour and into the reference model of the
// same flavour side by side (oracle/model/model_dispatcher.h), compared as the seam runner
// compares them: each registration's outcome (made, or refused with the same kind of error), the
// printed table of the operator it touched (of every operator after a fallback), and
// checkInvariants. The pre-merge test runs it on a slice of each recording; workload_replay
// --check-model on a whole one.
#include <map>
#include <string>
#include <vector>

#include "bench/workloads/workload.h"
#include "oracle/model/model_dispatcher.h"

namespace dispatch::workload {

struct ModelCheckReport {
  long calls = 0;    // calls applied
  long made = 0;     // made by ours (and, where modelled, by the model)
  long refused = 0;  // refused by ours (and by the model, with the same kind of error)
  // Calls the model has no counterpart for, by kind (a library call claims a namespace, which
  // the model does not keep): made on ours only.
  std::map<std::string, long> not_modelled;
  long tables_compared = 0;
  long operators = 0;  // ours, after the last call
  long disagreement_count = 0;
  std::vector<std::string> disagreements;  // the first few, in full

  bool agrees() const { return disagreement_count == 0; }
};

template <class L>
class ModelReplay {
 public:
  ModelReplay();

  // Applies one call to both; compares the outcome, the table of the operator it touched (of
  // every operator after a fallback) and checkInvariants of those operators.
  void step(const Call& call);
  // Compares every operator's table (ours and the model's operators alike) and runs
  // checkInvariants on our whole dispatcher.
  void compareAll();

  const ModelCheckReport& report() const { return report_; }
  // Direct access, for tests that make the two disagree on purpose.
  Replay<L>& ours() { return ours_; }
  model::ModelDispatcher& model() { return model_; }

 private:
  void disagree(std::string what);
  void compareOperator(const std::string& context, const OperatorName& name);

  Replay<L> ours_;
  model::ModelDispatcher model_;
  ModelCheckReport report_;
};

// Every call through a fresh ModelReplay<L>, then compareAll().
template <class L>
ModelCheckReport checkAgainstModel(const std::vector<Call>& calls);

}  // namespace dispatch::workload
