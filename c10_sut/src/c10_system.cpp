#include "c10_sut/c10_system.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <variant>
#include <vector>

#include <ATen/core/dispatch/DispatchKeyExtractor.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "c10_declared.h"
#include "c10_live_table.h"
#include "c10_support.h"
#include "oracle/actions/release_keys.h"

namespace dispatch::c10_sut {

namespace {

using Signature = std::string(const at::Tensor&, const c10::optional<at::Tensor>&, int64_t);
constexpr int64_t kTag = 7;
// The file name every Library of ours claims: c10 names a registration without a debug name
// "registered at <file>:<line>", and a signature (known_upstream.signatures) must not depend on
// where the checkout is.
constexpr const char* kLibraryFile = "dispatch_seam_library";

// Raw bits 54..63: functionality values past the last one (docs/semantics.md §2.1, model D4).
constexpr uint64_t kUnknownFunctionalityBits = ~uint64_t{0} << 54;

// The keys dumpComputedTable prints a line for: the runtime keys (a full set iterates over
// them) and Undefined.
bool shownInComputedTables(c10::DispatchKey key) {
  if (key == c10::DispatchKey::Undefined) return true;
  static const std::set<c10::DispatchKey> shown = [] {
    std::set<c10::DispatchKey> out;
    for (c10::DispatchKey k : c10::DispatchKeySet(c10::DispatchKeySet::FULL)) out.insert(k);
    return out;
  }();
  return shown.count(key) != 0;
}

// The NamedKey registrations of this process, by key (namedKeyCounts()).
std::map<std::string, NamedKeyCount>& tally() {
  static std::map<std::string, NamedKeyCount> counts;
  return counts;
}

// A start-up fallback of this release's (c10_support.h).
bool hasStartupFallback(DispatchKey key) { return startupFallbackKeys().count(std::string(toString(key))) != 0; }

std::string c10OpName(int op) { return std::string(kNamespace) + "::op" + std::to_string(op); }

// fz::opN's schema, in our namespace.
std::string c10Schema(int op) {
  std::string schema = oracle::opSchema(op);
  const std::string model_prefix = oracle::opName(op);
  return c10OpName(op) + schema.substr(model_prefix.size());
}

// The keys and key-set bits of an action that this c10 has no counterpart for (by name): such an
// action cannot be expressed against this release, so it is skipped, with the key named.
std::optional<std::string> keysC10Lacks(const oracle::Action& a) {
  try {
    if (a.key) toC10(*a.key);
    toC10Set(a.keys);
    if (a.other) toC10Set(*a.other);
    if (a.call) {
      if (a.call->include) toC10(*a.call->include);
      if (a.call->exclude) toC10Set(*a.call->exclude);
      for (const auto* values : {&a.call->args, &a.call->extra}) {
        for (const auto& value : *values) {
          for (uint64_t tensor : value.tensors) toC10Set(tensor);
        }
      }
    }
  } catch (const UnmappedKey& e) {
    return std::string("the release lacks a key: ") + e.what();
  }
  return std::nullopt;
}

// What c10 takes on a key by kind of registration, as for the keys of the enum above: an impl on
// a runtime or alias key, a direct fallback on a runtime key, a library fallback on a runtime or
// alias key whose runtime keys have no start-up fallback.
std::optional<std::string> namedKeyUnsupported(const oracle::NamedKeyRegistration& r) {
  const std::optional<c10::DispatchKey> key = c10KeyNamed(r.key);
  if (!key) return "the release lacks a key: c10 has no dispatch key " + r.key;
  const bool alias = c10::isAliasDispatchKey(*key);
  const bool runtime = *key != c10::DispatchKey::Undefined && shownInComputedTables(*key);
  if (oracle::isImpl(r.registration)) {
    if (!alias && !runtime) return "c10 does not check an impl's key (docs/c10-differences.md): " + r.key;
    return std::nullopt;
  }
  const bool direct = r.registration == oracle::ActionKind::FallbackDirect ||
                      r.registration == oracle::ActionKind::FallthroughDirect;
  if (direct && !runtime) return "c10 does not check a fallback's key (docs/c10-differences.md): " + r.key;
  if (!direct && !alias && !runtime) {
    return "c10 asserts on a library fallback for a key that is neither alias nor runtime key: " + r.key;
  }
  for (c10::DispatchKey k : alias ? c10::getRuntimeDispatchKeySet(*key) : c10::DispatchKeySet(*key)) {
    if (startupFallbackKeys().count(c10::toString(k))) {
      return (k == *key ? "the key has a start-up fallback: " : "the key expands to one with a start-up fallback: ") +
             std::string(c10::toString(k));
    }
  }
  return std::nullopt;
}

c10::optional<c10::OperatorHandle> findOp(int op) {
  return c10::Dispatcher::singleton().findOp(c10::OperatorName(c10OpName(op), ""));
}

class C10System final : public oracle::SystemUnderTest {
 public:
  C10System(bool probe_every_slot, SlotReading reading)
      : probe_every_slot_(probe_every_slot), reading_(reading), saved_tls_(c10::impl::tls_local_dispatch_key_set()) {
    quietC10();
    for (int i = 0; i < oracle::kNumOps; ++i) {
      if (findOp(i)) throw std::logic_error("c10 already has " + c10OpName(i) + ": a previous input leaked");
    }
  }
  ~C10System() override {
    while (!guards_.empty()) guards_.pop_back();                // LIFO: guards undo in order
    while (!registrations_.empty()) registrations_.pop_back();  // newest first
    // c10 1.13's guards subtract their keys on the way out, and DispatchKeySet's minus keeps
    // backend bits, so a guard with backend bits leaks them (pytorch#145108, known_upstream.md;
    // the runner reports it at the pop). The next input must start clean all the same.
    c10::impl::_force_tls_local_dispatch_key_set(saved_tls_);
  }

