// Path independence, like PyTorch's commute() test (test/test_dispatch.py): a set of
// registrations that do not conflict (at most one def per operator, one kernel per operator and
// key, one fallback per slot) is made in a random order, then released in another random order.
// After every single step the dispatcher must be indistinguishable from a fresh dispatcher that
// made only the registrations still alive, in canonical order: same operators, same dumpState,
// same live and recomputed tables, same fallbacks (docs/semantics.md §4.5: "the table always equals its
// recomputation", for every order). At the end nothing is left.

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "dispatch/flavours.h"
#include "generators.h"
#include "oracle/actions/action.h"
#include "oracle/ours/layout_flavour.h"
#include "prop_support.h"

namespace dispatch::props {
namespace {

namespace gen = rc::gen;

using oracle::Action;
using oracle::ActionKind;

// A registration is an oracle Action of a registration kind (not the start-up set, which is
// not free of conflicts with the rest); its kernel is named r<index>.
std::string describe(const Action& r, size_t index) {
  return "r" + std::to_string(index) + " = " + oracle::describe(r);
}

bool isDirectFallback(ActionKind k) {
  return k == ActionKind::FallbackDirect || k == ActionKind::FallthroughDirect;
}

// The registrations of one case, already free of conflicts for the flavour.
struct RegistrationSet {
  std::vector<Action> regs;
};

void showValue(const RegistrationSet& set, std::ostream& os) {
  os << "\n";
  for (size_t i = 0; i < set.regs.size(); ++i) os << "  " << describe(set.regs[i], i) << "\n";
}

// Drops every registration that would fail or conflict with an earlier one on this flavour, so
// that every order of the rest succeeds.
RegistrationSet withoutConflicts(const std::vector<Action>& candidates,
                                 model::Flavour flavour) {
  RegistrationSet out;
  std::set<int> defined;
  std::set<std::pair<int, DispatchKey>> impl_keys;
  std::set<int> slots;
  for (const Action& r : candidates) {
    if (r.kind == ActionKind::Def) {
      if (!defined.insert(r.op).second) continue;
    } else if (oracle::isImpl(r.kind)) {
      const DispatchKey storage = r.key.value_or(DispatchKey::CompositeImplicitAutograd);
      if (!model::isRuntimeKey(storage) && !model::isAliasKey(storage)) continue;
      if (!impl_keys.insert({r.op, storage}).second) continue;
    } else {
      std::vector<DispatchKey> keys;
      if (isDirectFallback(r.kind)) {
        if (!model::isRuntimeKey(*r.key)) continue;
        keys.push_back(*r.key);
      } else {
        if (!model::isValidKey(*r.key)) continue;
        keys = model::runtimeKeysOfAlias(*r.key);
      }
      std::vector<int> claimed;
      for (DispatchKey k : keys) {
        const int slot = model::tableIndex(k, flavour);
        if (slot >= 0) claimed.push_back(slot);
      }
      if (isDirectFallback(r.kind) && claimed.empty()) continue;  // no slot on this flavour
      if (std::any_of(claimed.begin(), claimed.end(), [&](int s) { return slots.count(s) != 0; })) {
        continue;
      }
      slots.insert(claimed.begin(), claimed.end());
    }
    out.regs.push_back(r);
  }
  return out;
}

rc::Gen<Action> genRegistration() {
  return gen::exec([] {
    Action r;
    r.kind = *gen::weightedElement<ActionKind>({{3, ActionKind::Def},
                                                {6, ActionKind::ImplTyped},
                                                {3, ActionKind::ImplBoxed},
                                                {2, ActionKind::ImplFallthrough},
                                                {2, ActionKind::FallbackDirect},
                                                {2, ActionKind::FallthroughDirect},
                                                {2, ActionKind::FallbackLibrary},
                                                {2, ActionKind::FallthroughLibrary}});
    r.op = *elementShrinkingToFront(std::vector<int>{0, 0, 0, 1, 1, 2});
    if (oracle::isImpl(r.kind)) {
      if (*gen::weightedElement<bool>({{6, true}, {1, false}})) r.key = *genRegistrationKey();
    } else if (r.kind != ActionKind::Def) {
      r.key = *genRegistrationKey();
    }
    return r;
  });
}

rc::Gen<RegistrationSet> genRegistrationSet(model::Flavour flavour) {
  return gen::map(gen::resize(12, gen::container<std::vector<Action>>(genRegistration())),
                  [flavour](const std::vector<Action>& candidates) {
                    return withoutConflicts(candidates, flavour);
                  });
}

// A permutation of 0..n-1 from sort keys; shrinking the keys towards 0 shrinks the order
// towards the identity.
std::vector<size_t> permutation(const std::vector<int>& sort_keys) {
  std::vector<size_t> order(sort_keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sort_keys[a] < sort_keys[b]; });
  return order;
}

struct RegisterOrder {
  std::vector<size_t> order;
};
struct ReleaseOrder {
  std::vector<size_t> order;
};
void showOrder(const char* verb, const std::vector<size_t>& order, std::ostream& os) {
  os << verb;
  for (size_t i = 0; i < order.size(); ++i) os << (i ? ", r" : " r") << order[i];
}
void showValue(const RegisterOrder& o, std::ostream& os) { showOrder("register", o.order, os); }
void showValue(const ReleaseOrder& o, std::ostream& os) { showOrder("release", o.order, os); }

template <class Order>
rc::Gen<Order> genOrder(size_t n) {
  return gen::map(gen::resize(rc::kNominalSize, gen::container<std::vector<int>>(
                                                    n, gen::inRange(0, static_cast<int>(n)))),
                  [](const std::vector<int>& keys) { return Order{permutation(keys)}; });
}

// What one registration left behind on the real side.
template <class L>
struct Held {
  std::optional<RegistrationHandle> handle;
  std::optional<BasicLibrary<L>> library;
  void release() {
    if (handle) handle->release();
    if (library) library->reset();
  }
};

template <class L>
Held<L> registerOn(BasicDispatcher<L>& d, const Action& r, size_t index) {
  using CppFunction = BasicCppFunction<L>;
  const std::string name = "r" + std::to_string(index);
  auto kernel = [&]() -> CppFunction {
    if (oracle::isFallthrough(r.kind)) return CppFunction::makeFallthrough().withDebug(name);
    switch (r.kind) {
      case ActionKind::ImplTyped:
        return CppFunction([name](const Tensor&, const std::optional<Tensor>&, int64_t) {
                 return name;
               }).withDebug(name);
      default:
        return CppFunction::makeFromBoxedLambda(
                   [name](const BasicOperatorHandle<L>&, DispatchKeySet, Stack* stack) {
                     stack->clear();
                     stack->emplace_back(std::string(name));
                   })
            .withDebug(name);
    }
  };
  Held<L> held;
  if (r.kind == ActionKind::Def) {
    held.handle = d.registerDef(parseSchema(oracle::opSchema(r.op)), "def " + name);
  } else if (oracle::isImpl(r.kind)) {
    CppFunction f = kernel();
    held.handle = d.registerImpl(OperatorName{oracle::opName(r.op), ""}, r.key, std::move(f.kernel_),
                                 std::move(f.cpp_signature_), std::move(f.inferred_schema_), name);
  } else if (isDirectFallback(r.kind)) {
    held.handle = d.registerFallback(*r.key, kernel().kernel_, name);
  } else {
    held.library.emplace(BasicLibrary<L>::Kind::IMPL, "_", *r.key, d);
    held.library->fallback(kernel());
  }
  return held;
}

// The state a fresh dispatcher reaches with exactly the registrations in `live` (a bit mask),
// made in index order.
template <class L>
std::string canonicalState(const RegistrationSet& set, uint32_t live) {
  BasicDispatcher<L> d;
  std::vector<Held<L>> held;
  for (size_t i = 0; i < set.regs.size(); ++i) {
    if (live & (1u << i)) held.push_back(registerOn(d, set.regs[i], i));
  }
  std::string state = dispatcherSnapshot(d);
  while (!held.empty()) held.pop_back();
  return state;
}

template <class L>
void commuteCase() {
  const model::Flavour flavour = oracle::kModelFlavour<L>;
  const RegistrationSet set = *genRegistrationSet(flavour);
  RC_PRE(!set.regs.empty());
  const size_t n = set.regs.size();
  const std::vector<size_t> register_order = (*genOrder<RegisterOrder>(n)).order;
  const std::vector<size_t> release_order = (*genOrder<ReleaseOrder>(n)).order;

  isolate([&] {
    std::map<uint32_t, std::string> expected_by_live;
    auto expected = [&](uint32_t live) -> const std::string& {
      auto found = expected_by_live.find(live);
      if (found == expected_by_live.end()) {
        found = expected_by_live.emplace(live, canonicalState<L>(set, live)).first;
      }
      return found->second;
    };
    std::ostringstream path;
    auto fail = [&](const std::string& what, uint32_t live, const std::string& actual) {
      std::ostringstream out;
      out << L::kName << " flavour: " << what << "\nregistrations:\n";
      for (size_t i = 0; i < n; ++i) out << "  " << describe(set.regs[i], i) << "\n";
      out << "steps so far:\n" << path.str()
          << "difference from a fresh dispatcher with the live registrations made in index order"
             " (- expected, + actual):\n"
          << lineDiff(expected(live), actual);
      RC_FAIL(out.str());
    };

    BasicDispatcher<L> d;
    std::vector<std::optional<Held<L>>> held(n);
    uint32_t live = 0;
    auto check = [&](const std::string& step) {
      try {
        d.checkInvariants();
      } catch (const InternalError& e) {
        path << "  " << step << "\n";
        fail(std::string("checkInvariants failed: ") + e.what(), live, dispatcherSnapshot(d));
      }
      const std::string actual = dispatcherSnapshot(d);
      path << "  " << step << "\n";
      if (actual != expected(live)) fail("the state depends on the order of the steps", live, actual);
    };
    for (size_t i : register_order) {
      try {
        held[i].emplace(registerOn(d, set.regs[i], i));
      } catch (const std::exception& e) {
        path << "  register r" << i << "\n";
        fail(std::string("a registration without conflicts was refused: ") + e.what(), live,
             dispatcherSnapshot(d));
      }
      live |= 1u << i;
      check("register r" + std::to_string(i));
    }
    for (size_t i : release_order) {
      held[i]->release();
      held[i].reset();
      live &= ~(1u << i);
      check("release r" + std::to_string(i));
    }
    RC_ASSERT(d.numOperators() == 0u);
    RC_ASSERT(d.dumpFallbacks().empty());
  });
}

}  // namespace

DISPATCH_LAYOUT_PROP(Commute, TablesArePathIndependent, 150, 100) { commuteCase<L>(); }

}  // namespace dispatch::props
