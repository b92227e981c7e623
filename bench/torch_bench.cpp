// Optional comparison with PyTorch's own dispatcher (issue 9 item 3). Built only with
// -DDISPATCH_BENCH_TORCH=ON and Debian's libtorch-dev (PyTorch 1.13.1); never in CI.
//
// The same environment as bench_env.h, on c10::Dispatcher: `bench::unary(Tensor self) -> int`
// with one CPU kernel (TORCH_LIBRARY_IMPL(bench, CPU, m)), a real CPU tensor from at::empty({1})
// (requires_grad false; key set {CPU, ADInplaceOrView, AutogradCPU, AutocastCPU}, printed by
// `dispatch_torch_bench keyset`), and libtorch's own start-up fallbacks (Autograd*,
// ADInplaceOrView, AutocastCPU fall through). The kernel body is the same for the dispatched
// kernel and the direct floor, which is called through a function pointer read from a volatile.
//
//   dispatch_torch_bench [Google Benchmark flags]   ns/op (BM_Torch_*)
//   dispatch_torch_bench list                       the callgrind case names
//   dispatch_torch_bench keyset                     the tensor's key set and the library version
//   dispatch_torch_bench <case> <N>                 N operations of <case> between
//                                                   CALLGRIND_START/STOP_INSTRUMENTATION
// bench/run.sh runs <case> for N and 2N under callgrind and divides the difference by N, as for
// dispatch_callgrind_driver.
//
// The same file is also built with -DPYTORCH_DISABLE_PER_OP_PROFILING as
// dispatch_torch_bench_noprof (cases torch_noprof_*, BM_TorchNoProf_*): c10::Dispatcher::call is
// inline in the headers, so that macro removes the RecordFunction check
// (at::getStepCallbacksUnlessEmpty) from the call path, as PyTorch's mobile builds do; the rest of
// the dispatcher is libtorch's.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <benchmark/benchmark.h>
#include <c10/core/DispatchKeySet.h>
#include <torch/library.h>
#include <torch/version.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "callgrind_markers.h"

#if defined(PYTORCH_DISABLE_PER_OP_PROFILING)
#define CASE_PREFIX "torch_noprof_"
#define BM_NAME(x) BM_TorchNoProf_##x
#else
#define CASE_PREFIX "torch_"
#define BM_NAME(x) BM_Torch_##x
#endif

namespace {

using Sig = int64_t(const at::Tensor&);

// The kernel body (dispatched kernel and direct floor): a load from the Tensor object and two
// ALU operations, like bench_env.h's `t.id() + 1` (the TensorImpl pointer is aligned, so the
// result is 42; the compiler cannot know that).
inline int64_t kernelBody(const at::Tensor& t) noexcept {
  return static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(t.unsafeGetTensorImpl()) & 1u) + 42;
}

__attribute__((noinline)) int64_t directKernel(const at::Tensor& t) { return kernelBody(t); }
int64_t (*volatile direct_kernel_ptr)(const at::Tensor&) = &directKernel;

int64_t cpuKernel(const at::Tensor& t) { return kernelBody(t); }

const c10::TypedOperatorHandle<Sig>* chain_handle = nullptr;

int64_t autogradChain(c10::DispatchKeySet ks, const at::Tensor& t) {
  return chain_handle->redispatch(
      ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::AutogradCPU), t);
}
int64_t inplaceChain(c10::DispatchKeySet ks, const at::Tensor& t) {
  return chain_handle->redispatch(
      ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::ADInplaceOrView),
      t);
}

template <class T>
inline __attribute__((always_inline)) void keep(T& value) {
  asm volatile("" : "+r,m"(value) : : "memory");
}

}  // namespace

TORCH_LIBRARY(bench, m) {
  m.def("unary(Tensor self) -> int");
  m.def("chain(Tensor self) -> int");
}
TORCH_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("unary", &cpuKernel);
  m.impl("chain", &cpuKernel);
}
TORCH_LIBRARY_IMPL(bench, AutogradCPU, m) { m.impl("chain", &autogradChain); }
TORCH_LIBRARY_IMPL(bench, ADInplaceOrView, m) { m.impl("chain", &inplaceChain); }

