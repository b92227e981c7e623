#include "prop_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <typeinfo>

#include "oracle/model/model.h"

// Clang's profile runtime, present in coverage builds only: a forked child leaves with _exit,
// so it writes its counters explicitly.
extern "C" int __llvm_profile_write_file(void) __attribute__((weak));

namespace dispatch::props {

bool rcParamsSets(std::string_view key) {
  const char* params = std::getenv("RC_PARAMS");
  if (params == nullptr) return false;
  const std::string_view text(params);
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    const bool starts = at == 0 || text[at - 1] == ' ';
    const size_t end = at + key.size();
    if (starts && end < text.size() && text[end] == '=') return true;
  }
  return false;
}

namespace {
std::string reproduceParams(const std::string& test_id, const rc::detail::Reproduce& reproduce) {
  rc::detail::Configuration config;
  config.reproduce[test_id] = reproduce;
  // Only the reproduce= entry: the seed is irrelevant when reproducing.
  std::istringstream entries(rc::detail::configToMinimalString(config));
  std::string entry;
  while (entries >> entry) {
    if (entry.rfind("reproduce=", 0) == 0) return entry;
  }
  return rc::detail::configToMinimalString(config);
}

// Set in the child of runPropertyInChild: cases then run in-process.
bool g_whole_property_in_child = false;
}  // namespace

PropertyOutcome evaluate(const rc::detail::TestResult& result, const std::string& test_id,
                         const rc::detail::TestParams& params) {
  using namespace rc::detail;
  std::ostringstream text;
  if (result.template is<SuccessResult>()) {
    const auto& success = result.template get<SuccessResult>();
    text << "[ property ] " << test_id << ": " << success.numSuccess << " cases passed (seed "
         << params.seed << ", max_size " << params.maxSize << ")\n";
    if (!success.distribution.empty()) {
      printResultMessage(result, text);
      text << "\n";
    }
    return {true, text.str()};
  }
  printResultMessage(result, text);
  if (result.template is<rc::detail::Error>() &&
      result.template get<rc::detail::Error>().description.find("Reproduced result is not a failure") !=
          std::string::npos) {
    text << "\n(RC_PARAMS reproduces a case that passes now: the bug is fixed, or the code, the "
            "generators or the flavour changed since the string was printed. Rerun without "
            "'reproduce=' to search afresh.)";
  }
  if (result.template is<FailureResult>()) {
    const std::string filter = test_id.substr(0, test_id.find('/')) + "." +
                               test_id.substr(test_id.find('/') + 1);
    text << "\n\nReproduce only this case with:\n  RC_PARAMS=\""
         << reproduceParams(test_id, result.template get<FailureResult>().reproduce)
         << "\" <this test binary> --gtest_filter=" << filter;
  }
  return {false, text.str()};
}

namespace {

// The child's exit codes. Sanitizers exit with 1 (asan/ubsan) or 66 (tsan) and a hardened
// standard library aborts, so none of these collide with a crash.
constexpr int kChildPassed = 0;
constexpr int kChildFailed = 71;
constexpr int kChildDiscarded = 72;
constexpr int kChildThrew = 73;
constexpr size_t kMaxChildOutput = 16000;

void writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void childExit(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (__llvm_profile_write_file != nullptr) __llvm_profile_write_file();
  ::_exit(code);
}

// A case that runs longer than this in a forked child is killed (SIGALRM) and fails: an
// infinite loop or recursion must not hang the suite. DISPATCH_PROPS_CASE_TIMEOUT=<seconds>.
unsigned caseTimeoutSeconds() {
  const char* value = std::getenv("DISPATCH_PROPS_CASE_TIMEOUT");
  if (value != nullptr && *value != '\0') return static_cast<unsigned>(std::strtoul(value, nullptr, 10));
  // The slowest passing case takes about 0.5 s under asan-ubsan; 10 s leaves room for a loaded
  // machine. Shrinking a hang costs this much per attempt that still hangs.
  return 10;
}

std::string describeSignal(int sig) {
  if (sig == SIGALRM) {
    return "SIGALRM: the case ran longer than " + std::to_string(caseTimeoutSeconds()) +
           " s (DISPATCH_PROPS_CASE_TIMEOUT), an infinite loop or recursion";
  }
  const char* name = ::strsignal(sig);
  return "signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
}

}  // namespace

