#include "steps.h"

#include <map>
#include <sstream>

#include "dispatch/startup_fallbacks.h"
#include "generators.h"

namespace dispatch::props {

namespace gen = rc::gen;

bool isRegistration(ActionKind kind) {
  switch (kind) {
    case ActionKind::Def:
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
    case ActionKind::StartupFallbacks:
      return true;
    default:
      return false;
  }
}

bool isCall(ActionKind kind) {
  return kind == ActionKind::CallTyped || kind == ActionKind::CallBoxed ||
         kind == ActionKind::Redispatch;
}

bool isGuard(ActionKind kind) {
  return kind == ActionKind::IncludeKeys || kind == ActionKind::ExcludeKeys ||
         kind == ActionKind::PopGuard;
}

std::string describe(const Step& s) {
  std::ostringstream out;
  const std::string op = fuzz::opName(s.op);
  const std::string handle = "h" + std::to_string(s.label) + " = ";
  switch (s.kind) {
    case ActionKind::Def:
      out << handle << "def " << op;
      break;
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      out << handle << "impl " << op << " @ " << keyName(s.key) << " <- "
          << (s.kind == ActionKind::ImplTyped   ? "typed kernel"
              : s.kind == ActionKind::ImplBoxed ? "boxed kernel"
                                                : "fallthrough");
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      out << handle << "registerFallback(" << keyName(s.key) << ") <- "
          << (s.kind == ActionKind::FallbackDirect ? "boxed kernel" : "fallthrough");
      break;
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      out << handle << "DISPATCH_LIBRARY_IMPL(_, " << keyName(s.key) << ").fallback("
          << (s.kind == ActionKind::FallbackLibrary ? "boxed kernel" : "fallthrough") << ")";
      break;
    case ActionKind::StartupFallbacks:
      out << handle << "registerStartupFallbacks()";
      break;
    case ActionKind::Drop:
      out << "drop h" << s.target;
      break;
    case ActionKind::IncludeKeys:
      out << "push IncludeDispatchKeyGuard(" << keySetName(s.keys) << ")";
      break;
    case ActionKind::ExcludeKeys:
      out << "push ExcludeDispatchKeyGuard(" << keySetName(s.keys) << ")";
      break;
    case ActionKind::PopGuard:
      out << "pop the newest TLS guard";
      break;
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed:
      out << op << (s.kind == ActionKind::CallTyped ? ".call" : ".callBoxed") << "(self="
          << keySetName(s.keys) << ", other=" << (s.other ? keySetName(*s.other) : "None") << ")";
      break;
    case ActionKind::Redispatch:
      out << op << ".redispatch(" << keySetName(s.keys) << ")";
      break;
    case ActionKind::kCount:
      out << "?";
      break;
  }
  return out.str();
}

void showValue(const StepList& list, std::ostream& os) {
  os << "\n";
  for (size_t i = 0; i < list.steps.size(); ++i) {
    os << "  " << i + 1 << ". " << describe(list.steps[i]) << "\n";
  }
}

StepList renumbered(std::vector<Step> steps) {
  std::map<int, int> current;  // old label -> new label of its newest registration
  int next = 1;
  for (Step& s : steps) {
    if (isRegistration(s.kind)) {
      current[s.label] = next;
      s.label = next++;
    } else if (s.kind == ActionKind::Drop) {
      const auto found = current.find(s.target);
      s.target = found != current.end() ? found->second : 0;
    }
  }
  return StepList{std::move(steps)};
}

fuzz::Action toAction(const Step& s, uint32_t handle_index) {
  fuzz::Action a;
  a.kind = s.kind;
  a.op = s.op;
  a.key = s.key;
  a.keys = s.keys;
  a.other = s.other;
  a.handle = handle_index;
  return a;
}

namespace {

struct KindWeight {
  ActionKind kind;
  int weight;
};

// Registrations and calls dominate; every kind stays reachable.
constexpr KindWeight kStepWeights[] = {
    {ActionKind::Def, 6},
    {ActionKind::ImplTyped, 9},
    {ActionKind::ImplBoxed, 4},
    {ActionKind::ImplFallthrough, 3},
    {ActionKind::FallbackDirect, 4},
    {ActionKind::FallthroughDirect, 4},
    {ActionKind::FallbackLibrary, 3},
    {ActionKind::FallthroughLibrary, 3},
    {ActionKind::StartupFallbacks, 1},
    {ActionKind::Drop, 9},
    {ActionKind::IncludeKeys, 3},
    {ActionKind::ExcludeKeys, 3},
    {ActionKind::PopGuard, 3},
    {ActionKind::CallTyped, 12},
    {ActionKind::CallBoxed, 4},
    {ActionKind::Redispatch, 4},
};

rc::Gen<int> genOp() {
  // fz::op0 most often, so that registrations meet each other and the calls.
  return elementShrinkingToFront(std::vector<int>{0, 0, 0, 1, 1, 2, 3});
}

}  // namespace

rc::Gen<Step> genStep(const GenContext& context) {
  std::vector<int> live;
  std::vector<int> all;
  for (const auto& [label, is_live] : context.handles) {
    all.push_back(label);
    if (is_live) live.push_back(label);
  }
  std::vector<ActionKind> kinds;  // weighted list; a step keeps its kind while shrinking
  for (const KindWeight& kw : kStepWeights) {
    if (kw.kind == ActionKind::Drop && all.empty()) continue;
    if (kw.kind == ActionKind::PopGuard && context.guards == 0) continue;
    for (int i = 0; i < kw.weight; ++i) kinds.push_back(kw.kind);
  }
  const int label = context.next_label;
  return gen::exec([=] {
    Step s;
    s.kind = *gen::elementOf(kinds);
    switch (s.kind) {
      case ActionKind::Def:
      case ActionKind::StartupFallbacks:
        s.op = *genOp();
        s.label = label;
        break;
      case ActionKind::ImplTyped:
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough:
        s.op = *genOp();
        s.label = label;
        if (*gen::weightedElement<bool>({{7, true}, {1, false}})) s.key = *genRegistrationKey();
        break;
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect:
      case ActionKind::FallbackLibrary:
      case ActionKind::FallthroughLibrary:
        s.label = label;
        s.key = *genRegistrationKey();
        break;
      case ActionKind::Drop:
        // Mostly a live handle; sometimes any handle (a released one: double release).
        s.target = (!live.empty() && *gen::weightedElement<bool>({{5, true}, {1, false}}))
                       ? *elementShrinkingToFront(live)
                       : *elementShrinkingToFront(all);
        break;
      case ActionKind::IncludeKeys:
      case ActionKind::ExcludeKeys:
        s.keys = (*genGuardKeySet()).raw;
        break;
      case ActionKind::PopGuard:
        break;
      case ActionKind::CallTyped:
      case ActionKind::CallBoxed:
        s.op = *genOp();
        s.keys = (*genCallKeySet()).raw;
        if (*gen::weightedElement<bool>({{2, false}, {1, true}})) s.other = (*genCallKeySet()).raw;
        break;
      case ActionKind::Redispatch:
        s.op = *genOp();
        s.keys = (*genKeySet()).raw;
        break;
      case ActionKind::kCount:
        break;
    }
    return s;
  });
}

std::optional<std::vector<model::RegistrationId>> applyRegistration(model::ModelDispatcher& m,
                                                                    const Step& s) {
  const std::string op = fuzz::opName(s.op);
  const bool fallthrough = s.kind == ActionKind::ImplFallthrough ||
                           s.kind == ActionKind::FallthroughDirect ||
                           s.kind == ActionKind::FallthroughLibrary;
  model::RegistrationResult result;
  switch (s.kind) {
    case ActionKind::Def:
      result = m.def(op, 3);
      break;
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      result = m.impl(op, s.key, "k", fallthrough);
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
      result = m.fallbackDirect(*s.key, "fb", fallthrough);
      break;
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      result = m.fallbackLibrary(*s.key, "fb", fallthrough);
      break;
    case ActionKind::StartupFallbacks: {
      std::vector<model::RegistrationId> ids;
      auto add = [&](DispatchKey k, bool ft) {
        const model::RegistrationResult r = m.fallbackLibrary(k, "startup", ft);
        if (r.ok()) ids.push_back(*r.id);
        return r.ok();
      };
      bool ok = true;
      for (DispatchKey k : startup_fallthrough_keys) ok = ok && add(k, true);
      for (DispatchKey k : startup_boxed_fallback_keys) ok = ok && add(k, false);
      if (!ok) {
        for (auto id : ids) m.drop(id);
        return std::nullopt;
      }
      return ids;
    }
    default:
      return std::nullopt;
  }
  if (!result.ok()) return std::nullopt;
  return std::vector<model::RegistrationId>{*result.id};
}

}  // namespace dispatch::props
