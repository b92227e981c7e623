#include "oracle/runner/registration_order.h"

#include <map>
#include <stdexcept>

namespace dispatch::oracle {

std::string registrationList(const Action& a) {
  if (a.kind == ActionKind::NamedKey && a.named) {
    // A key named by its c10 name (a release's own key): never one of the enum's keys.
    if (isImpl(a.named->registration)) return "impl " + opName(a.op) + " at " + a.named->key;
    return "fallback at " + a.named->key;
  }
  if (a.kind == ActionKind::LibraryBlock && a.block) {
    // A block's one registration is in its list; a DEF block's namespace claim conflicts only
    // with another DEF block's, and two of those are never live together.
    const LibraryBlock& b = *a.block;
    if (b.body == LibraryBody::Def) return "def " + opName(a.op);
    if (b.body == LibraryBody::Nothing) return "library block";
    return "impl " + opName(a.op) + " at " +
           std::string(toString(libraryKernelKey(b, a.key).value_or(DispatchKey::CompositeImplicitAutograd)));
  }
  if (a.kind == ActionKind::Def) return "def " + opName(a.op);
  // A catch-all kernel is a CompositeImplicitAutograd kernel (docs/semantics.md): one list.
  if (isImpl(a.kind)) return "impl " + opName(a.op) + " at " + std::string(toString(a.key.value_or(DispatchKey::CompositeImplicitAutograd)));
  if (a.kind == ActionKind::StartupFallbacks) return "start-up fallbacks";
  if (isRegistration(a.kind) && a.key) return "fallback at " + std::string(toString(*a.key));
  throw std::invalid_argument("registrationList: " + describe(a) + " registers nothing");
}

std::vector<size_t> anotherOrder(const std::vector<Action>& registrations) {
  std::vector<std::string> lists;                    // in order of their first registration
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < registrations.size(); ++i) {
    const std::string list = registrationList(registrations[i]);
    auto& of_list = members[list];
    if (of_list.empty()) lists.push_back(list);
    of_list.push_back(i);
  }
  std::vector<size_t> order;
  for (auto it = lists.rbegin(); it != lists.rend(); ++it) {
    const auto& of_list = members.at(*it);
    order.insert(order.end(), of_list.begin(), of_list.end());
  }
  return order;
}

}  // namespace dispatch::oracle