bool forkDisabled() {
  const char* value = std::getenv("DISPATCH_PROPS_NO_FORK");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

namespace {

constexpr std::string_view kOutcomeMarker = "\n@@dispatch-props-outcome@@";

// Reads fd to its end.
std::string readAll(int fd, size_t limit) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (text.size() < limit) text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

// Forks; the child's stdout and stderr go to the returned pipe. Returns the child's pid (0 in the
// child), -1 on failure.
pid_t forkCapturing(int& read_fd) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[1]);
    return 0;
  }
  ::close(fds[1]);
  read_fd = fds[0];
  return pid;
}

int waitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describeStatus(int status) {
  if (WIFSIGNALED(status)) return describeSignal(WTERMSIG(status));
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

}  // namespace

namespace {

std::string shortened(const std::string& line, size_t width) {
  if (line.size() <= width) return line;
  const size_t tail = width / 3;
  return line.substr(0, width - tail) + " ... " + line.substr(line.size() - tail);
}

// "    #5 0x55f9 in dispatch::Foo<...>::bar(int) /path/to/file.cpp:170:16" -> the function and
// "file.cpp:170", or nullopt for a frame outside this project (libc, std::, RapidCheck, gtest).
std::optional<std::string> projectFrame(const std::string& line, size_t width) {
  const size_t hash = line.find_first_not_of(' ');
  if (hash == std::string::npos || line[hash] != '#') return std::nullopt;
  const size_t in = line.find(" in ", hash);
  if (in == std::string::npos) return std::string();  // unsymbolized: drop
  std::string function = line.substr(in + 4);
  std::string where;
  const size_t last_space = function.rfind(' ');
  if (last_space != std::string::npos && function.find(':', last_space) != std::string::npos &&
      function.find('(', last_space) == std::string::npos) {
    where = function.substr(last_space + 1);
    function.resize(last_space);
    const size_t slash = where.rfind('/');
    if (slash != std::string::npos) where = where.substr(slash + 1);
  }
  // The library, the harness and the property body; not RapidCheck, gtest, std:: or the
  // isolation machinery.
  const std::string name = function.rfind("void ", 0) == 0 ? function.substr(5) : function;
  const bool ours = name.rfind("dispatch::", 0) == 0;
  for (const char* machinery : {"checkProperty", "runPropertyInChild", "props::isolate",
                                "_Test::TestBody"}) {
    if (name.find(machinery) != std::string::npos) return std::string();
  }
  if (!ours) return std::string();
  const std::string number = line.substr(hash, line.find(' ', hash) - hash);
  return "    " + number + " " + shortened(function, width) + (where.empty() ? "" : "  " + where);
}

}  // namespace

std::string condenseReport(const std::string& output, size_t max_lines, size_t max_width) {
  std::istringstream in(output);
  std::ostringstream out;
  size_t lines = 0;
  size_t dropped = 0;
  for (std::string line; std::getline(in, line);) {
    if (auto frame = projectFrame(line, max_width)) {
      if (frame->empty()) continue;  // a frame of the runtime or of the test framework
      line = *frame;
    } else {
      line = shortened(line, max_width);
    }
    if (lines >= max_lines) {
      ++dropped;
      continue;
    }
    out << line << "\n";
    ++lines;
  }
  if (dropped) out << "... (" << dropped << " more lines)\n";
  return out.str();
}

