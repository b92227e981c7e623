#pragma once
// The known upstream bugs of fuzz/c10/known_upstream.signatures: which one a report shows.
// The same rule as ci/dispatch_ci/c10_known.py.

#include <optional>
#include <string>
#include <vector>

namespace dispatch::fuzz::c10 {

struct KnownBug {
  std::string id;
  std::vector<std::string> present;  // every one occurs in the report
};

// Throws std::runtime_error when the file cannot be read or a line has no term.
std::vector<KnownBug> readKnownBugs(const std::string& path);

// The id of the first bug whose terms match, or nullopt.
std::optional<std::string> knownBugIn(const std::vector<KnownBug>& bugs, const std::string& report);

}  // namespace dispatch::fuzz::c10
