// Dispatcher calls: the TLS and its guards (docs/semantics.md §5.5), redispatch (5.6) and the boxed
// entry points.

#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_fixture.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

// --- 5.5 TLS -------------------------------------------------------------------------------------

TEST(TlsTest, DefaultsOfAFreshThread) {
  uint64_t included = 1, excluded = 1;
  std::thread([&] {
    const auto tls = tls_local_dispatch_key_set();
    included = tls.included.raw_repr();
    excluded = tls.excluded.raw_repr();
  }).join();
  EXPECT_EQ(included, 0x804000000u) << "{BackendSelect, ADInplaceOrView}";
  EXPECT_EQ(excluded, 0x70000000000u) << "{AutocastCPU, AutocastXPU, AutocastCUDA}";
  EXPECT_EQ(tls_local_dispatch_key_set().included.raw_repr(), 0x804000000u);
  EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x70000000000u);
}

TEST(TlsTest, GuardsEditAndRestoreTheSets) {
  {
    IncludeDispatchKeyGuard include(DK::Tracer);
    EXPECT_EQ(tls_local_dispatch_key_set().included.raw_repr(), 0x804000000u | (1ull << 39));
    {
      AutoDispatchBelowAutograd below;
      EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x77000000000u);
      {
        AutoDispatchBelowADInplaceOrView below_inplace;
        EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x77800000000u);
      }
      EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x77000000000u);
    }
    EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x70000000000u);
  }
  EXPECT_EQ(tls_local_dispatch_key_set().included.raw_repr(), 0x804000000u);
  EXPECT_EQ(tls_local_dispatch_key_set().excluded.raw_repr(), 0x70000000000u);
}

TYPED_TEST(DispatcherTest, IncludeGuardAddsAKeyToEveryCall) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", intFunction<L>(1, "cpu"));
  auto sparse = this->implBlock(DK::SparseCPU);
  sparse.impl("op", intFunction<L>(2, "sparse"));
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
  {
    // Sparse's functionality bit meets the tensor's CPU bit: SparseCPU outranks CPU (and a
    // flavour without a SparseCPU slot refuses the call).
    IncludeDispatchKeyGuard include(DK::SparseCPU);
    if (hasSlot<L>("SparseCPU")) {
      EXPECT_EQ(this->typedOp().call(cpuTensor()), 2);
    } else {
      EXPECT_THROW(this->typedOp().call(cpuTensor()), NotImplementedError);
    }
  }
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
}

TYPED_TEST(DispatcherTest, ExcludeGuardAndAutoDispatchBelowAutograd) {
  using L = TypeParam;
  auto fallthroughs = usualFallthroughs(this->d);
  auto ag = this->implBlock(DK::Autograd);
  ag.impl("op", intFunction<L>(5, "ag"));
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", intFunction<L>(1, "cpu"));
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 5);
  {
    ExcludeDispatchKeyGuard exclude(DK::AutogradCPU);
    EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
  }
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 5);
  {
    AutoDispatchBelowAutograd below;
    EXPECT_EQ(this->typedOp().call(cpuTensor()), 1);
    // HIP tensors use AutogradOther: excluded as well.
    auto hip = this->implBlock(DK::HIP);
    hip.impl("op", intFunction<L>(3, "hip"));
    if (hasSlot<L>("HIP")) {
      EXPECT_EQ(this->typedOp().call(tensor(TensorKind::Dense, BC::HIPBit)), 3);
    }
  }
  if (hasSlot<L>("HIP")) {
    EXPECT_EQ(this->typedOp().call(tensor(TensorKind::Dense, BC::HIPBit)), 5);
  }
  EXPECT_EQ(this->typedOp().call(cpuTensor()), 5);
}

TEST(FullTlsTest, AutocastIsExcludedByDefault) {
  full::Dispatcher d;
  full::Library defs(full::Library::Kind::DEF, "test", std::nullopt, d);
  defs.def("op(Tensor self) -> int");
  auto fallthroughs = usualFallthroughs(d);
  full::Library autocast(full::Library::Kind::IMPL, "test", DK::AutocastCPU, d);
  autocast.impl("op", intFunction<FullLayout>(30, "autocast"));
  full::Library cpu(full::Library::Kind::IMPL, "test", DK::CPU, d);
  cpu.impl("op", intFunction<FullLayout>(1, "cpu"));
  full::Library tracer(full::Library::Kind::IMPL, "test", DK::Tracer, d);
  tracer.impl("op", intFunction<FullLayout>(26, "tracer"));
  auto typed = d.findSchemaOrThrow("test::op").typed<IntSig>();
  EXPECT_EQ(typed.call(cpuTensor()), 1);
  {
    LocalDispatchKeySetGuard restore;
    set_tls_local_dispatch_key_set({default_included_set, DispatchKeySet()});
    EXPECT_EQ(typed.call(cpuTensor()), 30) << "AutocastCPU once it is not excluded";
    // AutocastCPU is on CPU tensors only.
    EXPECT_THROW(typed.call(tensor(TensorKind::Dense, BC::MetaBit)), NotImplementedError);
  }
  EXPECT_EQ(typed.call(cpuTensor()), 1);
  {
    IncludeDispatchKeyGuard include(DK::Tracer);
    EXPECT_EQ(typed.call(cpuTensor()), 26);
  }
  EXPECT_EQ(typed.call(cpuTensor()), 1);
}