  std::string name() const override { return "c10"; }
  model::Flavour flavour() const override { return model::Flavour::Full; }
  std::string opName(int op) const override {
    const auto it = declared_.find(op);
    return it == declared_.end() ? c10OpName(op) : c10::toString(c10DeclaredName(it->second.name));
  }
  bool startsWithStartupFallbacks() const override { return true; }
  bool runsStartupFallbacks() const override { return false; }
  bool callErrorsNameOperatorAndKey() const override { return false; }

  std::optional<std::string> unsupported(const oracle::Action& a,
                                         const model::ModelDispatcher& model) const override {
    using oracle::ActionKind;
    if (a.kind == ActionKind::StartupFallbacks) return "libtorch registered its start-up fallbacks when it loaded";
    // Not yet: the blocks' namespaces would map as the operators' do (fz is kNamespace here), and
    // this side was not built where library blocks were added (docs/c10-harness.md).
    if (a.kind == ActionKind::LibraryBlock) return "library blocks are run on our dispatcher only";
    if (a.kind == ActionKind::NamedKey) {
      if (!a.named || !oracle::registersOnNamedKey(a.named->registration)) return "a named-key action without a registration";
      return namedKeyUnsupported(*a.named);
    }
    if (auto lacking = keysC10Lacks(a)) return *lacking;
    if (oracle::isImpl(a.kind) && a.key && !model::isAliasKey(*a.key) && !model::isRuntimeKey(*a.key)) {
      return "c10 does not check an impl's key (docs/c10-differences.md)";
    }
    if (a.kind == ActionKind::FallbackDirect || a.kind == ActionKind::FallthroughDirect) {
      if (!model::isRuntimeKey(*a.key)) return "c10 does not check a fallback's key (docs/c10-differences.md)";
      if (hasStartupFallback(*a.key)) return "the key has a start-up fallback";
    }
    if (a.kind == ActionKind::FallbackLibrary || a.kind == ActionKind::FallthroughLibrary) {
      if (!model::isAliasKey(*a.key) && !model::isRuntimeKey(*a.key)) {
        return "c10 asserts on a library fallback for a key that is neither alias nor runtime key";
      }
      const auto keys = model::runtimeKeysOfAlias(*a.key);
      for (DispatchKey k : keys) {
        if (hasStartupFallback(k)) return "the key expands to one with a start-up fallback";
        if (keys.size() > 1 && model.fallbackFor(k)) {
          return "c10 registers an alias's keys one by one and keeps those before a taken one "
                 "(docs/c10-differences.md)";
        }
      }
    }
    if ((a.kind == ActionKind::Redispatch || a.kind == ActionKind::RedispatchBoxed) &&
        (a.keys & kUnknownFunctionalityBits) != 0) {
      return "c10 indexes its table out of bounds for functionality bits past the last (model D4)";
    }
    if (const auto it = declared_.find(a.op); it != declared_.end() && a.kind != ActionKind::Schema &&
                                              (oracle::isImpl(a.kind) || oracle::isCall(a.kind) ||
                                               a.kind == ActionKind::Def || a.kind == ActionKind::DefLibrary ||
                                               oracle::isBoxedStackCall(a.kind))) {
      const std::string prefix = std::string(oracle::kDeclaredNamespace) + "::";
      if (!it->second.name.name.starts_with(prefix)) {
        return "a declared operator outside " + prefix + " could name one of libtorch's own";
      }
      if (!it->second.schema && (a.kind == ActionKind::Def || a.kind == ActionKind::DefLibrary)) {
        return "c10 parses schema text with a grammar of its own (docs/c10-differences.md)";
      }
    }
    return std::nullopt;
  }