namespace {

struct TorchEnv {
  at::Tensor t = at::empty({1});
  c10::TypedOperatorHandle<Sig> unary =
      c10::Dispatcher::singleton().findSchemaOrThrow("bench::unary", "").typed<Sig>();
  c10::TypedOperatorHandle<Sig> chain =
      c10::Dispatcher::singleton().findSchemaOrThrow("bench::chain", "").typed<Sig>();

  TorchEnv() {
    chain_handle = &chain;
    if (t.requires_grad()) throw std::runtime_error("torch bench: tensor requires grad");
    // Sanity: every path reaches the CPU kernel.
    if (unary.call(t) != 42 || chain.call(t) != 42 || direct() != 42 || callBoxed() != 42)
      throw std::runtime_error("torch bench: bad setup");
  }

  int64_t direct() const {
    auto fp = direct_kernel_ptr;
    return fp(t);
  }
  int64_t callUnboxed() const { return unary.call(t); }
  int64_t callUnboxedWithGuard() const {
    at::AutoDispatchBelowADInplaceOrView guard;  // what autograd kernels do per call
    return unary.call(t);
  }
  int64_t callChain() const { return chain.call(t); }
  int64_t callBoxed() const {
    torch::jit::Stack stack{c10::IValue(t)};
    unary.callBoxed(&stack);
    return stack.back().toInt();
  }
};

TorchEnv& env() {
  static TorchEnv e;
  return e;
}

#define TORCH_BM(NAME, METHOD)                   \
  void NAME(benchmark::State& state) {           \
    const auto& e = env();                       \
    for (auto _ : state) {                       \
      auto r = e.METHOD();                       \
      benchmark::DoNotOptimize(r);               \
    }                                            \
  }                                              \
  BENCHMARK(NAME)

TORCH_BM(BM_NAME(Direct), direct);
TORCH_BM(BM_NAME(Unboxed), callUnboxed);
TORCH_BM(BM_NAME(UnboxedWithGuard), callUnboxedWithGuard);
TORCH_BM(BM_NAME(Chain3), callChain);
TORCH_BM(BM_NAME(Boxed), callBoxed);

template <class F>
void loop(long n, F&& f) {
  f();  // warm-up outside the measured region (TLS, lazy binding)
  BENCH_START();
  for (long i = 0; i < n; ++i) f();
  BENCH_STOP();
}

// One lambda per case (as callgrind_driver.cpp): a pointer to member function in the loop would
// add its own dispatch instructions to every count.
#define TORCH_CASE(NAME, METHOD)                                      \
  {                                                                   \
    CASE_PREFIX NAME, [](long n) {                                    \
      const auto& e = env();                                          \
      loop(n, [&] { auto r = e.METHOD(); keep(r); });                 \
    }                                                                 \
  }

std::vector<std::pair<std::string, std::function<void(long)>>> cases() {
  return {
      TORCH_CASE("call_direct_fnptr", direct),
      TORCH_CASE("call_unboxed", callUnboxed),
      TORCH_CASE("call_unboxed_guard", callUnboxedWithGuard),
      TORCH_CASE("call_chain3", callChain),
      TORCH_CASE("call_boxed", callBoxed),
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] != '-') {
    const std::string what = argv[1];
    if (what == "list") {
      for (const auto& c : cases()) std::printf("%s\n", c.first.c_str());
      return 0;
    }
    if (what == "keyset") {
      std::printf("torch %s\n", TORCH_VERSION);
      std::printf("tensor key set %s\n", c10::toString(env().t.key_set()).c_str());
      return 0;
    }
    const long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 100000;
    for (const auto& c : cases()) {
      if (c.first == what) {
        c.second(n);
        return 0;
      }
    }
    std::fprintf(stderr, "unknown case '%s' (try: list)\n", what.c_str());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
