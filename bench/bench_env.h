#pragma once
// The realistic environment every benchmark case runs in, shared by the Google Benchmark suite
// (dispatch_bench.cpp) and the fixed-iteration callgrind driver (callgrind_driver.cpp):
// PyTorch's start-up fallbacks (ADInplaceOrView, BackendSelect, Autograd* fall through) and a
// dense CPU tensor, whose key set is {CPU, ADInplaceOrView, AutogradCPU, AutocastCPU}.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dispatch/diagnostics.h"
#include "dispatch/dispatch.h"
#include "dispatch/startup_fallbacks.h"

namespace bench {

using Sig = int64_t(const dispatch::Tensor&);

// The kernel body: the same for the dispatched kernels and the direct floor.
inline int64_t kernelBody(const dispatch::Tensor& t) noexcept { return t.id() + 1; }

// Defined out of line (bench_kernels.cpp); called through direct_kernel_ptr.
int64_t directKernel(const dispatch::Tensor& t);
extern int64_t (*volatile direct_kernel_ptr)(const dispatch::Tensor&);

// Forces a value into a register or memory, and is a compiler memory barrier (as
// benchmark::DoNotOptimize), so loops cannot be hoisted or folded.
template <class T>
inline __attribute__((always_inline)) void keep(T& value) {
  asm volatile("" : "+r,m"(value) : : "memory");
}
template <class T>
inline __attribute__((always_inline)) void use(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// The handle the chain kernels redispatch through (one per flavour).
template <class L>
inline const dispatch::BasicTypedOperatorHandle<L, Sig>* chain_handle = nullptr;

template <class L>
struct CallEnv {
  using Library = dispatch::BasicLibrary<L>;
  using Kind = typename Library::Kind;
  using DK = dispatch::DispatchKey;
  using DKS = dispatch::DispatchKeySet;

  dispatch::BasicDispatcher<L> d;
  std::vector<Library> startup;
  std::optional<Library> def, cpu, autograd, inplace;
  std::optional<dispatch::BasicTypedOperatorHandle<L, Sig>> unary;  // CPU kernel only
  std::optional<dispatch::BasicTypedOperatorHandle<L, Sig>> chain;  // AutogradCPU -> ADInplaceOrView -> CPU
  dispatch::Tensor t{dispatch::tensorKeySet(dispatch::TensorKind::Dense,
                                            dispatch::BackendComponent::CPUBit),
                     41};

  CallEnv() : startup(dispatch::registerStartupFallbacks(d)) {
    def.emplace(Kind::DEF, "bench", std::nullopt, d);
    def->def("unary(Tensor self) -> int");
    def->def("chain(Tensor self) -> int");
    cpu.emplace(Kind::IMPL, "bench", DK::CPU, d);
    cpu->impl("unary", [](const dispatch::Tensor& x) -> int64_t { return kernelBody(x); });
    cpu->impl("chain", [](const dispatch::Tensor& x) -> int64_t { return kernelBody(x); });
    autograd.emplace(Kind::IMPL, "bench", DK::AutogradCPU, d);
    autograd->impl("chain", [](DKS ks, const dispatch::Tensor& x) -> int64_t {
      return chain_handle<L>->redispatch(ks & DKS(DKS::FULL_AFTER, DK::AutogradCPU), x);
    });
    inplace.emplace(Kind::IMPL, "bench", DK::ADInplaceOrView, d);
    inplace->impl("chain", [](DKS ks, const dispatch::Tensor& x) -> int64_t {
      return chain_handle<L>->redispatch(ks & DKS(DKS::FULL_AFTER, DK::ADInplaceOrView), x);
    });
    unary.emplace(d.findSchemaOrThrow("bench::unary").template typed<Sig>());
    chain.emplace(d.findSchemaOrThrow("bench::chain").template typed<Sig>());
    chain_handle<L> = &*chain;
    // Sanity: every path reaches the CPU kernel.
    if (unary->call(t) != 42 || chain->call(t) != 42) throw std::runtime_error("bench: bad setup");
  }
  ~CallEnv() { chain_handle<L> = nullptr; }
  CallEnv(const CallEnv&) = delete;
  CallEnv& operator=(const CallEnv&) = delete;

  // --- one operation of each call-path case ---
  int64_t direct() const {
    auto fp = direct_kernel_ptr;
    return fp(t);
  }
  int64_t callUnboxed() const { return unary->call(t); }
  int64_t callUnboxedWithGuard() const {
    dispatch::AutoDispatchBelowADInplaceOrView guard;  // what autograd kernels do per call
    return unary->call(t);
  }
  int64_t callChain() const { return chain->call(t); }
  int64_t callBoxed() const {
    dispatch::Stack stack{dispatch::Value(t)};
    unary->callBoxed(stack);
    return stack.back().toInt();
  }
};

// The diagnostics hooks (diagnostics.h) of one benchmark case: idle (compiled in, all off) or
// one of them on. Only for builds with DISPATCH_DIAGNOSTICS=1; restores "all off" at the end.
enum class HookMode { Idle, Recorder, Trace, Observer };
inline const char* hookModeName(HookMode mode) {
  switch (mode) {
    case HookMode::Idle: return "idle";
    case HookMode::Recorder: return "recorder";
    case HookMode::Trace: return "trace";
    case HookMode::Observer: return "observer";
  }
  return "?";
}

class HookScope {
 public:
  explicit HookScope(HookMode mode) {
    dispatch::flight_recorder::setEnabled(mode == HookMode::Recorder);
    if (mode == HookMode::Trace) dispatch::setDispatchTrace(true, null_);
    if (mode == HookMode::Observer) {
      observer_ = dispatch::addCallObserver([](const dispatch::CallInfo& info) { use(info.slot); },
                                            [](const dispatch::CallInfo& info) { use(info.slot); });
    }
  }
  ~HookScope() {
    dispatch::setDispatchTrace(false);
    dispatch::flight_recorder::setEnabled(false);
    if (null_ != nullptr) std::fclose(null_);
  }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

 private:
  std::FILE* null_ = std::fopen("/dev/null", "w");  // the trace's output: formatting is the cost
  dispatch::RegistrationHandle observer_;
};

// An environment with n operators defined (start-up fallbacks registered), for registration.
template <class L>
struct RegEnv {
  using Library = dispatch::BasicLibrary<L>;
  using Kind = typename Library::Kind;

  dispatch::BasicDispatcher<L> d;
  std::vector<Library> startup;
  std::optional<Library> def;
  dispatch::BasicCppFunction<L> kernel{
      [](const dispatch::Tensor& x) -> int64_t { return kernelBody(x); }};
  dispatch::BasicKernelFunction<L> fallback =
      dispatch::BasicKernelFunction<L>::template makeFromBoxedFunction<
          &dispatch::detail::passThroughFallback<L>>();

  explicit RegEnv(int n) : startup(dispatch::registerStartupFallbacks(d)) {
    def.emplace(Kind::DEF, "bench", std::nullopt, d);
    for (int i = 0; i < n; ++i) def->def("op" + std::to_string(i) + "(Tensor self) -> int");
  }

  // One impl of op0 for CPU, then its deregistration.
  void implAndDeregister() {
    auto handle = d.registerImpl(dispatch::OperatorName{"bench::op0", ""},
                                 dispatch::DispatchKey::CPU, kernel.kernel_, kernel.cpp_signature_,
                                 kernel.inferred_schema_, "bench impl");
    // handle goes out of scope here: the deregistration.
  }
  dispatch::RegistrationHandle registerFallback() {
    return d.registerFallback(dispatch::DispatchKey::SparseCPU, fallback, "bench fallback");
  }
};

}  // namespace bench
