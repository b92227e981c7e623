// Calls racing registrations (docs/semantics.md §5.4; Note [Lock-free Calls] in operator_entry.h): several
// threads call an operator while others register and deregister its kernels, fallbacks and
// neighbouring operators. Every call must either return the result of a kernel that was valid at
// some point, or throw NotImplementedError (no kernel at that moment, or a fallthrough reached in
// the window between a mask update and a table update). Anything else -- another exception, a
// value no kernel returns, a crash, a sanitizer report -- fails. The TSan preset runs this file;
// the iteration counts keep it well under 5 s there.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatcher_test_support.h"

namespace dispatch {
namespace {

using namespace test_support;

constexpr int kWriterIterations = 120;
// On a loaded machine the writer stops early, after at least kMinWriterIterations, once
// kWriterBudget has passed, so the test stays well under the TSan preset's 5 s.
constexpr int kMinWriterIterations = 20;
constexpr auto kWriterBudget = std::chrono::milliseconds(1500);
constexpr int kReaders = 2;

struct Outcome {
  std::atomic<long> results{0};
  std::atomic<long> not_implemented{0};
  std::atomic<long> lookups{0};
  std::mutex mutex;
  std::vector<std::string> problems;

  void problem(std::string what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (problems.size() < 20) problems.push_back(std::move(what));
  }
};

// Kernel values: 1 CIA, 2 CPU, 3 the QuantizedCPU fallback, 4 the Autograd kernel (which
// redispatches and adds 4000 to what it gets back, so 4001 .. 4003 are valid as well).
bool validResult(int64_t r) { return (r >= 1 && r <= 3) || (r >= 4001 && r <= 4003); }

template <class L>
void runCallsRacingRegistrations() {
  using Library = BasicLibrary<L>;
  using CppFunction = BasicCppFunction<L>;
  BasicDispatcher<L> d;
  Library defs(Library::Kind::DEF, "conc", std::nullopt, d);
  defs.def("op(Tensor self) -> int");
  Library backend_select(Library::Kind::IMPL, "_", DK::BackendSelect, d);
  backend_select.fallback(fallthrough<L>("bs_ft"));
  Library adinplace(Library::Kind::IMPL, "_", DK::ADInplaceOrView, d);
  adinplace.fallback(fallthrough<L>("adinplace_ft"));

  const auto typed = d.findSchemaOrThrow("conc::op").template typed<IntSig>();
  const Tensor inputs[] = {cpuTensor(), tensor(TensorKind::Quantized, BC::CPUBit),
                           tensor(TensorKind::Sparse, BC::CPUBit)};
  Outcome outcome;
  std::atomic<bool> done{false};
  std::atomic<int> started{0};

  auto reader = [&](int seed) {
    started.fetch_add(1);
    long n = 0;
    while (!done.load(std::memory_order_acquire)) {
      const Tensor& t = inputs[(n + seed) % 3];
      try {
        int64_t r;
        if (n % 5 == 0) {
          Stack stack{Value(t)};
          typed.callBoxed(stack);
          if (stack.size() != 1 || !stack[0].isInt()) {
            outcome.problem("boxed call left a bad stack");
            ++n;
            continue;
          }
          r = stack[0].toInt();
        } else if (n % 7 == 0) {
          AutoDispatchBelowAutograd below;
          r = typed.call(t);
        } else {
          r = typed.call(t);
        }
        if (validResult(r)) {
          outcome.results.fetch_add(1);
        } else {
          outcome.problem("a call returned " + std::to_string(r));
        }
      } catch (const NotImplementedError&) {
        outcome.not_implemented.fetch_add(1);
      } catch (const std::exception& e) {
        outcome.problem(std::string("unexpected exception: ") + e.what());
      }
      if (n % 64 == 0) {
        // Lookups take the dispatcher's lock; they must work while registrations run.
        if (d.findSchema(OperatorName{"conc::op", ""}).has_value()) outcome.lookups.fetch_add(1);
        std::this_thread::yield();  // leave the writers some CPU on small machines
      }
      ++n;
    }
  };

  // The Autograd kernel: redispatches below autograd through the typed handle.
  auto autograd_kernel = [&typed](DispatchKeySet ks, const Tensor& t) -> int64_t {
    return typed.redispatch(ks & DispatchKeySet(DispatchKeySet::FULL_AFTER, DK::AutogradOther), t) +
           4000;
  };

  std::atomic<bool> writer_done{false};
  auto writer = [&] {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kWriterIterations; ++i) {
      if (i >= kMinWriterIterations && std::chrono::steady_clock::now() - start > kWriterBudget) {
        break;
      }
      std::vector<Library> libs;
      auto step = [&](int which) {
        switch (which) {
          case 0:
            libs.emplace_back(Library::Kind::IMPL, "conc", DK::CPU, d)
                .impl("op", intFunction<L>(2, "cpu"));
            break;
          case 1:
            libs.emplace_back(Library::Kind::IMPL, "_", DK::Autograd, d)
                .fallback(fallthrough<L>("autograd_ft"));
            break;
          case 2:
            libs.emplace_back(Library::Kind::IMPL, "conc", DK::CompositeImplicitAutograd, d)
                .impl("op", intFunction<L>(1, "cia"));
            break;
          case 3:
            libs.emplace_back(Library::Kind::IMPL, "_", DK::QuantizedCPU, d)
                .fallback(boxedIntFunction<L>(3).withDebug("q_fb"));
            break;
          case 4:
            libs.emplace_back(Library::Kind::IMPL, "conc", DK::Autograd, d)
                .impl("op", CppFunction(autograd_kernel).withDebug("autograd"));
            break;
          case 5:
            libs.emplace_back(Library::Kind::FRAGMENT, "conc", std::nullopt, d)
                .def("other" + std::to_string(i) + "(Tensor self) -> int");
            break;
        }
      };
      // Vary the registration order, and drop the libraries in a varied order too.
      for (int k = 0; k < 6; ++k) step((k + i) % 6);
      for (size_t k = 0; k < libs.size(); ++k) {
        libs[(k * 5 + static_cast<size_t>(i)) % libs.size()].reset();
      }
      if (i % 8 == 0) std::this_thread::yield();
    }
    writer_done.store(true);
  };

