#include "action_gen.h"

#include <iterator>
#include <map>
#include <ostream>
#include <vector>

#include "generators.h"
#include "oracle/actions/library_block.h"

namespace dispatch::props {

namespace gen = rc::gen;

std::string describe(const LabelledAction& l) {
  if (l.action.kind == ActionKind::Drop) return "drop h" + std::to_string(l.target);
  const std::string text = oracle::describe(l.action);
  return oracle::isRegistration(l.action.kind) ? "h" + std::to_string(l.label) + " = " + text : text;
}

void showValue(const LabelledTrace& trace, std::ostream& os) {
  os << "\n";
  for (size_t i = 0; i < trace.actions.size(); ++i) {
    os << "  " << i + 1 << ". " << describe(trace.actions[i]) << "\n";
  }
}

LabelledTrace renumbered(std::vector<LabelledAction> actions) {
  std::map<int, int> current;  // old label -> new label of its newest registration
  int next = 1;
  for (LabelledAction& l : actions) {
    if (oracle::isRegistration(l.action.kind)) {
      current[l.label] = next;
      l.label = next++;
    } else if (l.action.kind == ActionKind::Drop) {
      const auto found = current.find(l.target);
      l.target = found != current.end() ? found->second : 0;
    }
  }
  return LabelledTrace{std::move(actions)};
}

Action withDropHandle(const LabelledAction& l, uint32_t handle_index) {
  Action a = l.action;
  if (a.kind == ActionKind::Drop) a.handle = handle_index;
  return a;
}

// Plus library blocks (one registration in a DISPATCH_LIBRARY, _IMPL or _FRAGMENT block) among
// the registrations, so that blocks meet direct registrations and each other's namespace claims.
const oracle::ActionWeights kPropertyWeights = [] {
  //                        Def Typed Boxed FT FbD FtD FbL FtL Start Drop Inc Exc Pop Call CallB Redisp
  oracle::ActionWeights w{{6, 9, 4, 3, 4, 4, 3, 3, 1, 9, 3, 3, 3, 12, 4, 4}};
  w.weight[static_cast<int>(ActionKind::LibraryBlock)] = 4;
  return w;
}();
// With a focus: impls and drops first (a third and a fifth of the actions), so that kernels
// stack on the focus keys and are taken away again; library blocks among them, their impls on
// the focus keys too.
const oracle::ActionWeights kFocusWeights = [] {
  oracle::ActionWeights w{{4, 12, 6, 4, 2, 2, 2, 2, 1, 14, 2, 2, 2, 8, 3, 3}};
  w.weight[static_cast<int>(ActionKind::LibraryBlock)] = 4;
  return w;
}();
// On one operator: kernels (half the actions) and drops (a quarter), fallbacks and their drops
// after kernels; no guards, few calls (every step already compares every table with the model).
const oracle::ActionWeights kOneOperatorWeights{{1, 12, 5, 3, 2, 2, 2, 2, 1, 11, 0, 0, 0, 2, 1, 0}};

namespace {

rc::Gen<int> genOp(const Focus& focus) {
  if (focus.one_operator) return gen::just(0);
  // fz::op0 most often, so that registrations meet each other and the calls.
  if (!focus.keys.empty()) return elementShrinkingToFront(std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 3});
  return elementShrinkingToFront(std::vector<int>{0, 0, 0, 1, 1, 2, 3});
}

// Keys whose kernels decide other slots (docs/semantics.md §4.4): backends and their autograd
// keys, AutogradOther and backends mapped to it (§4.6), the aliases. (Every other key stays
// reachable through genRegistrationKey.)
const std::vector<DispatchKey>& focusCandidates() {
  using DK = DispatchKey;
  static const std::vector<DK> keys = {
      DK::CPU,          DK::SparseCPU,     DK::QuantizedCPU,  DK::FPGA,
      DK::CUDA,         DK::AutogradCPU,   DK::AutogradOther, DK::NestedTensorCPU,
      DK::Autograd,     DK::CompositeImplicitAutograd,      DK::CompositeExplicitAutograd,
      DK::CompositeImplicitAutogradNestedTensor};
  return keys;
}

rc::Gen<DispatchKey> genFocusedKey(const Focus& focus) {
  if (focus.keys.empty()) return genRegistrationKey();
  if (focus.one_operator) {
    // The first key most often: four kernels stacked on one key before a drop mid-stack.
    return gen::weightedOneOf<DispatchKey>({{8, gen::just(focus.keys[0])},
                                            {6, elementShrinkingToFront(focus.keys)},
                                            {1, genRegistrationKey()}});
  }
  return gen::weightedOneOf<DispatchKey>(
      {{6, elementShrinkingToFront(focus.keys)}, {1, genRegistrationKey()}});
}

// Fallbacks on one operator's focus: mostly on keys whose slot no kernel of it decides, where a
// fallback change must show in its table.
rc::Gen<DispatchKey> genFallbackKey(const Focus& focus) {
  if (!focus.one_operator) return genFocusedKey(focus);
  return gen::weightedOneOf<DispatchKey>({{1, elementShrinkingToFront(focus.keys)}, {2, genRegistrationKey()}});
}

// A block form of the vocabulary (oracle::kLibraryBlockForms: mostly IMPL blocks on the
// operators' own namespace), shrinking towards the first, a typed impl.
rc::Gen<oracle::LibraryBlock> genLibraryBlockForm() {
  static const std::vector<oracle::LibraryBlock> forms(std::begin(oracle::kLibraryBlockForms),
                                                       std::end(oracle::kLibraryBlockForms));
  return elementShrinkingToFront(forms);
}

}  // namespace

