#include "bench/workloads/real_seeds.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "oracle/actions/action_codec.h"

namespace dispatch::workload {

const std::vector<SeedPlan> kSeedPlans = {{"1.13", 16, 24}, {"2.14", 0, 10}};

namespace {

using oracle::Action;
using oracle::ActionKind;

constexpr size_t kMaxOperatorsPerSeed = oracle::kNumOps;

struct RealOperator {
  std::string name;        // operatorKey
  std::vector<Row> rows;   // def and impl rows we can replay, in recorded order
  std::string shape;       // "CPU typed, Autograd typed, catch-all boxed" (sorted)
  long first_seq = 0;
};

// Every operator with its def and impl rows, in order of first appearance; rows on keys we lack
// are left out and counted.
std::vector<RealOperator> realOperators(const std::vector<Row>& rows, std::map<std::string, long>& skipped) {
  std::vector<RealOperator> ops;
  std::map<std::string, size_t> index;
  std::map<std::string, std::map<std::string, long>> skipped_of;
  for (const Row& row : rows) {
    if (row.call != "def" && row.call != "impl") continue;
    const std::string name = operatorKey(row.op, row.overload);
    auto [it, fresh] = index.emplace(name, ops.size());
    if (fresh) ops.push_back({name, {}, "", row.seq});
    if (row.call == "impl" && row.key != "catch-all" && !tryParseDispatchKey(row.key)) {
      ++skipped_of[name][row.key];
      continue;
    }
    ops[it->second].rows.push_back(row);
  }
  for (RealOperator& op : ops) {
    std::vector<std::string> parts;
    for (const Row& row : op.rows) {
      if (row.call == "impl") parts.push_back(row.key + " " + row.kind);
    }
    std::sort(parts.begin(), parts.end());
    for (const auto& part : parts) op.shape += (op.shape.empty() ? "" : ", ") + part;
    if (op.shape.empty()) op.shape = "(no impl)";
  }
  // The counts of the chosen operators only are reported: stash them per operator.
  for (const auto& [name, keys] : skipped_of) {
    for (const auto& [key, count] : keys) skipped[name + "\t" + key] = count;
  }
  return ops;
}

std::string fileNamePart(const std::string& op) {
  std::string out = op;
  for (size_t at; (at = out.find("::")) != std::string::npos;) out.replace(at, 2, ".");
  if (!out.empty() && out.back() == '.') out.pop_back();  // no overload
  return out;
}

Seed seedOf(const std::string& release, size_t number, const std::vector<const RealOperator*>& chosen) {
  Seed seed;
  char index[8];
  std::snprintf(index, sizeof index, "%02zu", number);
  seed.file_name = "real-" + release + "-" + index + "-" + fileNamePart(chosen.front()->name);
  if (chosen.size() > 1) seed.file_name += "+" + std::to_string(chosen.size() - 1);
  for (const RealOperator* op : chosen) {
    seed.operators.push_back(op->name);
    seed.rows.insert(seed.rows.end(), op->rows.begin(), op->rows.end());
  }
  std::stable_sort(seed.rows.begin(), seed.rows.end(), [](const Row& a, const Row& b) { return a.seq < b.seq; });
  seed.actions.emplace_back(ActionKind::StartupFallbacks, 0, std::nullopt, 0, 0, std::nullopt);
  for (const Row& row : seed.rows) {
    const auto op = std::find(seed.operators.begin(), seed.operators.end(), operatorKey(row.op, row.overload));
    seed.actions.push_back(actionOf(row, static_cast<int>(op - seed.operators.begin())));
  }
  return seed;
}

}  // namespace

Action actionOf(const Row& row, int op) {
  if (row.call == "def") return Action(ActionKind::Def, op, std::nullopt, 0, 0, std::nullopt);
  if (row.call != "impl") throw std::invalid_argument("seq " + std::to_string(row.seq) + ": not a def or impl row");
  std::optional<DispatchKey> key;
  if (row.key != "catch-all") {
    key = tryParseDispatchKey(row.key);
    if (!key) throw std::invalid_argument("seq " + std::to_string(row.seq) + ": our vocabulary lacks " + row.key);
  }
  const ActionKind kind = row.kind == "fallthrough" ? ActionKind::ImplFallthrough
                          : row.kind == "typed"     ? ActionKind::ImplTyped
                                                    : ActionKind::ImplBoxed;
  return Action(kind, op, key, 0, 0, std::nullopt);
}

Action inLibraryBlock(const Action& a) {
  using oracle::LibraryBody;
  using oracle::LibraryKind;
  if (a.kind == ActionKind::Def) {
    return Action::libraryBlock({LibraryKind::Fragment, oracle::kOwnNamespace, LibraryBody::Def, false}, a.op,
                                std::nullopt);
  }
  if (!oracle::isImpl(a.kind)) return a;
  const LibraryBody body = a.kind == ActionKind::ImplTyped  ? LibraryBody::ImplTyped
                           : a.kind == ActionKind::ImplBoxed ? LibraryBody::ImplBoxed
                                                             : LibraryBody::ImplFallthrough;
  return Action::libraryBlock({LibraryKind::Impl, oracle::kOwnNamespace, body, false}, a.op, a.key);
}

std::vector<Action> seedActions(const Seed& seed, SeedTarget target) {
  if (target == SeedTarget::Registration) return seed.actions;
  std::vector<Action> out;
  for (const Action& a : seed.actions) out.push_back(inLibraryBlock(a));
  return out;
}

std::vector<uint8_t> seedBytes(const Seed& seed, SeedTarget target) {
  return oracle::encodeActions(seedActions(seed, target), target == SeedTarget::Registration
                                                              ? oracle::kRegistrationWeights
                                                              : oracle::kLibraryWeights);
}

SeedSet makeSeeds(const std::vector<Row>& rows, const SeedPlan& plan, std::set<std::string>& taken) {
  SeedSet out;
  std::map<std::string, long> skipped_per_operator;
  const std::vector<RealOperator> ops = realOperators(rows, skipped_per_operator);
  out.operators = static_cast<long>(ops.size());
  // Shapes, most common first (ties: the first registered first), each with its first operator.
  std::map<std::string, std::pair<long, const RealOperator*>> shapes;
  for (const RealOperator& op : ops) {
    ++shapes.emplace(op.shape, std::pair{0L, &op}).first->second.first;
  }
  out.shapes = static_cast<long>(shapes.size());
  std::vector<std::pair<long, const RealOperator*>> ranked;
  for (const auto& [shape, entry] : shapes) {
    if (taken.count(shape)) {
      ++out.shapes_taken_before;
      continue;
    }
    ranked.push_back(entry);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->first_seq < b.second->first_seq;
  });
  // One action per row and the start-up fallbacks, within the registration fuzzer's cap.
  const size_t capacity = oracle::kRegistrationWeights.max_actions - 1;
  size_t next = 0;
  std::vector<std::vector<const RealOperator*>> chosen;
  while (chosen.size() < plan.single && next < ranked.size()) {
    const RealOperator* op = ranked[next++].second;
    if (op->rows.size() <= capacity) chosen.push_back({op});
  }
  while (chosen.size() < plan.single + plan.packed && next < ranked.size()) {
    std::vector<const RealOperator*> pack;
    size_t actions = 0;
    while (next < ranked.size() && pack.size() < kMaxOperatorsPerSeed &&
           actions + ranked[next].second->rows.size() <= capacity) {
      actions += ranked[next].second->rows.size();
      pack.push_back(ranked[next++].second);
    }
    if (pack.empty()) {
      ++next;  // one operator alone exceeds the cap: not taken
      continue;
    }
    chosen.push_back(pack);
  }
  for (const auto& pack : chosen) {
    out.seeds.push_back(seedOf(plan.release, out.seeds.size(), pack));
    for (const RealOperator* op : pack) {
      taken.insert(op->shape);
      ++out.shapes_taken;
      for (const auto& [name_key, count] : skipped_per_operator) {
        if (name_key.rfind(op->name + "\t", 0) == 0) out.skipped_keys[name_key.substr(op->name.size() + 1)] += count;
      }
    }
  }
  return out;
}

}  // namespace dispatch::workload
