// Replays a recorded PyTorch start-up workload (bench/workloads/README.md) into a fresh
// dispatcher of every flavour, in the recorded order (bench/workloads/workload.h says what carries
// over and what does not).
//
//   workload_replay [--check-model] RECORDING
//       Per flavour: the calls made per kind, our time beside c10's (the recording's
//       real_call_ns), the registrations skipped (keys our vocabulary lacks, by name and count)
//       and refused, and checkInvariants on every operator. --check-model also replays into the
//       reference model and compares every registration's outcome and table
//       (bench/workloads/model_replay.h). Exit status 1 if an invariant or the model fails.
//   workload_replay --measure RUNS RECORDING
//       For bench/workload_bench.sh: per flavour one line of key=value figures: the whole replay
//       loop timed RUNS times (best and median ns), the heap it keeps and its peak (heap_meter.h),
//       and c10's recorded time for the same calls and for all of them.
//   workload_replay --callgrind FLAVOUR RECORDING
//       One replay of FLAVOUR between CALLGRIND_START/STOP_INSTRUMENTATION (run it under
//       valgrind --tool=callgrind --instr-atstart=no): the instructions of the registrations alone.
//
// RECORDING is a .tsv.gz as committed, a plain .tsv, or - for standard input.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/workloads/model_replay.h"
#include "bench/workloads/workload.h"
#include "callgrind_markers.h"
#include "heap_meter.h"