std::optional<PropertyOutcome> runPropertyInChild(const std::function<PropertyOutcome()>& run) {
  int read_fd = -1;
  const pid_t pid = forkCapturing(read_fd);
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    g_whole_property_in_child = true;
    PropertyOutcome outcome;
    try {
      outcome = run();
    } catch (const std::exception& e) {
      outcome = {false, std::string("the property threw ") + typeid(e).name() + ": " + e.what()};
    }
    std::cout.flush();
    std::cerr.flush();
    writeAll(STDOUT_FILENO, std::string(kOutcomeMarker) + (outcome.passed ? "P" : "F") + outcome.text);
    childExit(0);
  }
  const std::string output = readAll(read_fd, size_t{1} << 24);
  ::close(read_fd);
  const int status = waitFor(pid);
  const size_t marker = output.rfind(kOutcomeMarker);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && marker != std::string::npos &&
      marker + kOutcomeMarker.size() < output.size()) {
    std::cout << output.substr(0, marker);
    const size_t at = marker + kOutcomeMarker.size();
    return PropertyOutcome{output[at] == 'P', output.substr(at + 1)};
  }
  std::cout << "[ property ] the library crashed (" << describeStatus(status)
            << ") in one of the cases:\n"
            << condenseReport(output, 40, 160) << std::flush;
  return std::nullopt;
}

void isolate(const std::function<void()>& body) {
  if (forkDisabled()) {
    body();
    return;
  }
  if (g_whole_property_in_child) {
    // One child runs every case; a case that hangs kills it, and the per-case rerun finds it.
    struct Disarm {
      ~Disarm() { ::alarm(0); }
    } disarm;
    ::alarm(caseTimeoutSeconds());
    body();
    return;
  }
  int read_fd = -1;
  const pid_t pid = forkCapturing(read_fd);
  RC_ASSERT(pid >= 0);
  if (pid == 0) {
    ::alarm(caseTimeoutSeconds());
    int code = kChildPassed;
    try {
      body();
    } catch (const rc::detail::CaseResult& result) {
      if (result.type == rc::detail::CaseResult::Type::Failure) {
        writeAll(STDERR_FILENO, result.description);
        code = kChildFailed;
      } else if (result.type == rc::detail::CaseResult::Type::Discard) {
        writeAll(STDERR_FILENO, result.description);
        code = kChildDiscarded;
      }
    } catch (const std::exception& e) {
      writeAll(STDERR_FILENO, std::string("uncaught exception ") + typeid(e).name() + ": " +
                                  e.what());
      code = kChildThrew;
    } catch (...) {
      writeAll(STDERR_FILENO, "uncaught exception of unknown type");
      code = kChildThrew;
    }
    childExit(code);
  }

  std::string output = readAll(read_fd, kMaxChildOutput);
  ::close(read_fd);
  if (output.size() >= kMaxChildOutput) output += "\n... (output truncated)";
  const int status = waitFor(pid);
  const bool exited = WIFEXITED(status);
  const int code = exited ? WEXITSTATUS(status) : -1;
  if (exited && code == kChildPassed) return;
  if (exited && code == kChildDiscarded) RC_DISCARD(output);
  if (exited && code == kChildFailed) RC_FAIL(output);
  if (exited && code == kChildThrew) RC_FAIL("the case threw instead of failing an assertion: " + output);
  RC_FAIL("the library crashed (" + describeStatus(status) +
          ") while running this case; the first lines of its report:\n" +
          condenseReport(output, 20, 140));
}

