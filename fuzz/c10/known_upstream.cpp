#include "known_upstream.h"

#include <fstream>
#include <stdexcept>

namespace dispatch::fuzz::c10 {

namespace {

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

}  // namespace

std::vector<KnownBug> readKnownBugs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read known upstream bugs from " + path);
  std::vector<KnownBug> bugs;
  for (std::string line; std::getline(in, line);) {
    if (trimmed(line).empty() || trimmed(line)[0] == '#') continue;
    KnownBug bug;
    size_t start = 0;
    for (size_t bar = line.find(" | "); ; bar = line.find(" | ", start)) {
      // Terms are split at " | " and keep inner spaces; only the line's ends are trimmed.
      std::string term = line.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
      if (start == 0) {
        bug.id = trimmed(term);
      } else {
        bug.present.push_back(term);
      }
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    if (bug.id.empty() || bug.present.empty()) throw std::runtime_error("no terms in line: " + line);
    bugs.push_back(std::move(bug));
  }
  return bugs;
}

std::optional<std::string> knownBugIn(const std::vector<KnownBug>& bugs, const std::string& report) {
  for (const KnownBug& bug : bugs) {
    bool match = true;
    for (const auto& term : bug.present) match = match && report.find(term) != std::string::npos;
    if (match) return bug.id;
  }
  return std::nullopt;
}

}  // namespace dispatch::fuzz::c10