  oracle::SutOutcome define(int op) override {
    return registerWith([&](Registration& reg) {
      reg.library.emplace(torch::Library::FRAGMENT, std::string(kNamespace), c10::nullopt, kLibraryFile, 0);
      reg.library->def(c10Schema(op).c_str());
    });
  }

  oracle::SutOutcome implement(int op, std::optional<DispatchKey> key, oracle::KernelKind kind,
                               const std::string& kernel) override {
    return implementOn(op, key ? c10::optional<c10::DispatchKey>(toC10(*key)) : c10::nullopt, kind, kernel);
  }

  oracle::SutOutcome fallback(DispatchKey key, oracle::KernelKind kind, bool through_library,
                              const std::string& kernel) override {
    return fallbackOn(toC10(key), kind, through_library, kernel);
  }

  oracle::SutOutcome registerOnNamedKey(const oracle::NamedKeyRegistration& r, int op,
                                        const std::string& kernel) override {
    const std::optional<c10::DispatchKey> key = c10KeyNamed(r.key);
    if (!key) throw std::logic_error("c10 has no dispatch key " + r.key + ": unsupported() skips such an action");
    NamedKeyCount& count = tally()[r.key];
    const oracle::KernelKind kind = oracle::kernelKindOf(r.registration);
    const oracle::SutOutcome outcome =
        oracle::isImpl(r.registration)
            ? implementOn(op, *key, kind, kernel)
            : fallbackOn(*key, kind,
                         r.registration == oracle::ActionKind::FallbackLibrary ||
                             r.registration == oracle::ActionKind::FallthroughLibrary,
                         kernel);
    ++(outcome.ok() ? count.accepted : count.refused);
    return outcome;
  }

  oracle::SutOutcome startupFallbacks() override {
    throw std::logic_error("c10 cannot register its start-up fallbacks again (unsupported() says so)");
  }

  bool deregister(size_t handle) override {
    Registration& reg = registrations_.at(handle);
    computed_.clear();
    const bool was_dropped = reg.dropped;
    reg.library.reset();
    reg.handle.reset();
    reg.dropped = true;
    return !was_dropped;
  }