namespace {

using dispatch::workload::Call;
using dispatch::workload::Replay;
using dispatch::workload::Translation;
using dispatch::workload::Workload;

long long nanosecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

// checkInvariants on every operator: how many fail, and the first few messages printed.
template <class L>
long invariantFailures(const dispatch::BasicDispatcher<L>& dispatcher) {
  long failures = 0;
  for (const auto& name : dispatcher.getAllOpNames()) {
    try {
      dispatcher.findOp(name)->checkInvariants();
    } catch (const std::exception& e) {
      if (failures++ < 5) std::printf("  checkInvariants: %s: %s\n", dispatch::toString(name).c_str(), e.what());
    }
  }
  return failures;
}

void printSkipped(const Translation& translation) {
  std::printf("skipped (key not in our vocabulary): %ld registrations on %zu keys\n", translation.skipped(),
              translation.skipped_keys.size());
  for (const auto& [key, count] : translation.skipped_keys) std::printf("  %-32s %ld\n", key.c_str(), count);
  std::printf("not translatable: %ld\n", translation.untranslated());
  for (const auto& [reason, entry] : translation.untranslatable)
    std::printf("  %-32s %ld  (first: %s)\n", reason.c_str(), entry.first, entry.second.c_str());
}

// --- the report ---------------------------------------------------------------------------------

struct CallTotals {
  long calls = 0;
  long long ours_ns = 0;
  long long c10_ns = 0;
};

double milliseconds(long long ns) { return static_cast<double>(ns) / 1e6; }

// The refusal's kind and the start of its message, grouping refusals of one cause.
std::string refusalReason(const dispatch::Refusal& refusal) {
  const std::string message = refusal.message();
  return message.substr(0, std::min<std::string::size_type>(message.find(':'), 60));
}

template <class L>
bool report(const Translation& translation, bool check_model) {
  std::printf("\n== flavour %s\n", std::string(L::kName).c_str());
  std::map<std::string, CallTotals> per_call;
  std::map<std::string, std::pair<long, std::string>> refusals;  // reason -> count, first message
  Replay<L> replay;
  replay.reserve(translation.calls.size());
  for (const Call& call : translation.calls) {
    Call copy = call;
    const auto start = std::chrono::steady_clock::now();
    const auto refusal = replay.apply(std::move(copy));
    const long long ns = nanosecondsSince(start);
    if (refusal) {
      auto& entry = refusals[std::string(toString(call.kind)) + ": " + refusalReason(*refusal)];
      if (entry.first++ == 0) entry.second = refusal->message();
      continue;
    }
    auto& totals = per_call[toString(call.kind)];
    ++totals.calls;
    totals.ours_ns += ns;
    totals.c10_ns += call.c10_ns;
  }
  std::printf("%-10s %8s %12s %12s %10s %10s\n", "call", "made", "ours ms", "c10 ms", "ours ns/op", "c10 ns/op");
  CallTotals all;
  for (const auto& [call, totals] : per_call) {
    std::printf("%-10s %8ld %12.2f %12.2f %10lld %10lld\n", call.c_str(), totals.calls, milliseconds(totals.ours_ns),
                milliseconds(totals.c10_ns), totals.ours_ns / totals.calls, totals.c10_ns / totals.calls);
    all.calls += totals.calls;
    all.ours_ns += totals.ours_ns;
    all.c10_ns += totals.c10_ns;
  }
  if (all.calls > 0)
    std::printf("%-10s %8ld %12.2f %12.2f %10lld %10lld\n", "all", all.calls, milliseconds(all.ours_ns),
                milliseconds(all.c10_ns), all.ours_ns / all.calls, all.c10_ns / all.calls);
  printSkipped(translation);
  long refused = 0;
  for (const auto& [reason, entry] : refusals) refused += entry.first;
  std::printf("refused by our dispatcher: %ld\n", refused);
  for (const auto& [reason, entry] : refusals)
    std::printf("  %-50s %ld  (first: %s)\n", reason.c_str(), entry.first, entry.second.c_str());
  const long failures = invariantFailures(replay.dispatcher());
  std::printf("operators: %zu; failing checkInvariants: %ld\n", replay.dispatcher().numOperators(), failures);
  bool ok = failures == 0;
  if (check_model) {
    const auto model = dispatch::workload::checkAgainstModel<L>(translation.calls);
    std::printf("reference model: %ld calls (%ld made, %ld refused), %ld tables compared, %ld disagreements\n",
                model.calls, model.made, model.refused, model.tables_compared, model.disagreement_count);
    for (const auto& [kind, count] : model.not_modelled) std::printf("  not modelled: %s %ld\n", kind.c_str(), count);
    for (const auto& what : model.disagreements) std::printf("  %s\n", what.c_str());
    ok &= model.agrees();
  }
  return ok;
}

// --- the measurement ----------------------------------------------------------------------------

template <class L>
bool measure(const Workload& workload, const Translation& translation, int runs) {
  std::vector<long long> times;
  long made = 0, refused = 0;
  long long c10_replayed_ns = 0;
  long long retained = 0, peak = 0;
  size_t operators = 0;
  bool invariants_hold = true;
  for (int run = 0; run < runs; ++run) {
    std::vector<Call> calls = translation.calls;  // moved into the dispatcher, as c10's callers do
    Replay<L> replay;
    replay.reserve(calls.size());
    bench::resetHeapPeak();
    const long long before = bench::heapBytes().live;
    long run_refused = 0;
    const auto start = std::chrono::steady_clock::now();
    for (Call& call : calls) run_refused += replay.apply(std::move(call)).has_value();
    times.push_back(nanosecondsSince(start));
    if (run == 0) {
      const bench::HeapBytes after = bench::heapBytes();
      retained = after.live - before;
      peak = after.peak - before;
      refused = run_refused;
      made = static_cast<long>(translation.calls.size()) - run_refused;
      operators = replay.dispatcher().numOperators();
      invariants_hold = invariantFailures(replay.dispatcher()) == 0;
    }
  }
  for (const Call& call : translation.calls) c10_replayed_ns += call.c10_ns;
  long long c10_all_ns = 0;
  for (const auto& row : workload.rows) c10_all_ns += row.c10_ns;
  std::sort(times.begin(), times.end());
  std::printf(
      "flavour=%s runs=%d calls=%zu made=%ld refused=%ld skipped=%ld untranslated=%ld rows=%zu operators=%zu "
      "best_ns=%lld median_ns=%lld heap_retained_bytes=%lld heap_peak_bytes=%lld c10_ns_replayed=%lld "
      "c10_ns_all=%lld invariants=%s\n",
      std::string(L::kName).c_str(), runs, translation.calls.size(), made, refused, translation.skipped(),
      translation.untranslated(), workload.rows.size(), operators, times.front(), times[times.size() / 2], retained,
      peak, c10_replayed_ns, c10_all_ns, invariants_hold ? "hold" : "FAIL");
  return invariants_hold;
}

template <class L>
void instrumented(const Translation& translation) {
  std::vector<Call> calls = translation.calls;
  Replay<L> replay;
  replay.reserve(calls.size());
  long refused = 0;
  BENCH_START();
  for (Call& call : calls) refused += replay.apply(std::move(call)).has_value();
  BENCH_STOP();
  std::printf("flavour=%s calls=%zu refused=%ld\n", std::string(L::kName).c_str(), translation.calls.size(), refused);
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--check-model] RECORDING\n       %s --measure RUNS RECORDING\n"
               "       %s --callgrind FLAVOUR RECORDING\n(RECORDING: .tsv.gz, .tsv or -)\n",
               program, program, program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  bool check_model = false;
  int runs = 0;
  std::string callgrind_flavour;
  if (args.size() == 2 && args[0] == "--check-model") {
    check_model = true;
  } else if (args.size() == 3 && args[0] == "--measure") {
    runs = std::atoi(std::string(args[1]).c_str());
    if (runs <= 0) return usage(argv[0]);
    bench::startHeapCounting();
  } else if (args.size() == 3 && args[0] == "--callgrind") {
    callgrind_flavour = args[1];
  } else if (args.size() != 1) {
    return usage(argv[0]);
  }
  Workload workload;
  try {
    workload = dispatch::workload::readWorkload(std::string(args.back()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "workload_replay: %s\n", e.what());
    return 2;
  }
  const Translation translation = dispatch::workload::translate(workload.rows);

  if (runs == 0 && callgrind_flavour.empty()) {
    std::printf("%s\n%zu registrations recorded\n",
                workload.comments.empty() ? "(no header)" : workload.comments.front().c_str(), workload.rows.size());
  }
  bool ok = true;
  bool flavour_found = false;
  dispatch::AllLayouts::forEach([&]<class L>() {
    if (!callgrind_flavour.empty()) {
      if (L::kName != callgrind_flavour) return;
      flavour_found = true;
      instrumented<L>(translation);
    } else if (runs > 0) {
      ok &= measure<L>(workload, translation, runs);
    } else {
      ok &= report<L>(translation, check_model);
    }
  });
  if (!callgrind_flavour.empty() && !flavour_found) {
    std::fprintf(stderr, "workload_replay: no flavour '%s' in this build\n", callgrind_flavour.c_str());
    return 2;
  }
  return ok ? 0 : 1;
}