rc::Gen<Focus> genFocus() {
  return gen::map(gen::container<std::vector<DispatchKey>>(2, elementShrinkingToFront(focusCandidates())),
                  [](std::vector<DispatchKey> keys) { return Focus{std::move(keys)}; });
}

rc::Gen<Focus> genOneOperatorFocus() {
  // Four distinct candidates (a drawn order of the list), so that four keys can hold kernels.
  return gen::exec([] {
    std::vector<DispatchKey> left = focusCandidates();
    Focus focus;
    focus.one_operator = true;
    while (focus.keys.size() < 4) {
      const auto i = static_cast<size_t>(*gen::inRange<size_t>(0, left.size()));
      focus.keys.push_back(left[i]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return focus;
  });
}

rc::Gen<LabelledAction> genLabelledAction(const GenContext& context) {
  return genLabelledAction(context, Focus{});
}

rc::Gen<LabelledAction> genLabelledAction(const GenContext& context, const Focus& focus) {
  std::vector<int> live;
  std::vector<int> all;
  for (const auto& [label, is_live] : context.handles) {
    all.push_back(label);
    if (is_live) live.push_back(label);
  }
  std::vector<ActionKind> kinds;  // weighted list; an action keeps its kind while shrinking
  for (int k = 0; k < oracle::kNumActionKinds; ++k) {
    const auto kind = static_cast<ActionKind>(k);
    if (kind == ActionKind::Drop && all.empty()) continue;
    if (kind == ActionKind::PopGuard && context.guards == 0) continue;
    const auto& weights = focus.keys.empty() ? kPropertyWeights
                          : focus.one_operator ? kOneOperatorWeights
                                               : kFocusWeights;
    for (int i = 0; i < weights.weight[k]; ++i) kinds.push_back(kind);
  }
  const int label = context.next_label;
  return gen::exec([=] {
    LabelledAction l;
    Action& a = l.action;
    a.kind = *gen::elementOf(kinds);
    if (oracle::isRegistration(a.kind)) l.label = label;
    switch (a.kind) {
      case ActionKind::Def:
      case ActionKind::StartupFallbacks:
        a.op = *genOp(focus);
        break;
      case ActionKind::ImplTyped:
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough:
        a.op = *genOp(focus);
        if (*gen::weightedElement<bool>({{7, true}, {1, false}})) a.key = *genFocusedKey(focus);
        break;
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect:
      case ActionKind::FallbackLibrary:
      case ActionKind::FallthroughLibrary:
        a.key = *genFallbackKey(focus);
        break;
      case ActionKind::LibraryBlock:
        a.op = *genOp(focus);
        a.block = *genLibraryBlockForm();
        if (a.block->kind == oracle::LibraryKind::Impl && *gen::weightedElement<bool>({{7, true}, {1, false}})) {
          a.key = *genFocusedKey(focus);
        }
        break;
      case ActionKind::Drop:
        // Mostly a live handle; sometimes any handle (a released one: double release). With a
        // focus, often the newest live one (teardown in reverse order of registration).
        if (!live.empty() && !focus.keys.empty() && *gen::weightedElement<bool>({{1, true}, {1, false}})) {
          l.target = live.back();
        } else if (!live.empty() && focus.one_operator) {
          l.target = *elementShrinkingToFront(live);  // mid-stack drops: any live kernel
        } else {
          l.target = (!live.empty() && *gen::weightedElement<bool>({{5, true}, {1, false}}))
                         ? *elementShrinkingToFront(live)
                         : *elementShrinkingToFront(all);
        }
        break;
      case ActionKind::IncludeKeys:
      case ActionKind::ExcludeKeys:
        a.keys = (*genGuardKeySet()).raw;
        break;
      case ActionKind::PopGuard:
        break;
      case ActionKind::CallTyped:
      case ActionKind::CallBoxed:
        a.op = *genOp(focus);
        a.keys = (*genCallKeySet()).raw;
        if (*gen::weightedElement<bool>({{2, false}, {1, true}})) a.other = (*genCallKeySet()).raw;
        break;
      case ActionKind::Redispatch:
        a.op = *genOp(focus);
        a.keys = (*genKeySet()).raw;
        break;
      default:  // key-set actions: weight 0 in kPropertyWeights
        break;
    }
    return l;
  });
}

}  // namespace dispatch::props
