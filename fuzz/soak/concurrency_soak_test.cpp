// The concurrency soak (ctest `concurrency_soak`, label slow; the nightly runs it under the
// full-tsan preset): for DISPATCH_SOAK_SECONDS (default 60, split evenly over every flavour of the
// build, dispatch::AllLayouts: the declared ones and any drawn at configure time; at least 3 s
// each) writer threads register and drop kernels and fallbacks on one shared dispatcher while
// reader threads call its operators (docs/semantics.md §5.4: calls are lock-free, registrations
// serialise).
//
// Checked against the reference model (oracle/model/model_dispatcher.h):
//  - during the race, every call returns a value some writer's kernel for that operator returns,
//    or throws NotImplementedError; anything else is a problem;
//  - at checkpoints (every 2 s, writers paused, readers still calling) and at the end, the model
//    is rebuilt from the writers' live registrations and must agree with the dispatcher: every
//    operator's dispatch table (the printed table, tags included), the outcome of a call with
//    each test tensor, the registrations the dispatcher refused, and checkInvariants().
// Each (operator, key) stack and each fallback slot has one writer, so the live registrations
// fix the end state whatever the interleaving was. TSan reports fail the test (halt_on_error).

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/dispatch.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/model/model.h"

namespace dispatch {
namespace {

using DK = DispatchKey;
constexpr int kOps = 3;
constexpr int kReaders = 2;
constexpr size_t kMaxLive = 10;  // per writer: keeps the stacks short and drops frequent
constexpr auto kCheckpointEvery = std::chrono::seconds(2);

std::string opName(int op) { return "soak::op" + std::to_string(op); }

// A kernel's value names its operator, writer and serial number: (op+1)*10^9 + w*10^8 + n.
int64_t kernelValue(int op, int writer, int64_t n) {
  return (op + 1) * 1'000'000'000LL + writer * 100'000'000LL + n;
}
std::string kernelName(int writer, int64_t n, bool fallback) {
  return "w" + std::to_string(writer) + (fallback ? "f" : "k") + std::to_string(n);
}
// The kernel name a value decodes to; nullopt when it cannot come from a kernel of `op`.
std::optional<std::string> nameOfValue(int64_t v, int op, bool fallback_ok) {
  const int64_t op_part = v / 1'000'000'000LL - 1;
  const int writer = static_cast<int>((v / 100'000'000LL) % 10);
  const int64_t n = v % 100'000'000LL;
  const bool fallback = writer == 2;  // writer 2 owns the fallbacks (their value carries op -1+1)
  if (fallback ? (!fallback_ok || op_part != -1) : op_part != op) return std::nullopt;
  return kernelName(writer, n, fallback);
}

// What a writer owns: impls on these (operator, key) pairs, or fallbacks on these keys.
struct Ownership {
  std::vector<std::optional<DispatchKey>> impl_keys;
  std::vector<DispatchKey> fallback_keys;
};
const Ownership kOwners[] = {
    {{DK::CPU, DK::CompositeImplicitAutograd}, {}},
    {{DK::CUDA, DK::SparseCPU, DK::Autograd}, {}},
    {{}, {DK::QuantizedCPU, DK::AutogradCPU}},
};
constexpr int kWriters = 3;

// Tensors the readers call with: dense/sparse/quantized CPU, dense CUDA, with autograd keys.
const Tensor kTensors[] = {makeTensor(TensorKind::Dense, BackendComponent::CPUBit),
                           makeTensor(TensorKind::Sparse, BackendComponent::CPUBit),
                           makeTensor(TensorKind::Quantized, BackendComponent::CPUBit),
                           makeTensor(TensorKind::Dense, BackendComponent::CUDABit)};

template <class L>
struct Registration {
  std::unique_ptr<BasicLibrary<L>> library;  // live while set (a Library is not move-assignable)
  int op = -1;                             // -1: a fallback
  DispatchKey key = DK::Undefined;
  std::string name;
  bool fallthrough = false;
};

template <class L>
class Soak {
 public:
  using Library = BasicLibrary<L>;
  using CppFunction = BasicCppFunction<L>;

  using Typed = BasicTypedOperatorHandle<L, int64_t(const Tensor&)>;

  Soak() {
    for (int op = 0; op < kOps; ++op) {
      defs_.emplace_back(Library::Kind::FRAGMENT, "soak", std::nullopt, d_)
          .def("op" + std::to_string(op) + "(Tensor self) -> int");
      typed_.push_back(d_.findSchemaOrThrow(opName(op)).template typed<int64_t(const Tensor&)>());
    }
  }

