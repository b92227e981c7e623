#include "boxed_call/program.h"

#include "oracle/action_codec.h"

namespace dispatch::fuzz::boxed_call {

Program decode(const uint8_t* data, size_t size) {
  std::vector<Action> all = oracle::decodeActions(data, size, oracle::kBoxedCallWeights);
  Program p;
  const auto prologue = static_cast<std::ptrdiff_t>(oracle::kBoxedCallWeights.num_ops);
  p.schemas.assign(all.begin(), all.begin() + prologue);
  p.actions.assign(all.begin() + prologue, all.end());
  p.op_labels = oracle::declaredOpLabels(p.schemas);
  return p;
}

std::string describe(const Program& p, const Action& a) { return oracle::describe(a, p.op_labels); }

void printProgram(std::ostream& out, const Program& p) {
  std::vector<Action> all = p.schemas;
  all.insert(all.end(), p.actions.begin(), p.actions.end());
  oracle::printTrace(out, all);
}

}  // namespace dispatch::fuzz::boxed_call
