// Google Benchmark suite for the dispatcher (issue bench/ item 1). Run with bench/run.sh for
// the table; every call case is also reported as a ratio to the direct function-pointer call
// measured in the same run (counter "x_direct", filled in by run.sh from the JSON).

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "bench_env.h"

namespace {

using dispatch::FullLayout;
using dispatch::MobileLayout;

template <class L>
bench::CallEnv<L>& callEnv() {
  static bench::CallEnv<L> env;
  return env;
}

template <class L>
bench::RegEnv<L>& regEnv(int n) {
  static std::map<int, std::unique_ptr<bench::RegEnv<L>>> envs;
  auto& slot = envs[n];
  if (!slot) slot = std::make_unique<bench::RegEnv<L>>(n);
  return *slot;
}

// --- call path ---

void BM_Call_Direct(benchmark::State& state) {
  const auto& env = callEnv<FullLayout>();
  for (auto _ : state) {
    auto r = env.direct();
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Call_Direct);

template <class L>
void BM_Call_Unboxed(benchmark::State& state) {
  const auto& env = callEnv<L>();
  for (auto _ : state) {
    auto r = env.callUnboxed();
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_TEMPLATE(BM_Call_Unboxed, FullLayout)->Name("BM_Call_Unboxed/full");
BENCHMARK_TEMPLATE(BM_Call_Unboxed, MobileLayout)->Name("BM_Call_Unboxed/mobile");

template <class L>
void BM_Call_UnboxedWithGuard(benchmark::State& state) {
  const auto& env = callEnv<L>();
  for (auto _ : state) {
    auto r = env.callUnboxedWithGuard();
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_TEMPLATE(BM_Call_UnboxedWithGuard, FullLayout)->Name("BM_Call_UnboxedWithGuard/full");
BENCHMARK_TEMPLATE(BM_Call_UnboxedWithGuard, MobileLayout)->Name("BM_Call_UnboxedWithGuard/mobile");

template <class L>
void BM_Call_Chain3(benchmark::State& state) {
  const auto& env = callEnv<L>();
  for (auto _ : state) {
    auto r = env.callChain();
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_TEMPLATE(BM_Call_Chain3, FullLayout)->Name("BM_Call_Chain3/full");
BENCHMARK_TEMPLATE(BM_Call_Chain3, MobileLayout)->Name("BM_Call_Chain3/mobile");

template <class L>
void BM_Call_Boxed(benchmark::State& state) {
  const auto& env = callEnv<L>();
  for (auto _ : state) {
    auto r = env.callBoxed();
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_TEMPLATE(BM_Call_Boxed, FullLayout)->Name("BM_Call_Boxed/full");
BENCHMARK_TEMPLATE(BM_Call_Boxed, MobileLayout)->Name("BM_Call_Boxed/mobile");

// The typed call with the diagnostics hooks compiled in (DISPATCH_DIAGNOSTICS=1 builds only):
// BM_Hooks/<mode>/<flavour>, mode = idle, recorder, trace, observer.
template <class L>
void BM_Hooks(benchmark::State& state, bench::HookMode mode) {
  const auto& env = callEnv<L>();
  bench::HookScope hooks(mode);
  for (auto _ : state) {
    auto r = env.callUnboxed();
    benchmark::DoNotOptimize(r);
  }
}
[[maybe_unused]] const bool hooks_registered = [] {
  if (!dispatch::kDiagnosticsCompiledIn) return false;
  for (auto mode : {bench::HookMode::Idle, bench::HookMode::Recorder, bench::HookMode::Trace,
                    bench::HookMode::Observer}) {
    const std::string name = std::string("BM_Hooks/") + bench::hookModeName(mode);
    benchmark::RegisterBenchmark((name + "/full").c_str(), BM_Hooks<FullLayout>, mode);
    benchmark::RegisterBenchmark((name + "/mobile").c_str(), BM_Hooks<MobileLayout>, mode);
  }
  return true;
}();

// --- key-set operations ---

const dispatch::DispatchKeySet kCpuTensorKeys =
    dispatch::tensorKeySet(dispatch::TensorKind::Dense, dispatch::BackendComponent::CPUBit);

void BM_KeySet_HighestPriorityTypeId(benchmark::State& state) {
  dispatch::DispatchKeySet ks = kCpuTensorKeys;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ks);
    auto k = ks.highestPriorityTypeId();
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_KeySet_HighestPriorityTypeId);

template <class L>
void BM_KeySet_TableIndex(benchmark::State& state) {
  dispatch::DispatchKeySet ks = kCpuTensorKeys;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ks);
    int i = L::indexOf(ks);
    benchmark::DoNotOptimize(i);
  }
}
BENCHMARK_TEMPLATE(BM_KeySet_TableIndex, FullLayout)->Name("BM_KeySet_TableIndex/full");
BENCHMARK_TEMPLATE(BM_KeySet_TableIndex, MobileLayout)->Name("BM_KeySet_TableIndex/mobile");

// Iterates FULL: all 105 runtime keys. Reported per set; items/s is keys/s.
void BM_KeySet_IterateFull(benchmark::State& state) {
  dispatch::DispatchKeySet ks(dispatch::DispatchKeySet::FULL);
  int64_t keys = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ks);
    uint32_t sum = 0;
    for (dispatch::DispatchKey k : ks) {
      sum += static_cast<uint32_t>(dispatch::toUnderlying(k));
      ++keys;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(keys);
}
BENCHMARK(BM_KeySet_IterateFull);

// --- registration ---

// One impl (CPU kernel for op0) and its deregistration, with N operators registered.
template <class L>
void BM_Reg_ImplDeregister(benchmark::State& state) {
  auto& env = regEnv<L>(static_cast<int>(state.range(0)));
  for (auto _ : state) env.implAndDeregister();
}
BENCHMARK_TEMPLATE(BM_Reg_ImplDeregister, FullLayout)
    ->Name("BM_Reg_ImplDeregister/full")->Arg(1)->Arg(100)->Arg(10000);
BENCHMARK_TEMPLATE(BM_Reg_ImplDeregister, MobileLayout)
    ->Name("BM_Reg_ImplDeregister/mobile")->Arg(1)->Arg(100)->Arg(10000);

// One backend fallback registration (SparseCPU, a slot in both flavours) with N operators:
// it updates that slot of every operator. The deregistration is timed separately.
template <class L>
void BM_Reg_Fallback(benchmark::State& state) {
  auto& env = regEnv<L>(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto handle = env.registerFallback();
    state.PauseTiming();
    handle = dispatch::RegistrationHandle();
    state.ResumeTiming();
  }
}
BENCHMARK_TEMPLATE(BM_Reg_Fallback, FullLayout)
    ->Name("BM_Reg_Fallback/full")->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_Reg_Fallback, MobileLayout)
    ->Name("BM_Reg_Fallback/mobile")->Arg(10000)->Unit(benchmark::kMicrosecond);

template <class L>
void BM_Reg_FallbackDeregister(benchmark::State& state) {
  auto& env = regEnv<L>(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    auto handle = env.registerFallback();
    state.ResumeTiming();
    handle = dispatch::RegistrationHandle();
  }
}
BENCHMARK_TEMPLATE(BM_Reg_FallbackDeregister, FullLayout)
    ->Name("BM_Reg_FallbackDeregister/full")->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_Reg_FallbackDeregister, MobileLayout)
    ->Name("BM_Reg_FallbackDeregister/mobile")->Arg(10000)->Unit(benchmark::kMicrosecond);

// --- memory (reported as counters; one iteration) ---

template <class L>
void BM_Memory(benchmark::State& state) {
  auto& env = callEnv<L>();
  for (auto _ : state) benchmark::DoNotOptimize(env);
  state.counters["sizeof_entry"] = static_cast<double>(sizeof(dispatch::BasicOperatorEntry<L>));
  state.counters["entry_footprint"] = static_cast<double>(env.unary->entry().memoryFootprint());
  state.counters["fallback_table"] =
      static_cast<double>(dispatch::BasicDispatcher<L>::fallbackTableBytes());
}
// One row per declared flavour (cmake/flavours.list).
const bool kMemoryRowsRegistered = [] {
  dispatch::DeclaredLayouts::forEach([]<class L>() {
    benchmark::RegisterBenchmark(("BM_Memory/" + std::string(L::kName)).c_str(), BM_Memory<L>)
        ->Iterations(1);
  });
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
