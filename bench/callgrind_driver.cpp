// Fixed-iteration driver for instruction counts under callgrind (issue bench/ item 2):
//   valgrind --tool=callgrind --instr-atstart=no dispatch_callgrind_driver <case> <N>
// runs N operations of <case> between CALLGRIND_START/STOP_INSTRUMENTATION. bench/run.sh runs
// N and 2N and divides the difference by N, which cancels any fixed cost. Also:
//   dispatch_callgrind_driver list     the case names
//   dispatch_callgrind_driver memory   bytes per operator entry and of the fallback table

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_env.h"

#include "callgrind_markers.h"

namespace {

using dispatch::FullLayout;
using dispatch::MobileLayout;

template <class F>
void loop(long n, F&& f) {
  f();  // warm-up outside the measured region (TLS, lazy binding)
  BENCH_START();
  for (long i = 0; i < n; ++i) f();
  BENCH_STOP();
}

template <class L>
bench::CallEnv<L>& callEnv() {
  static bench::CallEnv<L> env;
  return env;
}

template <class L>
void addCallCases(std::vector<std::pair<std::string, std::function<void(long)>>>& cases,
                  const std::string& flavour) {
  cases.emplace_back("call_unboxed/" + flavour, [](long n) {
    const auto& env = callEnv<L>();
    loop(n, [&] { auto r = env.callUnboxed(); bench::keep(r); });
  });
  cases.emplace_back("call_unboxed_guard/" + flavour, [](long n) {
    const auto& env = callEnv<L>();
    loop(n, [&] { auto r = env.callUnboxedWithGuard(); bench::keep(r); });
  });
  cases.emplace_back("call_chain3/" + flavour, [](long n) {
    const auto& env = callEnv<L>();
    loop(n, [&] { auto r = env.callChain(); bench::keep(r); });
  });
  cases.emplace_back("call_boxed/" + flavour, [](long n) {
    const auto& env = callEnv<L>();
    loop(n, [&] { auto r = env.callBoxed(); bench::keep(r); });
  });
  cases.emplace_back("keyset_table_index/" + flavour, [](long n) {
    dispatch::DispatchKeySet ks =
        dispatch::tensorKeySet(dispatch::TensorKind::Dense, dispatch::BackendComponent::CPUBit);
    loop(n, [&] { bench::keep(ks); int i = L::indexOf(ks); bench::keep(i); });
  });
  // The typed call with the diagnostics hooks compiled in (DISPATCH_DIAGNOSTICS=1 builds only).
  if constexpr (dispatch::kDiagnosticsCompiledIn) {
    for (auto mode : {bench::HookMode::Idle, bench::HookMode::Recorder, bench::HookMode::Trace,
                      bench::HookMode::Observer}) {
      cases.emplace_back(std::string("hooks_") + bench::hookModeName(mode) + "/" + flavour,
                         [mode](long n) {
                           const auto& env = callEnv<L>();
                           bench::HookScope hooks(mode);
                           loop(n, [&] { auto r = env.callUnboxed(); bench::keep(r); });
                         });
    }
  }
  cases.emplace_back("reg_fallback_10000ops/" + flavour, [](long n) {
    static bench::RegEnv<L> env(10000);
    loop(n, [&] { auto h = env.registerFallback(); });
  });
  cases.emplace_back("reg_impl_dereg_10000ops/" + flavour, [](long n) {
    static bench::RegEnv<L> env(10000);
    loop(n, [&] { env.implAndDeregister(); });
  });
}

std::vector<std::pair<std::string, std::function<void(long)>>> allCases() {
  std::vector<std::pair<std::string, std::function<void(long)>>> cases;
  cases.emplace_back("call_direct_fnptr", [](long n) {
    const auto& env = callEnv<FullLayout>();
    loop(n, [&] { auto r = env.direct(); bench::keep(r); });
  });
  addCallCases<FullLayout>(cases, "full");
  addCallCases<MobileLayout>(cases, "mobile");
  cases.emplace_back("keyset_highest_priority_type_id", [](long n) {
    dispatch::DispatchKeySet ks =
        dispatch::tensorKeySet(dispatch::TensorKind::Dense, dispatch::BackendComponent::CPUBit);
    loop(n, [&] { bench::keep(ks); auto k = ks.highestPriorityTypeId(); bench::keep(k); });
  });
  cases.emplace_back("keyset_iterate_full_105_keys", [](long n) {
    dispatch::DispatchKeySet ks(dispatch::DispatchKeySet::FULL);
    loop(n, [&] {
      bench::keep(ks);
      uint32_t sum = 0;
      for (dispatch::DispatchKey k : ks) sum += dispatch::toUnderlying(k);
      bench::keep(sum);
    });
  });
  return cases;
}

template <class L>
void printMemory(const char* flavour) {
  const auto& env = callEnv<L>();
  std::printf("%s sizeof_entry %zu\n", flavour, sizeof(dispatch::BasicOperatorEntry<L>));
  std::printf("%s entry_footprint %zu\n", flavour, env.unary->entry().memoryFootprint());
  std::printf("%s fallback_table %zu\n", flavour,
              dispatch::BasicDispatcher<L>::fallbackTableBytes());
}

}  // namespace

int main(int argc, char** argv) {
  const auto cases = allCases();
  const std::string what = argc > 1 ? argv[1] : "list";
  if (what == "list") {
    for (const auto& c : cases) std::printf("%s\n", c.first.c_str());
    return 0;
  }
  if (what == "memory") {
    dispatch::DeclaredLayouts::forEach([]<class L>() { printMemory<L>(L::kName.data()); });
    return 0;
  }
  const long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 100000;
  for (const auto& c : cases) {
    if (c.first == what) {
      c.second(n);
      return 0;
    }
  }
  std::fprintf(stderr, "unknown case '%s' (try: list)\n", what.c_str());
  return 2;
}