// --- 5.6 redispatch ------------------------------------------------------------------------------

TYPED_TEST(DispatcherTest, RedispatchChainOfThreeTypedKernels) {
  using L = TypeParam;
  auto backend_select = this->fallbackBlock(DK::BackendSelect);
  backend_select.fallback(fallthrough<L>("bs_ft"));
  std::vector<std::pair<std::string, uint64_t>> trace;
  std::optional<typename TestFixture::template Typed<IntSig>> handle;
  auto ag = this->implBlock(DK::AutogradCPU);
  ag.impl("op", [&](DispatchKeySet ks, const Tensor& t) -> int64_t {
    trace.emplace_back("autograd", ks.raw_repr());
    return handle->redispatch(ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::AutogradCPU), t) +
           100;
  });
  auto inplace = this->implBlock(DK::ADInplaceOrView);
  inplace.impl("op", [&](DispatchKeySet ks, const Tensor& t) -> int64_t {
    trace.emplace_back("adinplace", ks.raw_repr());
    return handle->redispatch(ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::ADInplaceOrView),
                              t) +
           10;
  });
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [&](DispatchKeySet ks, const Tensor& t) -> int64_t {
    trace.emplace_back("cpu", ks.raw_repr());
    return t.id();
  });
  handle = this->typedOp();
  EXPECT_EQ(handle->call(cpuTensor(1)), 111);
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"autograd", 0x2800004001}, {"adinplace", 0x800004001}, {"cpu", 0x4001}};
  EXPECT_EQ(trace, expected);

  // The boxed entry point runs the same chain (typed kernels called boxed).
  trace.clear();
  Stack stack{Value(cpuTensor(2))};
  this->op().callBoxed(stack);
  EXPECT_EQ(stack, Stack{Value(int64_t{112})});
  EXPECT_EQ(trace, expected);

  // redispatch looks the set up as given: straight to ADInplaceOrView, then CPU.
  trace.clear();
  EXPECT_EQ(handle->redispatch(DispatchKeySet{DK::CPU, DK::ADInplaceOrView}, cpuTensor(3)), 13);
  EXPECT_EQ(trace.size(), 2u);
}

TYPED_TEST(DispatcherTest, BoxedKernelAndBoxedFallbackRedispatch) {
  using L = TypeParam;
  using CppFn = typename TestFixture::CppFunction;
  auto backend_select = this->fallbackBlock(DK::BackendSelect);
  backend_select.fallback(fallthrough<L>("bs_ft"));
  std::vector<std::string> trace;
  auto ag = this->implBlock(DK::AutogradCPU);
  ag.impl("op", CppFn::makeFromBoxedLambda([&](const BasicOperatorHandle<L>& op,
                                                     DispatchKeySet ks, Stack* stack) {
                  trace.push_back("autograd");
                  op.redispatchBoxed(
                      ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::AutogradCPU), stack);
                  stack->back() = Value(stack->back().toInt() + 100);
                }).withDebug("boxed_ag"));
  auto inplace = this->fallbackBlock(DK::ADInplaceOrView);
  inplace.fallback(CppFn::makeFromBoxedLambda([&](const BasicOperatorHandle<L>& op,
                                                        DispatchKeySet ks, Stack* stack) {
                     trace.push_back("adinplace:" + op.operatorNameString());
                     op.redispatchBoxed(
                         ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::ADInplaceOrView),
                         stack);
                     stack->back() = Value(stack->back().toInt() + 10);
                   }).withDebug("boxed_inplace_fb"));
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [&](const Tensor& t) -> int64_t {
    trace.push_back("cpu");
    return t.id();
  });
  EXPECT_EQ(this->typedOp().call(cpuTensor(4)), 114);
  EXPECT_EQ(trace, (std::vector<std::string>{"autograd", "adinplace:test::op", "cpu"}));
  trace.clear();
  Stack stack{Value(cpuTensor(5))};
  this->op().callBoxed(stack);
  EXPECT_EQ(stack, Stack{Value(int64_t{115})});
  EXPECT_EQ(trace, (std::vector<std::string>{"autograd", "adinplace:test::op", "cpu"}));
}

