// The incremental table refresh against the whole-row recomputation (Note [Table Equals
// Recomputation] in operator_entry.h; the dependency rules: dispatch/src/slot_dependencies.h).
// On random traces of kernel registrations (runtime keys, alias keys, the catch-all; real and
// fallthrough kernels), backend fallbacks (real and fallthrough) and drops of any of them, on
// every layout of this build (dispatch::AllLayouts), after EVERY step every operator's slots,
// tags and fallthrough masks equal their full recomputation (checkInvariants).
//
// Release builds skip the library's own check (DISPATCH_CHECK_TABLE_REFRESH), so there this
// property alone checks the rules; in sanitizer builds the library's check fires first, inside the
// registration or drop, and fails the case the same way (a drop's check ends the forked child:
// handles release noexcept). The traces concentrate on the keys the rules are about (every alias,
// the backends whose kernels autograd keys read, the autograd keys themselves) and on two
// operators, so that removing any one rule fails here within the default case count.

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "generators.h"
#include "prop_support.h"

namespace dispatch::props {
namespace {

namespace gen = rc::gen;

constexpr int kNumOps = 2;

OperatorName opName(int op) { return OperatorName{"incr::op" + std::to_string(op), ""}; }

// What each dependency rule is about: the aliases (and Undefined through the Composite ones), the
// runtime keys autograd keys read through has_backend_kernel and the AutogradOther ambiguity
// (Dense<b>, Sparse, Quantized, the plain AutogradOther backends, NestedTensor<b>), the keys
// outside some alias (XLA for CEANF, HIP with its empty autograd backend set), and the autograd
// keys whose slots those move.
const std::vector<DispatchKey>& ruleKeys() {
  static const std::vector<DispatchKey> keys = {
      DispatchKey::CPU,
      DispatchKey::CompositeImplicitAutograd,
      DispatchKey::CompositeExplicitAutograd,
      DispatchKey::CompositeExplicitAutogradNonFunctional,
      DispatchKey::CompositeImplicitAutogradNestedTensor,
      DispatchKey::Autograd,
      DispatchKey::SparseCPU,
      DispatchKey::QuantizedCPU,
      DispatchKey::NestedTensorCPU,
      DispatchKey::FPGA,
      DispatchKey::Vulkan,
      DispatchKey::MkldnnCPU,
      DispatchKey::SparseCsrCPU,
      DispatchKey::CUDA,
      DispatchKey::XLA,
      DispatchKey::HIP,
      DispatchKey::AutogradCPU,
      DispatchKey::AutogradOther,
      DispatchKey::AutogradNestedTensor,
      DispatchKey::ADInplaceOrView,
  };
  return keys;
}

struct RefreshStep {
  enum class Kind : uint8_t { Impl, Fallback, Drop };
  Kind kind = Kind::Impl;
  int op = 0;                       // Impl
  std::optional<DispatchKey> key;   // Impl (nullopt: catch-all) and Fallback
  bool fallthrough = false;         // Impl and Fallback
  size_t target = 0;                // Drop: index among the registrations made, modulo their count
};

std::string describe(const RefreshStep& step) {
  std::ostringstream out;
  const char* kernel = step.fallthrough ? "fallthrough" : "kernel";
  switch (step.kind) {
    case RefreshStep::Kind::Impl:
      out << "impl " << toString(opName(step.op)) << " @ "
          << (step.key ? std::string(toString(*step.key)) : std::string("catch-all")) << " ("
          << kernel << ")";
      break;
    case RefreshStep::Kind::Fallback:
      out << "fallback @ " << toString(*step.key) << " (" << kernel << ")";
      break;
    case RefreshStep::Kind::Drop:
      out << "drop registration #" << step.target << " (modulo the registrations made)";
      break;
  }
  return out.str();
}

void showValue(const RefreshStep& step, std::ostream& os) { os << describe(step); }

rc::Gen<DispatchKey> genFocusedKey() {
  return gen::weightedOneOf<DispatchKey>({{4, gen::elementOf(ruleKeys())}, {1, genRuntimeKey()}});
}

rc::Gen<RefreshStep> genStep() {
  using Kind = RefreshStep::Kind;
  const auto impl_key = gen::weightedOneOf<std::optional<DispatchKey>>(
      {{9, gen::cast<std::optional<DispatchKey>>(genFocusedKey())},
       {1, gen::just(std::optional<DispatchKey>())}});
  const auto fallback_key = gen::suchThat(genFocusedKey(), [](DispatchKey k) {
    return !isAliasDispatchKey(k);
  });
  return gen::weightedOneOf<RefreshStep>({
      {5, gen::apply(
              [](int op, std::optional<DispatchKey> key, int fallthrough) {
                return RefreshStep{Kind::Impl, op, key, fallthrough == 0, 0};
              },
              gen::inRange(0, kNumOps), impl_key, gen::inRange(0, 4))},
      {2, gen::apply(
              [](DispatchKey key, bool fallthrough) {
                return RefreshStep{Kind::Fallback, 0, key, fallthrough, 0};
              },
              fallback_key, gen::arbitrary<bool>())},
      {3, gen::map(gen::inRange<size_t>(0, 64),
                   [](size_t target) { return RefreshStep{Kind::Drop, 0, std::nullopt, false, target}; })},
  });
}

template <class L>
void noopKernel(const BasicOperatorHandle<L>&, DispatchKeySet, Stack*) {}

template <class L>
BasicKernelFunction<L> kernelFor(const RefreshStep& step) {
  return step.fallthrough ? BasicKernelFunction<L>::makeFallthrough()
                          : BasicKernelFunction<L>::template makeFromBoxedFunction<&noopKernel<L>>();
}

// Runs the trace; the first step after which some row differs from its recomputation (or the
// library's own check threw), described with the steps up to it.
template <class L>
std::optional<std::string> firstStaleRow(const std::vector<RefreshStep>& steps) {
  BasicDispatcher<L> dispatcher;
  std::vector<RegistrationHandle> handles;
  std::ostringstream log;
  for (size_t i = 0; i < steps.size(); ++i) {
    const RefreshStep& step = steps[i];
    const std::string name = "s" + std::to_string(i + 1);
    std::string outcome;
    try {
      switch (step.kind) {
        case RefreshStep::Kind::Impl: {
          TriedRegistration tried = dispatcher.tryRegisterImpl(
              opName(step.op), step.key, kernelFor<L>(step), std::nullopt, std::nullopt, name);
          outcome = tried.ok() ? "registered #" + std::to_string(handles.size()) : "refused";
          if (tried.ok()) handles.push_back(std::move(tried).take());
          break;
        }
        case RefreshStep::Kind::Fallback: {
          TriedRegistration tried = dispatcher.tryRegisterFallback(*step.key, kernelFor<L>(step), name);
          outcome = tried.ok() ? "registered #" + std::to_string(handles.size()) : "refused";
          if (tried.ok()) handles.push_back(std::move(tried).take());
          break;
        }
        case RefreshStep::Kind::Drop:
          outcome = !handles.empty() && handles[step.target % handles.size()].tryRelease()
                        ? "released #" + std::to_string(step.target % handles.size())
                        : "nothing to release";
          break;
      }
      log << "  " << name << ": " << describe(step) << " -> " << outcome << "\n";
      dispatcher.checkInvariants();
    } catch (const InternalError& e) {
      return std::string(L::kName) + " layout, after step " + name + ":\n" + log.str() +
             (outcome.empty() ? "  " + name + ": " + describe(step) + " -> threw\n" : "") +
             "the refreshed table differs from its full recomputation: " + e.what();
    }
  }
  return std::nullopt;
}

}  // namespace

DISPATCH_LAYOUT_PROP(IncrementalRefresh, EveryRowEqualsItsRecomputationAfterEveryStep, 200, 60) {
  const auto steps = *gen::container<std::vector<RefreshStep>>(genStep());
  isolate([&] {
    if (auto problem = firstStaleRow<L>(steps)) RC_FAIL(*problem);
  });
}

}  // namespace dispatch::props