namespace {
// Compares two dumps of "Key: entry" lines key by key and groups the keys that differ the same
// way: "model <missing>, dispatcher k0 [math kernel]: CPU, CUDA, ... (14 keys)".
std::string keyedDiff(const std::string& expected, const std::string& actual) {
  auto parse = [](const std::string& dump, std::vector<std::string>& order,
                  std::map<std::string, std::string>& entries) {
    std::istringstream in(dump);
    for (std::string line; std::getline(in, line);) {
      const size_t colon = line.find(": ");
      const std::string key = colon == std::string::npos ? line : line.substr(0, colon);
      if (!entries.count(key)) order.push_back(key);
      entries[key] = colon == std::string::npos ? "" : line.substr(colon + 2);
    }
  };
  std::vector<std::string> order;
  std::map<std::string, std::string> want;
  std::map<std::string, std::string> have;
  parse(expected, order, want);
  parse(actual, order, have);
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> groups;
  for (const std::string& key : order) {
    const std::string w = want.count(key) ? want[key] : "<missing>";
    const std::string h = have.count(key) ? have[key] : "<missing>";
    if (w == h) continue;
    auto found = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return g.first == std::make_pair(w, h); });
    if (found == groups.end()) {
      groups.push_back({{w, h}, {}});
      found = groups.end() - 1;
    }
    found->second.push_back(key);
  }
  std::ostringstream out;
  for (const auto& [change, keys] : groups) {
    out << "  model: " << change.first << "\n  dispatcher: " << change.second << "\n  for ";
    for (size_t i = 0; i < keys.size() && i < 12; ++i) out << (i ? ", " : "") << keys[i];
    if (keys.size() > 12) out << ", ...";
    out << " (" << keys.size() << (keys.size() == 1 ? " key)\n" : " keys)\n");
  }
  return out.str();
}
}  // namespace

namespace {
// The harness prints a kernel's result as "<kernel>@0x<raw key set>"; name the keys instead.
std::string nameKeySets(const std::string& text) {
  std::string out;
  size_t at = 0;
  for (size_t hit = text.find("@0x"); hit != std::string::npos; hit = text.find("@0x", at)) {
    size_t end = hit + 3;
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    out += text.substr(at, hit - at);
    if (end == hit + 3) {
      out += "@0x";
    } else {
      const uint64_t raw = std::stoull(text.substr(hit + 3, end - hit - 3), nullptr, 16);
      out += "@" + model::toString(model::KeySet::fromRaw(raw));
    }
    at = end;
  }
  return out + text.substr(at);
}
}  // namespace

std::string readableDisagreement(const std::string& raw_problem) {
  const std::string problem = nameKeySets(raw_problem);
  const size_t real = problem.find("\n--- dispatcher");
  const size_t model = problem.find("\n--- model\n", real == std::string::npos ? 0 : real);
  if (real == std::string::npos || model == std::string::npos) return problem;
  const size_t real_body = problem.find('\n', real + 1);
  const std::string actual = problem.substr(real_body + 1, model + 1 - (real_body + 1));
  const std::string expected = problem.substr(model + std::string("\n--- model\n").size());
  return problem.substr(0, real) + " The entries that differ:\n" + keyedDiff(expected, actual);
}

std::string tlsSnapshot() {
  const LocalDispatchKeySet tls = tls_local_dispatch_key_set();
  return "included " + model::toString(model::KeySet::fromRaw(tls.included.raw_repr())) +
         " excluded " + model::toString(model::KeySet::fromRaw(tls.excluded.raw_repr()));
}

namespace {
std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

std::string lineDiff(const std::string& expected, const std::string& actual, size_t max_lines) {
  const std::vector<std::string> a = splitLines(expected);
  const std::vector<std::string> b = splitLines(actual);
  // Longest common subsequence; the dumps are a few hundred lines at most.
  std::vector<std::vector<uint32_t>> lcs(a.size() + 1, std::vector<uint32_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::ostringstream out;
  size_t printed = 0;
  auto emit = [&](const char* prefix, const std::string& line) {
    if (printed++ < max_lines) out << prefix << line << "\n";
  };
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      // Keep unchanged lines only when they name an operator: context for the changes.
      if (a[i].rfind("==", 0) == 0) emit("  ", a[i]);
      ++i;
      ++j;
    } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      emit("+ ", b[j++]);
    } else {
      emit("- ", a[i++]);
    }
  }
  if (printed > max_lines) out << "... (" << printed - max_lines << " more lines)\n";
  return out.str();
}

}  // namespace dispatch::props