// --- boxed entry points --------------------------------------------------------------------------

TYPED_TEST(DispatcherTest, CallBoxedWithTypedKernels) {
  auto fallthroughs = usualFallthroughs(this->d);
  typename TestFixture::Library more(TestFixture::Library::Kind::FRAGMENT, "test", std::nullopt,
                                     this->d);
  more.def("sum(Tensor[] xs) -> int");
  more.def("opt(Tensor? a, Tensor b, str s) -> str");
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("add", [](const Tensor& t, int64_t x) -> int64_t { return t.id() + x; });
  cpu.impl("sum", [](const std::vector<Tensor>& xs) -> int64_t {
    int64_t total = 0;
    for (const auto& t : xs) total += t.id();
    return total;
  });
  cpu.impl("opt", [](const std::optional<Tensor>& a, const Tensor& b, const std::string& s) {
    return s + ":" + std::to_string(a ? a->id() : -1) + ":" + std::to_string(b.id());
  });
  auto quantized = this->implBlock(DK::QuantizedCPU);
  quantized.impl("sum", [](const std::vector<Tensor>&) -> int64_t { return -1; });

  Stack add{Value(cpuTensor(5)), Value(int64_t{10})};
  this->op("test::add").callBoxed(add);
  EXPECT_EQ(add, Stack{Value(int64_t{15})});
  EXPECT_EQ(this->op("test::add")
                .template typed<int64_t(const Tensor&, int64_t)>()
                .call(cpuTensor(5), 10),
            15);

  // A tensor list contributes every element's keys: Quantized outranks Dense.
  Stack sum{Value(std::vector<Tensor>{cpuTensor(1), cpuTensor(2)})};
  this->op("test::sum").callBoxed(sum);
  EXPECT_EQ(sum, Stack{Value(int64_t{3})});
  Stack mixed{Value(std::vector<Tensor>{cpuTensor(1), tensor(TensorKind::Quantized, BC::CPUBit)})};
  this->op("test::sum").callBoxed(mixed);
  EXPECT_EQ(mixed, Stack{Value(int64_t{-1})});

  // Values below the arguments stay; None for Tensor? is fine.
  Stack opt{Value(int64_t{99}), Value(), Value(cpuTensor(7)), Value(std::string("s"))};
  this->op("test::opt").callBoxed(opt);
  EXPECT_EQ(opt, (Stack{Value(int64_t{99}), Value(std::string("s:-1:7"))}));
}

TYPED_TEST(DispatcherTest, CallBoxedForDispatchKeyUsesDirectKernelsAndFallbacksOnly) {
  using L = TypeParam;
  auto cpu = this->implBlock(DK::CPU);
  cpu.impl("op", [](DispatchKeySet ks, const Tensor&) -> int64_t {
    return static_cast<int64_t>(ks.raw_repr());
  });
  auto cia = this->implBlock(DK::CompositeImplicitAutograd);
  cia.impl("op", intFunction<L>(4, "cia"));
  // The direct CPU kernel, called with the key set extracted from the stack (no fallthroughs are
  // registered here, so nothing is masked).
  Stack stack{Value(cpuTensor())};
  this->op().callBoxedForDispatchKey(DK::CPU, &stack);
  EXPECT_EQ(stack, Stack{Value(int64_t{0x2804004001})});
  // QuantizedCPU's table entry is the CIA kernel, but alias-derived entries are ignored.
  EXPECT_EQ(entryOf(this->op().dumpDispatchTable(), "QuantizedCPU"), "cia [math kernel]");
  Stack no_kernel{Value(cpuTensor())};
  EXPECT_THROW(this->op().callBoxedForDispatchKey(DK::QuantizedCPU, &no_kernel),
               NotImplementedError);
  // ... while its backend fallback is used.
  auto fb = this->fallbackBlock(DK::QuantizedCPU);
  fb.fallback(boxedIntFunction<L>(7).withDebug("q_fb"));
  Stack with_fallback{Value(cpuTensor())};
  this->op().callBoxedForDispatchKey(DK::QuantizedCPU, &with_fallback);
  EXPECT_EQ(with_fallback, Stack{Value(int64_t{7})});
}

}  // namespace
}  // namespace dispatch