  void pushGuard(bool include, uint64_t raw_keys) override {
    if (include) {
      guards_.emplace_back(std::make_unique<c10::impl::IncludeDispatchKeyGuard>(toC10Set(raw_keys)));
    } else {
      guards_.emplace_back(std::make_unique<c10::impl::ExcludeDispatchKeyGuard>(toC10Set(raw_keys)));
    }
  }
  void popGuard() override {
    if (!guards_.empty()) guards_.pop_back();
  }
  oracle::TlsKeys threadLocalKeys() const override {
    const auto tls = c10::impl::tls_local_dispatch_key_set();
    const TranslatedSet included = translateC10Set(tls.included_);
    const TranslatedSet excluded = translateC10Set(tls.excluded_);
    oracle::TlsKeys keys{included.raw, excluded.raw, {}};
    // Keys of c10's that the vocabulary lacks (2.x's default excluded set has some) are named,
    // never dropped: they take part in every comparison of the sets.
    for (const auto& name : included.unmapped) keys.unmapped += " included " + name;
    for (const auto& name : excluded.unmapped) keys.unmapped += " excluded " + name;
    return keys;
  }

  void declare(int op, const oracle::DeclaredOp& declared) override { declared_[op] = declared; }

  oracle::SutOutcome defineDeclared(int op, bool) override {
    // A def and a library's schema text both go through a library here: c10's text is our
    // parser's printout of the declared schema (the spelling is a parser matter, not dispatch).
    return registerWith([&](Registration& reg) {
      reg.library.emplace(torch::Library::FRAGMENT, std::string(kNamespace), c10::nullopt, kLibraryFile, 0);
      reg.library->def(c10DeclaredSchema(declared_.at(op)).c_str());
    });
  }

  oracle::SutOutcome implementTyped(int op, std::optional<DispatchKey> key, int signature,
                                    const std::string& kernel) override {
    return registerWith([&](Registration& reg) {
      const c10::optional<c10::DispatchKey> c10_key =
          key ? c10::optional<c10::DispatchKey>(toC10(*key)) : c10::nullopt;
      reg.library.emplace(torch::Library::IMPL, std::string(kNamespace), c10_key, kLibraryFile, 0);
      reg.library->impl(implName(op).c_str(), typedKernel(signature, kernel, &runs_).debug(kernel));
      signatures_.try_emplace(op, signature);
    });
  }

  oracle::SutOutcome callStack(const oracle::StackCall& call) override {
    const auto handle = handleOf(call.op);
    if (!handle) return {std::nullopt, model::ErrorKind::NotFound, false, "no operator " + opName(call.op)};
    const torch::jit::Stack before = buildStack(call.stack);
    torch::jit::Stack stack = before;
    runs_.clear();
    // c10's guards leak backend bits (known upstream guard-backend-bits, which the guard actions
    // report); the call's own guards are undone by restoring the sets, so that the rest of the
    // trace is still compared.
    struct RestoreTls {
      c10::impl::LocalDispatchKeySet saved = c10::impl::tls_local_dispatch_key_set();
      ~RestoreTls() { c10::impl::_force_tls_local_dispatch_key_set(saved); }
    } restore_tls;
    try {
      c10::impl::IncludeDispatchKeyGuard include(toC10Set(call.include));
      c10::impl::ExcludeDispatchKeyGuard exclude(toC10Set(call.exclude));
      switch (call.kind) {
        case oracle::ActionKind::CallBoxed: handle->callBoxed(&stack); break;
        case oracle::ActionKind::RedispatchBoxed: handle->redispatchBoxed(toC10Set(call.redispatch_keys), &stack); break;
        default: handle->callBoxedForDispatchKey(toC10(*call.key), stack); break;
      }
    } catch (const c10::Error& e) {
      return callError(e);
    }
    std::optional<std::vector<ArgType>> returns;
    if (handle->hasSchema()) returns = declared_.at(call.op).schema.value().returns;
    if (auto broken = checkStackAfter(before, stack, runs_, returns)) return {std::nullopt, std::nullopt, true, *broken};
    return {c10KernelResult(runs_.back().kernel, runs_.back().keys), std::nullopt, false, ""};
  }
  bool checksBoxedStacks() const override { return false; }

