// Replays a recorded PyTorch start-up workload (bench/workloads/README.md) into a fresh
// dispatcher of every flavour, in the recorded order, then runs checkInvariants on every
// operator. Prints, per flavour: what was registered, refused or skipped (keys our vocabulary
// lacks, by name and count), our time per call kind beside c10's (the recording's real_call_ns),
// and the operators whose invariants fail (exit status 1 if any).
//
//   zcat bench/workloads/libtorch-1.13-startup.tsv.gz | workload_replay -
//   workload_replay FILE.tsv
//
// What a replay cannot carry over, and does instead:
// - Schemas: ours are a subset of c10's (dispatch/schema.h). Each argument keeps its name and
//   whether key extraction reads it, as c10 decides that (Tensor, Tensor?, Tensor[], Tensor?[]);
//   other types become float / bool / str when their base type is one, int otherwise.
// - C++ signatures: ours are typeid-based and cannot name c10's types, so every typed kernel is
//   registered with one stand-in signature: the consistency check runs and agrees, as in c10.
//   Inferred schemas are not passed.
// - Kernels: boxed no-ops; fallthrough stays fallthrough; 1.13's named-not-supported fallback is a
//   boxed kernel like any other.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch.h"

namespace {

using dispatch::ArgType;
using dispatch::DispatchKey;

struct Row {
  std::string call, op, overload, key, kind, schema, debug;
  long long c10_ns = 0;
};

const std::vector<std::string> kColumns = {"seq", "call", "real_call_ns", "operator", "overload", "key",
                                           "kind", "unboxed", "cpp_signature", "schema", "debug"};

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> cells;
  std::string::size_type start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    cells.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return cells;
    start = tab + 1;
  }
}

// The rows of a recording; the '#' lines go to `comments`. Throws on a malformed file.
std::vector<Row> readWorkload(std::istream& in, std::vector<std::string>& comments) {
  std::vector<Row> rows;
  std::string line;
  bool header_seen = false;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind('#', 0) == 0) {
      comments.push_back(line);
      continue;
    }
    auto cells = splitTabs(line);
    if (!header_seen) {
      if (cells != kColumns) throw std::runtime_error("line " + std::to_string(number) + ": not the recorder's columns");
      header_seen = true;
      continue;
    }
    if (cells.size() != kColumns.size()) throw std::runtime_error("line " + std::to_string(number) + ": wrong field count");
    rows.push_back(Row{cells[1], cells[3], cells[4] == "-" ? "" : cells[4], cells[5], cells[6], cells[9], cells[10],
                       std::stoll(cells[2])});
  }
  if (!header_seen) throw std::runtime_error("no column line: not a recording");
  return rows;
}

// --- c10 schema text -> our FunctionSchema ------------------------------------------------------

// Splits at the commas outside brackets, parentheses and quotes.
std::vector<std::string> splitTopLevel(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(' ') - first + 1));
}

// "Tensor(a!)" -> "Tensor": alias annotations are the only parentheses inside a type.
std::string withoutAliasAnnotations(std::string_view type) {
  std::string out;
  int depth = 0;
  for (char c : type) {
    if (c == '(') ++depth;
    if (depth == 0) out += c;
    if (c == ')') --depth;
  }
  return out;
}

ArgType ourType(std::string_view c10_type) {
  const std::string type = withoutAliasAnnotations(c10_type);
  if (type.rfind("Tensor", 0) == 0) {
    // c10's dispatch arguments: Tensor, Tensor?, Tensor[], Tensor?[]; Tensor[]? is not one.
    if (type == "Tensor") return ArgType::Tensor;
    if (type == "Tensor?") return ArgType::OptionalTensor;
    if (type == "Tensor[]" || type == "Tensor?[]") return ArgType::TensorList;
  }
  if (type == "float" || type == "float?") return ArgType::Float;
  if (type == "bool" || type == "bool?") return ArgType::Bool;
  if (type == "str" || type == "str?") return ArgType::String;
  return ArgType::Int;
}

// "Tensor(a!) self=None" -> type "Tensor(a!)", name "self"; "Tensor" (a return) -> name "".
std::pair<std::string, std::string> typeAndName(const std::string& declaration) {
  std::string decl = declaration;
  int depth = 0;
  for (std::string::size_type i = 0; i < decl.size(); ++i) {
    const char c = decl[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == '=' && depth == 0) {
      decl = trim(decl.substr(0, i));
      break;
    }
  }
  depth = 0;
  std::string::size_type last_space = std::string::npos;
  for (std::string::size_type i = 0; i < decl.size(); ++i) {
    const char c = decl[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ' ' && depth == 0) last_space = i;
  }
  if (last_space == std::string::npos) return {decl, ""};
  return {trim(decl.substr(0, last_space)), trim(decl.substr(last_space + 1))};
}