  void run(std::chrono::seconds duration) {
    const auto deadline = std::chrono::steady_clock::now() + duration;
    std::vector<std::thread> readers, writers;
    for (int r = 0; r < kReaders; ++r) readers.emplace_back([this, r] { read(r); });
    for (int w = 0; w < kWriters; ++w) writers.emplace_back([this, w] { write(w); });
    while (std::chrono::steady_clock::now() < deadline && problems_.empty()) {
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
          kCheckpointEvery, deadline - std::chrono::steady_clock::now()));
      pause_.store(true);
      while (paused_.load() < kWriters) std::this_thread::yield();
      checkAgainstModel("checkpoint " + std::to_string(++checkpoints_));
      pause_.store(false);
    }
    stop_.store(true);
    for (auto& t : writers) t.join();
    for (auto& t : readers) t.join();
    checkAgainstModel("end");
  }

  std::vector<std::string> problems() {
    std::lock_guard<std::mutex> lock(mutex_);
    return problems_;
  }
  long calls() const { return calls_.load(); }
  long registrations() const { return registrations_.load(); }
  int checkpoints() const { return checkpoints_; }

 private:
  void problem(std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (problems_.size() < 20) problems_.push_back(std::string(L::kName) + ": " + std::move(what));
  }

  // Writer w: registers on what it owns, drops at random, pauses when asked.
  void write(int w) {
    std::mt19937 rng(static_cast<unsigned>(w + 1));
    auto& live = live_[w];
    const Ownership& own = kOwners[w];
    while (!stop_.load()) {
      if (pause_.load()) {
        paused_.fetch_add(1);
        while (pause_.load() && !stop_.load()) std::this_thread::yield();
        paused_.fetch_sub(1);
        continue;
      }
      if (!live.empty() && (live.size() >= kMaxLive || rng() % 3 == 0)) {
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(rng() % live.size()));
        continue;
      }
      const int64_t n = serial_[w].fetch_add(1);
      Registration<L> reg;
      reg.name = kernelName(w, n, own.impl_keys.empty());
      try {
        if (own.impl_keys.empty()) {
          reg.key = own.fallback_keys[rng() % own.fallback_keys.size()];
          if (hasLiveFallback(live, reg.key)) continue;  // one fallback per slot: no refusals by state
          reg.fallthrough = rng() % 2 == 0;
          reg.library = std::make_unique<Library>(Library::Kind::IMPL, "_", reg.key, d_);
          reg.library->fallback(reg.fallthrough ? CppFunction::makeFallthrough().withDebug(reg.name)
                                                : boxedFallback(kernelValue(-1, w, n), reg.name));
        } else {
          reg.op = static_cast<int>(rng() % kOps);
          const auto key = own.impl_keys[rng() % own.impl_keys.size()];
          reg.key = *key;
          const int64_t value = kernelValue(reg.op, w, n);
          reg.library = std::make_unique<Library>(Library::Kind::IMPL, "soak", key, d_);
          reg.library->impl("op" + std::to_string(reg.op),
                            CppFunction([value](const Tensor&) -> int64_t { return value; })
                                .withDebug(reg.name));
        }
        live.push_back(std::move(reg));
        registrations_.fetch_add(1);
      } catch (const Error&) {
        std::lock_guard<std::mutex> lock(mutex_);
        refused_.push_back({nullptr, reg.op, reg.key, reg.name, reg.fallthrough});
      }
    }
    paused_.fetch_add(1);  // stopped writers count as paused for a checkpoint in progress
  }

  static bool hasLiveFallback(const std::vector<Registration<L>>& live, DispatchKey key) {
    for (const auto& r : live) {
      if (r.op < 0 && r.key == key) return true;
    }
    return false;
  }

  CppFunction boxedFallback(int64_t value, const std::string& name) {
    return CppFunction::makeFromBoxedLambda(
               [value](const BasicOperatorHandle<L>&, DispatchKeySet, Stack* stack) {
                 stack->clear();
                 stack->emplace_back(value);
               })
        .withDebug(name);
  }

  // Reader r: calls every operator with every tensor; the result must come from a kernel of
  // that operator (or a fallback), or the call must throw NotImplementedError.
  void read(int r) {
    size_t n = 0;
    while (!stop_.load()) {
      const int op = static_cast<int>((n + static_cast<size_t>(r)) % kOps);
      const Tensor& t = kTensors[(n / kOps + static_cast<size_t>(r)) % std::size(kTensors)];
      try {
        const int64_t v = typed_[static_cast<size_t>(op)].call(t);
        if (!nameOfValue(v, op, true)) problem(opName(op) + " returned " + std::to_string(v));
      } catch (const NotImplementedError&) {
      } catch (const std::exception& e) {
        problem(opName(op) + ": unexpected exception: " + e.what());
      }
      calls_.fetch_add(1);
      if (++n % 256 == 0) std::this_thread::yield();
    }
  }

  // The model of what the writers hold now (writers paused or stopped).
  model::ModelDispatcher buildModel(std::string_view when) {
    model::ModelDispatcher m(oracle::kModelFlavour<L>);
    for (int op = 0; op < kOps; ++op) m.def(opName(op), 1);
    for (const auto& live : live_) {
      for (const auto& reg : live) {
        const auto result = reg.op < 0 ? m.fallbackLibrary(reg.key, reg.name, reg.fallthrough)
                                       : m.impl(opName(reg.op), reg.key, reg.name);
        if (!result.ok()) problem(std::string(when) + ": the dispatcher took " + reg.name + ", the model refuses it");
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    // Refusals since the last check: a refusal may not depend on state (one fallback per slot),
    // so a fresh model must refuse it too.
    for (const auto& reg : refused_) {
      model::ModelDispatcher scratch(oracle::kModelFlavour<L>);
      scratch.def(opName(std::max(reg.op, 0)), 1);
      const auto result = reg.op < 0 ? scratch.fallbackLibrary(reg.key, reg.name, reg.fallthrough)
                                     : scratch.impl(opName(reg.op), reg.key, reg.name);
      if (result.ok() && problems_.size() < 20) {
        problems_.push_back(std::string(when) + ": the dispatcher refused " + reg.name + ", the model takes it");
      }
    }
    refused_.clear();
    return m;
  }

  void checkAgainstModel(const std::string& when) {
    const model::ModelDispatcher m = buildModel(when);
    try {
      d_.checkInvariants();
    } catch (const std::exception& e) {
      problem(when + ": checkInvariants: " + e.what());
    }
    for (int op = 0; op < kOps; ++op) {
      const auto handle = d_.findSchemaOrThrow(opName(op));
      if (handle.dumpDispatchTable() != m.dumpComputedTable(opName(op))) {
        problem(when + ": " + opName(op) + " table\n" + handle.dumpDispatchTable() + "model:\n" +
                m.dumpComputedTable(opName(op)));
      }
      const Typed& typed = typed_[static_cast<size_t>(op)];
      for (const Tensor& t : kTensors) {
        const auto expected = m.call(opName(op), model::KeySet::fromRaw(t.key_set().raw_repr()));
        std::string real;
        try {
          real = nameOfValue(typed.call(t), op, true).value_or("a value no kernel returns");
        } catch (const NotImplementedError&) {
          real = "NotImplemented";
        }
        const std::string want = expected.ok() ? expected.success->kernel : "NotImplemented";
        if (real != want) {
          std::ostringstream tensor;
          tensor << t;
          problem(when + ": " + opName(op) + " on " + tensor.str() + ": " + real + ", model " + want);
        }
      }
    }
  }

  BasicDispatcher<L> d_;
  std::vector<Library> defs_;
  std::vector<Typed> typed_;
  std::vector<Registration<L>> live_[kWriters];  // each writer's own; read at checkpoints only
  std::vector<Registration<L>> refused_;         // guarded by mutex_
  std::atomic<int64_t> serial_[kWriters] = {};
  std::atomic<bool> stop_{false}, pause_{false};
  std::atomic<int> paused_{0};
  std::atomic<long> calls_{0}, registrations_{0};
  int checkpoints_ = 0;
  std::mutex mutex_;
  std::vector<std::string> problems_;
};

std::chrono::seconds soakSeconds() {
  const char* env = std::getenv("DISPATCH_SOAK_SECONDS");
  const long total = env ? std::strtol(env, nullptr, 10) : 60;
  const long flavours = static_cast<long>(AllLayouts::kSize);
  // An equal share per flavour, at least 3 s: a checkpoint comes every 2 s.
  return std::chrono::seconds(std::max(3L, total / flavours));
}

template <class L>
void soak() {
  Soak<L> s;
  s.run(soakSeconds());
  std::string all;
  for (const auto& p : s.problems()) all += p + "\n";
  EXPECT_TRUE(all.empty()) << all;
  EXPECT_GT(s.calls(), 0);
  EXPECT_GT(s.registrations(), 0);
  EXPECT_GT(s.checkpoints(), 0) << "no checkpoint ran: the soak checked only its end state";
  ::testing::Test::RecordProperty("calls", std::to_string(s.calls()));
  ::testing::Test::RecordProperty("registrations", std::to_string(s.registrations()));
  ::testing::Test::RecordProperty("checkpoints", std::to_string(s.checkpoints()));
  std::printf("%s: %ld calls, %ld registrations, %d checkpoints in %llds\n", std::string(L::kName).c_str(),
              s.calls(), s.registrations(), s.checkpoints(), static_cast<long long>(soakSeconds().count()));
}

// ConcurrencySoak/<flavour>.Race, one per flavour of the build.
struct FlavourName {
  template <class L>
  static std::string GetName(int) {
    return std::string(L::kName);
  }
};
template <class L>
class ConcurrencySoak : public ::testing::Test {};
TYPED_TEST_SUITE(ConcurrencySoak, AllLayouts::Apply<::testing::Types>, FlavourName);
TYPED_TEST(ConcurrencySoak, Race) { soak<TypeParam>(); }

}  // namespace
}  // namespace dispatch