  oracle::SutOutcome call(oracle::ActionKind kind, int op, uint64_t self_keys,
                          std::optional<uint64_t> other_keys) override {
    const auto handle = findOp(op);
    if (!handle) return {std::nullopt, model::ErrorKind::NotFound, false, "no operator " + c10OpName(op)};
    const at::Tensor self = tensorWithKeys(self_keys);
    const c10::optional<at::Tensor> other =
        other_keys ? c10::optional<at::Tensor>(tensorWithKeys(*other_keys)) : c10::nullopt;
    try {
      if (kind == oracle::ActionKind::CallBoxed) {
        torch::jit::Stack stack{self, other ? c10::IValue(*other) : c10::IValue(), c10::IValue(kTag)};
        handle->callBoxed(&stack);
        if (stack.size() != 1 || !stack.back().isString()) {
          return {std::nullopt, std::nullopt, true, "callBoxed left " + std::to_string(stack.size()) + " values"};
        }
        return {stack.back().toStringRef(), std::nullopt, false, ""};
      }
      const auto typed = handle->typed<Signature>();
      return {kind == oracle::ActionKind::Redispatch ? typed.redispatch(toC10Set(self_keys), self, other, kTag)
                                                     : typed.call(self, other, kTag),
              std::nullopt, false, ""};
    } catch (const c10::Error& e) {
      return callError(e);
    }
  }

  std::optional<std::string> slotACallRuns(oracle::ActionKind kind, int op, uint64_t self_keys,
                                           std::optional<uint64_t> other_keys) const override {
    const auto handle = findOp(op);
    if (!handle) return std::nullopt;
    c10::DispatchKeySet keys = toC10Set(self_keys) | (other_keys ? toC10Set(*other_keys) : c10::DispatchKeySet());
    // A boxed call finds its tensors through the schema: without one it sees none.
    if (kind == oracle::ActionKind::CallBoxed && !handle->hasSchema()) keys = c10::DispatchKeySet();
    // A call adds and removes the thread-local sets (c10's own computeDispatchKeySet); a
    // redispatch takes its set as given and runs its highest slot, fallthrough or not.
    const bool redispatch = kind == oracle::ActionKind::Redispatch;
    if (!redispatch) keys = c10::impl::computeDispatchKeySet(keys, c10::DispatchKeySet(c10::DispatchKeySet::FULL));
    const auto& slots = computedTableOf(*handle).slots;
    for (;;) {
      // An empty set dispatches too: to the Undefined slot (composite kernels serve it).
      const c10::DispatchKey key = keys.highestPriorityTypeId();
      // A per-backend functionality without a backend bit has a slot that the computed table
      // never prints (2.x gives the autograd one libtorch's fallback).
      if (!shownInComputedTables(key)) return oracle::kUnshownSlot;
      const auto it = slots.find(c10::toString(key));
      const std::string slot = it == slots.end() ? "missing" : it->second;
      if (isStartupBoxedFallback(slot)) return oracle::kStartupFallbackSlot;
      if (slot != "fallthrough" || redispatch) return slot;
      if (key == c10::DispatchKey::Undefined) return "missing";
      keys = keys.remove(c10::toFunctionalityKey(key));  // a fallthrough: the next key down
    }
  }

  std::optional<std::string> table(int op) const override {
    const auto handle = handleOf(op);
    if (!handle) return std::nullopt;
    return computedTableOf(*handle).model_words;
  }
  std::optional<std::string> fallbackTable() const override {
    return std::nullopt;  // c10 shows its fallbacks only through the operators' tables
  }
  std::optional<std::string> checkInvariants() const override {
    for (int i = 0; i < oracle::kNumOps; ++i) {
      if (auto broken = checkInvariantsOf(i)) return broken;
    }
    return std::nullopt;
  }
  std::optional<std::string> checkInvariantsOf(int op) const override {
    const auto handle = handleOf(op);
    if (!handle) return std::nullopt;
    try {
      handle->checkInvariants();
    } catch (const c10::Error& e) {
      // The assert's first line, then which slots are stale (its own text prints the
      // registrations and the computed table, never the live one).
      const std::string message = messageOf(e);
      return opName(op) + ": " + message.substr(0, message.find('\n')) + "\n  stale slots " +
             staleSlotsOf(op, *handle) + "\n" + message;
    }
    if (!probe_every_slot_) return std::nullopt;
    if (const std::string stale = staleSlotsOf(op, *handle); stale != "(0)") {
      return opName(op) + ": a live slot differs from the computed table\n  stale slots " + stale + "\n" +
             computedTableOf(*handle).text;
    }
    return std::nullopt;
  }