  std::vector<std::thread> threads;
  for (int r = 0; r < kReaders; ++r) threads.emplace_back(reader, r);
  while (started.load() < kReaders) std::this_thread::yield();
  std::thread registrations(writer);
  // A second writer: other operators come and go while the first one works on conc::op.
  std::thread neighbours([&] {
    for (int i = 0; i < kWriterIterations && !writer_done.load(); ++i) {
      auto h = d.registerDef(parseSchema("conc::neighbour(Tensor self) -> int"), "neighbour");
      auto k = implInt(d, "conc::neighbour", DK::CPU, "neighbour_cpu", 9);
    }
  });
  registrations.join();
  neighbours.join();
  done.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();

  EXPECT_TRUE(outcome.problems.empty()) << [&] {
    std::string all;
    for (const auto& p : outcome.problems) all += p + "\n";
    return all;
  }();
  EXPECT_GT(outcome.results.load() + outcome.not_implemented.load(), 0);
  ::testing::Test::RecordProperty("results", std::to_string(outcome.results.load()));
  ::testing::Test::RecordProperty("not_implemented",
                                  std::to_string(outcome.not_implemented.load()));
  // Quiet again: only the permanent registrations are left.
  EXPECT_NO_THROW(d.checkInvariants());
  EXPECT_EQ(d.numOperators(), 1u);
  EXPECT_EQ(d.dumpFallbacks(),
            "BackendSelect: fallthrough bs_ft\n"
            "ADInplaceOrView: fallthrough adinplace_ft\n");
  EXPECT_EQ(d.findSchemaOrThrow("conc::op").dumpDispatchTable(),
            "BackendSelect: fallthrough bs_ft [backend fallback]\n"
            "ADInplaceOrView: fallthrough adinplace_ft [backend fallback]\n");
  EXPECT_THROW(typed.call(cpuTensor()), NotImplementedError);
}

TEST(ConcurrencyTest, CallsRacingRegistrationsInEveryFlavour) {
  DeclaredLayouts::forEach([]<class L>() {
    SCOPED_TRACE(std::string(L::kName));
    runCallsRacingRegistrations<L>();
  });
}

// Many threads registering at once: the mutex serialises them, and every handle undoes exactly
// its own registration.
TEST(ConcurrencyTest, ConcurrentRegistrationsAllLand) {
  full::Dispatcher d;
  auto def = d.registerDef(parseSchema("conc::op(Tensor self) -> int"), "def");
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  const DispatchKey keys[kThreads] = {DK::CPU, DK::CUDA, DK::QuantizedCPU, DK::SparseCPU};
  std::vector<std::thread> threads;
  std::vector<std::vector<RegistrationHandle>> handles(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        handles[static_cast<size_t>(t)].push_back(
            implInt(d, "conc::op", keys[t], "k" + std::to_string(t) + "_" + std::to_string(i), i));
      }
    });
  }
  for (auto& th : threads) th.join();
  auto op = d.findSchemaOrThrow("conc::op");
  EXPECT_EQ(op.dumpDispatchTable(),
            "CPU: k0_49 [kernel]\nCUDA: k1_49 [kernel]\nQuantizedCPU: k2_49 [kernel]\n"
            "SparseCPU: k3_49 [kernel]\n");
  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto& mine = handles[static_cast<size_t>(t)];
      // Drop all but the oldest, newest first.
      while (mine.size() > 1) mine.pop_back();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(op.dumpDispatchTable(),
            "CPU: k0_0 [kernel]\nCUDA: k1_0 [kernel]\nQuantizedCPU: k2_0 [kernel]\n"
            "SparseCPU: k3_0 [kernel]\n");
  EXPECT_NO_THROW(d.checkInvariants());
}

}  // namespace
}  // namespace dispatch
