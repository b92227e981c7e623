#include "bench/workloads/model_replay.h"

#include <exception>
#include <set>

#include "oracle/ours/layout_flavour.h"
#include "oracle/ours/our_dispatcher_sut.h"
#include "oracle/runner/seam_checks.h"

namespace dispatch::workload {

namespace {

constexpr size_t kDisagreementsKept = 5;

// The model names an operator "ns::op.overload" (toString(OperatorName)); op names have no '.'.
OperatorName operatorNamed(const std::string& text) {
  const auto namespace_end = text.rfind("::");
  const auto dot = text.find('.', namespace_end == std::string::npos ? 0 : namespace_end);
  if (dot == std::string::npos) return OperatorName{text, ""};
  return OperatorName{text.substr(0, dot), text.substr(dot + 1)};
}

std::string describe(const Call& call) {
  std::string text = "seq " + std::to_string(call.seq) + " " + toString(call.kind);
  if (call.kind != CallKind::Fallback) text += " " + toString(call.name);
  if (call.kind == CallKind::Impl || call.kind == CallKind::Fallback)
    text += std::string(" on ") + (call.key ? std::string(toString(*call.key)) : std::string("catch-all"));
  return text;
}

}  // namespace

template <class L>
ModelReplay<L>::ModelReplay() : model_(oracle::kModelFlavour<L>) {}

template <class L>
void ModelReplay<L>::disagree(std::string what) {
  if (report_.disagreements.size() < kDisagreementsKept) report_.disagreements.push_back(std::move(what));
  ++report_.disagreement_count;
}

template <class L>
void ModelReplay<L>::compareOperator(const std::string& context, const OperatorName& name) {
  const std::string model_name = toString(name);
  const auto handle = ours_.dispatcher().findOp(name);
  std::optional<std::string> real;
  if (handle) real = handle->dumpDispatchTable();
  ++report_.tables_compared;
  if (auto difference = oracle::compareTable(context, model_, model_name, model_name, real)) disagree(*difference);
  if (!handle) return;
  try {
    handle->checkInvariants();
  } catch (const std::exception& e) {
    disagree(context + ": checkInvariants of " + model_name + ": " + e.what());
  }
}

template <class L>
void ModelReplay<L>::step(const Call& call) {
  ++report_.calls;
  const std::string context = describe(call);
  std::optional<model::RegistrationResult> expected;
  switch (call.kind) {
    case CallKind::Def:
      expected = model_.def(toString(call.name), static_cast<int>(call.schema->arguments.size()));
      break;
    case CallKind::Impl:
      expected = model_.impl(toString(call.name), call.key, call.debug, call.fallthrough);
      break;
    case CallKind::Fallback:
      expected = model_.fallbackDirect(*call.key, call.debug, call.fallthrough);
      break;
    case CallKind::Library:
    case CallKind::Name:
      ++report_.not_modelled[toString(call.kind)];
      break;
  }
  const std::optional<Refusal> refusal = ours_.apply(call);
  if (refusal) {
    ++report_.refused;
  } else {
    ++report_.made;
  }
  if (expected) {
    const oracle::SutOutcome outcome = refusal ? oracle::errorOutcome(*refusal) : oracle::SutOutcome{};
    if (auto difference = oracle::compareRegistration(*expected, outcome)) disagree(context + ": " + *difference);
  } else if (refusal) {
    disagree(context + ": refused by ours, made by c10 (the recording): " + refusal->message());
  }
  if (call.kind == CallKind::Fallback) {
    for (const auto& name : ours_.dispatcher().getAllOpNames()) compareOperator(context, name);
  } else if (call.kind != CallKind::Library) {
    compareOperator(context, call.name);
  }
}

template <class L>
void ModelReplay<L>::compareAll() {
  std::set<OperatorName> names;
  for (auto& name : ours_.dispatcher().getAllOpNames()) names.insert(std::move(name));
  for (const auto& name : model_.operatorNames()) names.insert(operatorNamed(name));
  report_.operators = static_cast<long>(ours_.dispatcher().numOperators());
  for (const auto& name : names) compareOperator("after the last call", name);
  try {
    ours_.dispatcher().checkInvariants();
  } catch (const std::exception& e) {
    disagree(std::string("after the last call: checkInvariants: ") + e.what());
  }
}

template <class L>
ModelCheckReport checkAgainstModel(const std::vector<Call>& calls) {
  ModelReplay<L> replay;
  for (const Call& call : calls) replay.step(call);
  replay.compareAll();
  return replay.report();
}

#define DISPATCH_WORKLOAD_INSTANTIATE(L) \
  template class ModelReplay<L>;         \
  template ModelCheckReport checkAgainstModel<L>(const std::vector<Call>& calls);
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_WORKLOAD_INSTANTIATE)
#undef DISPATCH_WORKLOAD_INSTANTIATE

}  // namespace dispatch::workload