 private:
  // An impl of operator op on a key of c10's (nullopt: catch-all).
  oracle::SutOutcome implementOn(int op, c10::optional<c10::DispatchKey> c10_key, oracle::KernelKind kind,
                                 const std::string& kernel) {
    return registerWith([&](Registration& reg) {
      reg.library.emplace(torch::Library::IMPL, std::string(kNamespace), c10_key, kLibraryFile, 0);
      if (const auto it = declared_.find(op); it != declared_.end()) {
        reg.library->impl(implName(op).c_str(), kind == oracle::KernelKind::Boxed
                                                    ? declaredBoxedKernel(kernel, it->second, &runs_)
                                                    : makeCppFunction(kind, kernel));
      } else {
        reg.library->impl(("op" + std::to_string(op)).c_str(), makeCppFunction(kind, kernel));
      }
    });
  }

  // A fallback on a key of c10's: through a library (IMPL "_" on the key) or the dispatcher.
  oracle::SutOutcome fallbackOn(c10::DispatchKey key, oracle::KernelKind kind, bool through_library,
                                const std::string& kernel) {
    return registerWith([&](Registration& reg) {
      // In a declared-schema trace a boxed fallback pops the schema's arguments.
      const bool declared = !declared_.empty() && kind == oracle::KernelKind::Boxed;
      if (through_library) {
        reg.library.emplace(torch::Library::IMPL, "_", key, kLibraryFile, 0);
        reg.library->fallback(declared ? declaredBoxedKernel(kernel, std::nullopt, &runs_)
                                       : makeCppFunction(kind, kernel));
      } else {
        reg.handle.emplace(c10::Dispatcher::singleton().registerFallback(
            key, declared ? declaredBoxedFallback(kernel, &runs_) : makeKernelFunction(kind, kernel), kernel));
      }
    });
  }

  struct Registration {
    std::optional<torch::Library> library;                // def, impl, library fallback
    std::optional<c10::RegistrationHandleRAII> handle;    // direct fallback
    bool dropped = false;
  };
  using Guard = std::variant<std::unique_ptr<c10::impl::IncludeDispatchKeyGuard>,
                             std::unique_ptr<c10::impl::ExcludeDispatchKeyGuard>>;

  template <class F>
  oracle::SutOutcome registerWith(F&& make) {
    computed_.clear();  // a refused registration may change a table too: the oracles check that
    Registration reg;
    try {
      make(reg);
    } catch (const c10::Error& e) {
      return registrationError(e);  // reg dies here: whatever it holds is undone
    }
    registrations_.push_back(std::move(reg));
    return {};
  }