// Our schema for a def row. Throws std::runtime_error on text it cannot split.
dispatch::FunctionSchema translateSchema(const Row& row) {
  const std::string& text = row.schema;
  const auto open = text.find('(');
  const auto arrow = text.rfind(") -> ");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open)
    throw std::runtime_error("cannot split schema: " + text);
  dispatch::FunctionSchema schema;
  schema.name = dispatch::OperatorName{row.op, row.overload};
  for (const auto& part : splitTopLevel(std::string_view(text).substr(open + 1, arrow - open - 1))) {
    const std::string argument = trim(part);
    if (argument.empty() || argument == "*" || argument == "...") continue;
    auto [type, name] = typeAndName(argument);
    schema.arguments.push_back(dispatch::Argument{name, ourType(type)});
  }
  std::string returns = trim(text.substr(arrow + 5));
  if (!returns.empty() && returns.front() == '(' && returns.back() == ')') returns = returns.substr(1, returns.size() - 2);
  for (const auto& part : splitTopLevel(returns)) {
    const std::string declaration = trim(part);
    if (declaration.empty() || declaration == "...") continue;
    schema.returns.push_back(ourType(typeAndName(declaration).first));
  }
  return schema;
}

// --- the replay ---------------------------------------------------------------------------------

struct CallTotals {
  long calls = 0;
  long long ours_ns = 0;
  long long c10_ns = 0;
};

struct Report {
  std::map<std::string, CallTotals> per_call;  // call kind -> totals of the registrations made
  std::map<std::string, long> skipped_keys;    // key we lack -> registrations skipped
  std::map<std::string, std::pair<long, std::string>> refusals;  // "call: reason" -> count, first message
  long operators = 0;
  long invariant_failures = 0;
  std::vector<std::string> invariant_messages;
};

template <class L>
void noopKernel(const dispatch::BasicOperatorHandle<L>&, dispatch::DispatchKeySet, dispatch::Stack*) {}

template <class L>
dispatch::BasicKernelFunction<L> kernelFor(const Row& row) {
  using KernelFunction = dispatch::BasicKernelFunction<L>;
  if (row.kind == "fallthrough") return KernelFunction::makeFallthrough();
  return KernelFunction::template makeFromBoxedFunction<&noopKernel<L>>();
}

// The refusal's kind and the start of its message, grouping refusals of one cause.
std::string refusalReason(const dispatch::Refusal& refusal) {
  std::string message = refusal.message();
  const auto colon = message.find(':');
  return message.substr(0, std::min<std::string::size_type>(colon, 60));
}

template <class L>
Report replay(const std::vector<Row>& rows) {
  using Dispatcher = dispatch::BasicDispatcher<L>;
  Report report;
  auto dispatcher = std::make_unique<Dispatcher>();
  std::vector<dispatch::RegistrationHandle> handles;  // destroyed before the dispatcher
  handles.reserve(rows.size());
  const auto stand_in_signature = dispatch::CppSignature::make<dispatch::Tensor(const dispatch::Tensor&)>();

  auto refuse = [&](const Row& row, const std::string& reason, const std::string& message) {
    auto& entry = report.refusals[row.call + ": " + reason];
    if (entry.first++ == 0) entry.second = message;
  };
  auto timed = [&](const Row& row, auto&& registration) {
    const auto start = std::chrono::steady_clock::now();
    dispatch::TriedRegistration tried = registration();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    if (!tried.ok()) {
      refuse(row, refusalReason(*tried.refusal()), tried.refusal()->message());
      return;
    }
    auto& totals = report.per_call[row.call];
    ++totals.calls;
    totals.ours_ns += ns;
    totals.c10_ns += row.c10_ns;
    handles.push_back(std::move(tried).take());
  };
  // Registrations that throw rather than refuse (library, name) as TriedRegistration.
  auto catching = [](auto&& registration) -> dispatch::TriedRegistration {
    try {
      return registration();
    } catch (const dispatch::RegistrationError& e) {
      return dispatch::Refusal(dispatch::Refusal::Kind::Registration, e.what());
    }
  };

  for (const Row& row : rows) {
    std::optional<DispatchKey> key;
    if (row.call == "impl" || row.call == "fallback") {
      if (row.key != "catch-all") {
        key = dispatch::tryParseDispatchKey(row.key);
        if (!key.has_value()) {
          ++report.skipped_keys[row.key];
          continue;
        }
      }
    }
    if (row.call == "library") {
      timed(row, [&] { return catching([&] { return dispatcher->registerLibrary(row.op, row.debug); }); });
    } else if (row.call == "name") {
      timed(row, [&] { return catching([&] { return dispatcher->registerName({row.op, row.overload}); }); });
    } else if (row.call == "def") {
      dispatch::FunctionSchema schema;
      try {
        schema = translateSchema(row);
      } catch (const std::exception& e) {
        refuse(row, "schema not translatable", e.what());
        continue;
      }
      timed(row, [&] { return dispatcher->tryRegisterDef(std::move(schema), row.debug); });
    } else if (row.call == "impl") {
      std::optional<dispatch::CppSignature> signature;
      if (row.kind == "typed") signature = stand_in_signature;
      timed(row, [&] {
        return dispatcher->tryRegisterImpl({row.op, row.overload}, key, kernelFor<L>(row), signature, std::nullopt,
                                           row.debug);
      });
    } else if (row.call == "fallback") {
      timed(row, [&] { return dispatcher->tryRegisterFallback(*key, kernelFor<L>(row), row.debug); });
    } else {
      refuse(row, "unknown call", row.call);
    }
  }

  const auto names = dispatcher->getAllOpNames();
  report.operators = static_cast<long>(names.size());
  for (const auto& name : names) {
    const auto op = dispatcher->findOp(name);
    try {
      op->checkInvariants();
    } catch (const std::exception& e) {
      if (report.invariant_failures++ < 5) report.invariant_messages.push_back(dispatch::toString(name) + ": " + e.what());
    }
  }
  handles.clear();
  return report;
}

