#include "bench/workloads/workload.h"

#include <zlib.h>

#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unistd.h>

namespace dispatch::workload {

namespace {

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

long long number(const std::string& cell, long line) {
  try {
    size_t used = 0;
    const long long value = std::stoll(cell, &used);
    if (used == cell.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::runtime_error("line " + std::to_string(line) + ": not a number: '" + cell + "'");
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

std::optional<CallKind> callKind(const std::string& call) {
  if (call == "def") return CallKind::Def;
  if (call == "impl") return CallKind::Impl;
  if (call == "fallback") return CallKind::Fallback;
  if (call == "library") return CallKind::Library;
  if (call == "name") return CallKind::Name;
  return std::nullopt;
}

}  // namespace

Workload parseWorkload(std::istream& in) {
  Workload workload;
  std::string line;
  bool header_seen = false;
  long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.rfind('#', 0) == 0) {
      workload.comments.push_back(line);
      continue;
    }
    auto cells = splitTabs(line);
    if (!header_seen) {
      if (cells != kColumns)
        throw std::runtime_error("line " + std::to_string(line_number) + ": not the recorder's columns");
      header_seen = true;
      continue;
    }
    if (cells.size() != kColumns.size())
      throw std::runtime_error("line " + std::to_string(line_number) + ": " + std::to_string(cells.size()) +
                               " fields, not " + std::to_string(kColumns.size()));
    auto dash = [](std::string& cell) { return cell == "-" ? std::string() : std::move(cell); };
    workload.rows.push_back(Row{static_cast<long>(number(cells[0], line_number)), cells[1],
                                number(cells[2], line_number), cells[3], dash(cells[4]), cells[5], cells[6],
                                dash(cells[9]), dash(cells[10])});
  }
  if (!header_seen) throw std::runtime_error("no column line: not a recording");
  if (workload.rows.empty()) throw std::runtime_error("a recording without registrations");
  return workload;
}

Workload readWorkload(const std::string& path) {
  // gzread reads plain files as they are, so one path serves both.
  gzFile file = path == "-" ? gzdopen(dup(STDIN_FILENO), "rb") : gzopen(path.c_str(), "rb");
  if (file == nullptr) throw std::runtime_error("cannot open " + path);
  std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(file, gzclose);
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(got));
  if (got < 0) {
    int code = 0;
    throw std::runtime_error(path + ": " + gzerror(file, &code));
  }
  std::istringstream in(text);
  try {
    return parseWorkload(in);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

const char* toString(CallKind kind) {
  switch (kind) {
    case CallKind::Library:
      return "library";
    case CallKind::Name:
      return "name";
    case CallKind::Def:
      return "def";
    case CallKind::Impl:
      return "impl";
    case CallKind::Fallback:
      return "fallback";
  }
  return "?";
}

FunctionSchema translateSchema(const Row& row) {
  const std::string& text = row.schema;
  const auto open = text.find('(');
  const auto arrow = text.rfind(") -> ");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open)
    throw std::runtime_error("cannot split schema: '" + text + "'");
  FunctionSchema schema;
  schema.name = OperatorName{row.op, row.overload};
  for (const auto& part : splitTopLevel(std::string_view(text).substr(open + 1, arrow - open - 1))) {
    const std::string argument = trim(part);
    if (argument.empty() || argument == "*" || argument == "...") continue;
    auto [type, name] = typeAndName(argument);
    schema.arguments.push_back(Argument{name, ourType(type)});
  }
  std::string returns = trim(std::string_view(text).substr(arrow + 5));
  if (!returns.empty() && returns.front() == '(' && returns.back() == ')') returns = returns.substr(1, returns.size() - 2);
  for (const auto& part : splitTopLevel(returns)) {
    const std::string declaration = trim(part);
    if (declaration.empty() || declaration == "...") continue;
    schema.returns.push_back(ourType(typeAndName(declaration).first));
  }
  return schema;
}

long Translation::skipped() const {
  long total = 0;
  for (const auto& [key, count] : skipped_keys) total += count;
  return total;
}

long Translation::untranslated() const {
  long total = 0;
  for (const auto& [reason, entry] : untranslatable) total += entry.first;
  return total;
}

Translation translate(const std::vector<Row>& rows) {
  Translation out;
  out.calls.reserve(rows.size());
  auto cannot = [&](const std::string& reason, const std::string& message) {
    auto& entry = out.untranslatable[reason];
    if (entry.first++ == 0) entry.second = message;
  };
  for (const Row& row : rows) {
    const std::optional<CallKind> kind = callKind(row.call);
    if (!kind) {
      cannot("unknown call", "seq " + std::to_string(row.seq) + ": '" + row.call + "'");
      continue;
    }
    Call call;
    call.kind = *kind;
    call.seq = row.seq;
    call.c10_ns = row.c10_ns;
    call.name = OperatorName{row.op, row.overload};
    call.debug = "#" + std::to_string(row.seq) + " " + row.debug;
    if (call.kind == CallKind::Impl || call.kind == CallKind::Fallback) {
      if (row.key != "catch-all" || call.kind == CallKind::Fallback) {
        call.key = tryParseDispatchKey(row.key);
        if (!call.key) {
          ++out.skipped_keys[row.key];
          continue;
        }
      }
      call.fallthrough = row.kind == "fallthrough";
      call.typed = row.kind == "typed";
    } else if (call.kind == CallKind::Def) {
      try {
        call.schema = translateSchema(row);
      } catch (const std::exception& e) {
        cannot("schema not translatable", "seq " + std::to_string(row.seq) + ": " + e.what());
        continue;
      }
    }
    out.calls.push_back(std::move(call));
  }
  return out;
}

std::string operatorKey(const std::string& op, const std::string& overload) { return op + "." + overload; }

std::vector<Row> operatorSlice(const std::vector<Row>& rows, size_t stride) {
  if (stride == 0) throw std::invalid_argument("operatorSlice: stride 0");
  std::set<std::string> chosen;
  std::set<std::string> seen;
  std::vector<Row> slice;
  for (const Row& row : rows) {
    if (row.call == "def" || row.call == "impl" || row.call == "name") {
      const std::string name = row.op + "." + row.overload;
      if (seen.insert(name).second && (seen.size() - 1) % stride == 0) chosen.insert(name);
      if (chosen.count(name) == 0) continue;
    }
    slice.push_back(row);
  }
  return slice;
}

}  // namespace dispatch::workload