  c10::optional<c10::OperatorHandle> handleOf(int op) const {
    const auto it = declared_.find(op);
    if (it == declared_.end()) return findOp(op);
    return c10::Dispatcher::singleton().findOp(c10DeclaredName(it->second.name));
  }
  // The name a library of kNamespace implements a declared operator by: "op0.ov".
  std::string implName(int op) const {
    const c10::OperatorName name = c10DeclaredName(declared_.at(op).name);
    const std::string base = name.name.substr(name.name.find("::") + 2);
    return name.overload_name.empty() ? base : base + "." + name.overload_name;
  }
  // A declared operator's live slots are probed with a stack that fits its schema, else its
  // typed kernels' C++ signature (one per operator), else its own arguments; a boxed kernel that
  // refuses the stack still names itself.
  std::string staleSlotsOf(int op, const c10::OperatorHandle& handle) const {
    const auto it = declared_.find(op);
    if (it == declared_.end()) return staleSlots(handle, computedTableOf(handle), reading_);
    std::vector<ArgType> args = it->second.own_args;
    if (handle.hasSchema()) {
      args.clear();
      for (const auto& arg : it->second.schema.value().arguments) args.push_back(arg.type);
    } else if (const auto typed = signatures_.find(op); typed != signatures_.end()) {
      args = oracle::typedSignatures().at(static_cast<size_t>(typed->second)).args;
    }
    const auto probe = [&](c10::DispatchKey k) {
      torch::jit::Stack stack = fittingStack(args);
      runs_.clear();
      try {
        handle.redispatchBoxed(c10::DispatchKeySet(k), &stack);
      } catch (const c10::Error& e) {
        const std::string message = messageOf(e);
        constexpr std::string_view kRefused = "boxed kernel ";
        const size_t at = message.find(kRefused);
        if (at == std::string::npos || message.find(": the stack does not fit") == std::string::npos) throw;
        const size_t start = at + kRefused.size();
        return message.substr(start, message.find(':', start) - start);
      }
      return runs_.empty() ? std::string("?") : runs_.back().kernel;
    };
    return staleSlots(handle, computedTableOf(handle), probe, reading_);
  }

  // An operator's computed table, printed by c10 once per state: every registration and drop
  // goes through this class and forgets them (a call or guard changes no table).
  const ComputedTable& computedTableOf(const c10::OperatorHandle& handle) const {
    const std::string name = c10::toString(handle.operator_name());
    auto it = computed_.find(name);
    if (it == computed_.end()) it = computed_.emplace(name, computedTable(handle)).first;
    return it->second;
  }

  const bool probe_every_slot_;
  const SlotReading reading_;
  c10::impl::LocalDispatchKeySet saved_tls_;
  std::map<int, oracle::DeclaredOp> declared_;
  std::map<int, int> signatures_;  // each declared operator's first typed kernel's signature
  mutable KernelRuns runs_;  // the kernels of the current declared call (or live-table probe)
  mutable std::map<std::string, ComputedTable> computed_;  // by operator name, since the last change
  std::vector<Registration> registrations_;
  std::vector<Guard> guards_;
};

}  // namespace

std::unique_ptr<oracle::SystemUnderTest> makeC10System(bool probe_every_slot, SlotReading reading) {
  return std::make_unique<C10System>(probe_every_slot, reading);
}

std::map<std::string, NamedKeyCount> namedKeyCounts() { return tally(); }

std::string c10State() {
  std::string state = "probe table:\n" + inModelWords(probeTable());
  for (int i = 0; i < oracle::kNumOps; ++i) {
    if (findOp(i)) state += c10OpName(i) + " exists\n";
  }
  state += "operators: " + std::to_string(c10::Dispatcher::singleton().getAllOpNames().size()) + "\n";
  auto tls = c10::impl::tls_local_dispatch_key_set();
  state += "tls included " + std::to_string(tls.included_.raw_repr()) + " excluded " +
           std::to_string(tls.excluded_.raw_repr()) + "\n";
  return state;
}

std::string keyCoverageReport() {
  const KeyCoverage coverage = keyCoverage();
  std::string out = "only in c10:";
  for (const auto& name : coverage.only_in_c10) out += " " + name;
  out += "\nonly in ours:";
  for (const auto& name : coverage.only_in_ours) out += " " + name;
  // c10's keys the vocabulary still reaches, by name (NamedKey actions), and those it does not.
  std::string reached = "\nonly in c10, reached by name:";
  std::string unreached = "\nonly in c10, not reached:";
  for (const auto& name : coverage.only_in_c10) {
    const bool named = std::find(oracle::kReleaseKeyNames.begin(), oracle::kReleaseKeyNames.end(), name) !=
                       oracle::kReleaseKeyNames.end();
    (named ? reached : unreached) += " " + name;
  }
  return out + reached + unreached + "\n";
}

}  // namespace dispatch::c10_sut