double milliseconds(long long ns) { return static_cast<double>(ns) / 1e6; }

void print(std::string_view flavour, const Report& report) {
  std::printf("\n== flavour %.*s\n", static_cast<int>(flavour.size()), flavour.data());
  std::printf("%-10s %8s %12s %12s %10s %10s\n", "call", "made", "ours ms", "c10 ms", "ours ns/op", "c10 ns/op");
  CallTotals all;
  for (const auto& [call, totals] : report.per_call) {
    std::printf("%-10s %8ld %12.2f %12.2f %10lld %10lld\n", call.c_str(), totals.calls, milliseconds(totals.ours_ns),
                milliseconds(totals.c10_ns), totals.ours_ns / totals.calls, totals.c10_ns / totals.calls);
    all.calls += totals.calls;
    all.ours_ns += totals.ours_ns;
    all.c10_ns += totals.c10_ns;
  }
  if (all.calls > 0)
    std::printf("%-10s %8ld %12.2f %12.2f %10lld %10lld\n", "all", all.calls, milliseconds(all.ours_ns), milliseconds(all.c10_ns),
                all.ours_ns / all.calls, all.c10_ns / all.calls);
  long skipped = 0;
  for (const auto& [key, count] : report.skipped_keys) skipped += count;
  std::printf("skipped (key not in our vocabulary): %ld registrations on %zu keys\n", skipped, report.skipped_keys.size());
  for (const auto& [key, count] : report.skipped_keys) std::printf("  %-32s %ld\n", key.c_str(), count);
  long refused = 0;
  for (const auto& [reason, entry] : report.refusals) refused += entry.first;
  std::printf("refused by our dispatcher: %ld\n", refused);
  for (const auto& [reason, entry] : report.refusals)
    std::printf("  %-50s %ld  (first: %s)\n", reason.c_str(), entry.first, entry.second.c_str());
  std::printf("operators: %ld; failing checkInvariants: %ld\n", report.operators, report.invariant_failures);
  for (const auto& message : report.invariant_messages) std::printf("  %s\n", message.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: zcat bench/workloads/libtorch-RELEASE-startup.tsv.gz | %s -\n       %s FILE.tsv\n",
                 argv[0], argv[0]);
    return 2;
  }
  std::vector<std::string> comments;
  std::vector<Row> rows;
  try {
    if (std::string_view(argv[1]) == "-") {
      rows = readWorkload(std::cin, comments);
    } else {
      std::ifstream file(argv[1]);
      if (!file) throw std::runtime_error(std::string("cannot open ") + argv[1]);
      rows = readWorkload(file, comments);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "workload_replay: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n%zu registrations\n", comments.empty() ? "(no header)" : comments.front().c_str(), rows.size());
  bool invariants_hold = true;
#define DISPATCH_REPLAY_FLAVOUR(L)                     \
  {                                                    \
    const Report report = replay<L>(rows);             \
    print(L::kName, report);                           \
    invariants_hold &= report.invariant_failures == 0; \
  }
  DISPATCH_FOR_EACH_LAYOUT(DISPATCH_REPLAY_FLAVOUR)
#undef DISPATCH_REPLAY_FLAVOUR
  return invariants_hold ? 0 : 1;
}
