// Reference model, part 2: registrations, computed entries, fallbacks, calls.
// Plain code on purpose; every rule cites the spec section it restates.

#include "oracle/model/model_dispatcher.h"

#include "oracle/model/model_key_facts.h"

#include <algorithm>
#include <stdexcept>
#include <ostream>
#include <sstream>
#include <utility>

namespace dispatch::model {
namespace {

using DK = DispatchKey;

Error makeError(ErrorKind kind, std::string message, std::optional<DK> key = std::nullopt) {
  return Error{kind, std::move(message), key};
}

RegistrationResult failed(Error e) { return RegistrationResult{std::nullopt, std::move(e)}; }

// "CPU" for enum values, "UNKNOWN_TENSOR_TYPE_ID (value 200)" for anything else.
std::string describeKey(DK k) {
  if (isValidKey(k)) return keyName(k);
  return keyName(k) + " (value " + std::to_string(toUnderlying(k)) + ")";
}

CallOutcome callError(Error e) { return CallOutcome{std::nullopt, std::move(e)}; }

// tableIndex(k, f), read from the precomputed facts for enum values.
int slotIndex(DK k, Flavour f) { return isValidKey(k) ? keyFacts(k).index(f) : tableIndex(k, f); }

}  // namespace

// =============================================================================================
// Printing
// =============================================================================================

std::string toString(ErrorKind k) {
  switch (k) {
    case ErrorKind::InvalidKey: return "InvalidKey";
    case ErrorKind::Registration: return "Registration";
    case ErrorKind::NotFound: return "NotFound";
    case ErrorKind::NotImplemented: return "NotImplemented";
    case ErrorKind::AmbiguousAutogradOther: return "AmbiguousAutogradOther";
  }
  return "UnknownErrorKind";
}

std::string toString(const Error& e) {
  std::string out = toString(e.kind);
  if (e.key) out += "(key=" + describeKey(*e.key) + ")";
  return out + ": " + e.message;
}

std::ostream& operator<<(std::ostream& out, const Error& e) { return out << toString(e); }

std::string toString(const RegistrationResult& r) {
  if (r.ok()) return "ok id=" + std::to_string(*r.id);
  return "error " + (r.error ? toString(*r.error) : std::string("<none>"));
}

std::string toString(const Status& s) { return s.ok() ? "ok" : "error " + toString(*s.error); }

std::string toString(EntryKind k) {
  switch (k) {
    case EntryKind::Kernel: return "Kernel";
    case EntryKind::Fallthrough: return "Fallthrough";
    case EntryKind::Ambiguous: return "Ambiguous";
    case EntryKind::Missing: return "Missing";
  }
  return "UnknownEntryKind";
}

std::string toString(const ComputedEntry& e) {
  if (e.kind == EntryKind::Missing) return "<missing> [" + std::string(e.tag) + "]";
  return (e.kind == EntryKind::Fallthrough ? "fallthrough " : "") + e.debug + " [" + std::string(e.tag) + "]";
}

std::string toString(const CallOutcome& c) {
  if (c.success) return "runs " + c.success->kernel + " with " + toString(c.success->keys);
  if (c.error) return "error " + toString(*c.error);
  return "<empty outcome>";
}

std::ostream& operator<<(std::ostream& out, const CallOutcome& c) { return out << toString(c); }

// =============================================================================================
// Registration (docs/semantics.md §5.2, 5.3, 4.3)
// =============================================================================================

ModelDispatcher::ModelDispatcher(Flavour flavour) : flavour_(flavour) {}

RegistrationResult ModelDispatcher::def(const std::string& op, int num_args) {
  // docs/semantics.md §5.2 registerDef step 2: at most one live def per operator name.
  if (const Operator* existing = findOp(op); existing != nullptr && existing->def_id) {
    return failed(makeError(
        ErrorKind::Registration,
        "Tried to register an operator (" + op +
            ") with the same name and overload name multiple times. Original registration: id " +
            std::to_string(*existing->def_id)));
  }
  const RegistrationId id = next_id_++;
  Operator& o = findOrCreateOp(op);
  o.num_args = num_args;
  o.def_id = id;
  registrations_[id] = Registration{RegKind::Def, op, DK::Undefined, {}};
  rows_.erase(op);
  return RegistrationResult{id, std::nullopt};
}

RegistrationResult ModelDispatcher::impl(const std::string& op, std::optional<DispatchKey> key,
                                         const std::string& kernel, bool fallthrough) {
  // docs/semantics.md §4.3 step 3: a catch-all is stored under CompositeImplicitAutograd.
  const DK storage_key = key.value_or(DK::CompositeImplicitAutograd);
  if (!isValidKey(storage_key) || !(isAliasKey(storage_key) || isRuntimeKey(storage_key))) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "impl of '" + op + "': " + describeKey(storage_key) +
                                " is neither a runtime key nor an alias key"));
  }
  const RegistrationId id = next_id_++;
  // docs/semantics.md §4.3 step 4: newest first (an override is only a warning in c10).
  auto& stack = findOrCreateOp(op).kernels[static_cast<size_t>(toUnderlying(storage_key))];
  stack.insert(stack.begin(), Kernel{id, kernel, fallthrough});
  registrations_[id] = Registration{RegKind::Impl, op, storage_key, {}};
  rows_.erase(op);
  return RegistrationResult{id, std::nullopt};
}

RegistrationResult ModelDispatcher::fallbackDirect(DispatchKey key, const std::string& debug,
                                                   bool fallthrough) {
  // docs/semantics.md §5.3 registerFallback, with the bounds check of the re-land (docs/semantics.md §6.4).
  if (!isValidKey(key)) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "registerFallback: " + describeKey(key) + " is not a dispatch key"));
  }
  if (isAliasKey(key)) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "registerFallback: " + keyName(key) +
                                " is an alias key; use a library fallback to expand aliases"));
  }
  if (!isRuntimeKey(key)) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "registerFallback: " + keyName(key) + " is not a runtime key"));
  }
  const int idx = slotIndex(key, flavour_);
  if (idx < 0) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "registerFallback: " + keyName(key) + " has no slot in the " +
                                toString(flavour_) + " table (idx=" + std::to_string(idx) + ")"));
  }
  return registerFallbacks({key}, debug, fallthrough);
}

RegistrationResult ModelDispatcher::fallbackLibrary(DispatchKey key, const std::string& debug,
                                                    bool fallthrough) {
  // docs/semantics.md §5.3 Library::_fallback: expand, then skip keys without a slot (docs/semantics.md §6.4).
  if (!isValidKey(key)) {
    return failed(makeError(ErrorKind::InvalidKey,
                            "fallback: " + describeKey(key) + " is not a dispatch key"));
  }
  std::vector<DK> keys;
  for (DK k : runtimeKeysOfAlias(key)) {
    if (slotIndex(k, flavour_) >= 0) keys.push_back(k);
  }
  return registerFallbacks(keys, debug, fallthrough);
}

RegistrationResult ModelDispatcher::registerFallbacks(const std::vector<DispatchKey>& keys,
                                                      const std::string& debug,
                                                      bool fallthrough) {
  // All or nothing: check every slot before touching any.
  for (DK k : keys) {
    const int idx = slotIndex(k, flavour_);
    if (const auto it = fallbacks_.find(idx); it != fallbacks_.end()) {
      return failed(makeError(
          ErrorKind::Registration,
          "Tried to register multiple backend fallbacks for the same dispatch key " + keyName(k) +
              "; previous registration id " + std::to_string(it->second.id) + " (" +
              it->second.debug + "), new registration " + debug));
    }
  }
  const RegistrationId id = next_id_++;
  Registration reg{RegKind::Fallback, "", DK::Undefined, {}};
  for (DK k : keys) {
    const int idx = slotIndex(k, flavour_);
    fallbacks_[idx] = FallbackSlot{k, debug, fallthrough, id};
    reg.slots.push_back(idx);
  }
  registrations_[id] = reg;
  refreshSlots(reg.slots);
  return RegistrationResult{id, std::nullopt};
}

RegistrationResult ModelDispatcher::openLibrary(const std::string& ns, bool claims_namespace) {
  if (claims_namespace) {
    if (const auto it = namespaces_.find(ns); it != namespaces_.end()) {
      return failed(makeError(ErrorKind::Registration,
                              "Only a single library block can be used to register the namespace " + ns +
                                  "; previous registration id " + std::to_string(it->second)));
    }
  }
  const RegistrationId id = next_id_++;
  if (claims_namespace) namespaces_[ns] = id;
  registrations_[id] = Registration{RegKind::Library, claims_namespace ? ns : std::string(), DK::Undefined, {}};
  return RegistrationResult{id, std::nullopt};
}

Status ModelDispatcher::drop(RegistrationId id) {
  const auto it = registrations_.find(id);
  if (it == registrations_.end()) {
    return Status{makeError(ErrorKind::Registration,
                            "registration id " + std::to_string(id) +
                                " is unknown or was already dropped")};
  }
  const Registration reg = it->second;
  registrations_.erase(it);
  switch (reg.kind) {
    case RegKind::Def: {
      // docs/semantics.md §5.2: the def handle removes the schema.
      Operator& o = ops_.at(reg.op);
      o.num_args.reset();
      o.def_id.reset();
      break;
    }
    case RegKind::Impl: {
      // docs/semantics.md §4.3 deregisterKernel_: erase that exact registration, wherever it sits.
      auto& stack = ops_.at(reg.op).kernels.at(static_cast<size_t>(toUnderlying(reg.key)));
      stack.erase(std::remove_if(stack.begin(), stack.end(),
                                 [id](const Kernel& k) { return k.id == id; }),
                  stack.end());
      break;
    }
    case RegKind::Fallback:
      for (int slot : reg.slots) fallbacks_.erase(slot);
      refreshSlots(reg.slots);
      return Status{};
    case RegKind::Library:
      if (!reg.op.empty()) namespaces_.erase(reg.op);
      return Status{};
  }
  rows_.erase(reg.op);
  // docs/semantics.md §5.2 cleanup: the operator disappears with its last def/impl registration.
  const Operator& o = ops_.at(reg.op);
  const bool has_kernels = std::any_of(o.kernels.begin(), o.kernels.end(),
                                       [](const std::vector<Kernel>& stack) { return !stack.empty(); });
  if (!o.def_id && !has_kernels) ops_.erase(reg.op);
  return Status{};
}

// =============================================================================================
// Introspection
// =============================================================================================

const ModelDispatcher::Operator* ModelDispatcher::findOp(const std::string& op) const {
  const auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : &it->second;
}

const std::vector<ModelDispatcher::Kernel> ModelDispatcher::kNoKernels;

ModelDispatcher::Operator& ModelDispatcher::findOrCreateOp(const std::string& op) {
  Operator& o = ops_[op];
  if (o.kernels.empty()) o.kernels.resize(numKeyValues());
  return o;
}

bool ModelDispatcher::hasOperator(const std::string& op) const { return findOp(op) != nullptr; }

bool ModelDispatcher::hasSchema(const std::string& op) const {
  const Operator* o = findOp(op);
  return o != nullptr && o->num_args.has_value();
}

std::optional<int> ModelDispatcher::schemaNumArgs(const std::string& op) const {
  const Operator* o = findOp(op);
  return o == nullptr ? std::nullopt : o->num_args;
}

std::vector<std::string> ModelDispatcher::operatorNames() const {
  std::vector<std::string> names;
  for (const auto& [name, o] : ops_) names.push_back(name);
  return names;
}

std::vector<RegistrationId> ModelDispatcher::liveRegistrations() const {
  std::vector<RegistrationId> ids;
  for (const auto& [id, reg] : registrations_) ids.push_back(id);
  return ids;
}

std::vector<std::string> ModelDispatcher::kernelStack(const std::string& op,
                                                      DispatchKey key) const {
  std::vector<std::string> names;
  for (const Kernel& k : stackOf(findOp(op), key)) {
    names.push_back((k.fallthrough ? "fallthrough " : "") + k.debug);
  }
  return names;
}

bool ModelDispatcher::hasKernelForDispatchKey(const std::string& op, DispatchKey key) const {
  return !stackOf(findOp(op), key).empty();
}

std::optional<FallbackSlot> ModelDispatcher::fallbackFor(DispatchKey key) const {
  const int idx = slotIndex(key, flavour_);
  if (idx < 0) return std::nullopt;
  const auto it = fallbacks_.find(idx);
  if (it == fallbacks_.end()) return std::nullopt;
  return it->second;
}

// =============================================================================================
// Computed entries (docs/semantics.md §4.4)
// =============================================================================================

bool ModelDispatcher::hasAliasKernel(const Operator* op, DispatchKey alias) const {
  return !stackOf(op, alias).empty();
}

const ModelDispatcher::Kernel& ModelDispatcher::front(const Operator* op, DispatchKey key) const {
  return stackOf(op, key).front();  // newest registration wins (docs/semantics.md §4.3)
}

bool ModelDispatcher::hasKernelForAnyDispatchKey(const Operator* op,
                                                 const std::vector<DispatchKey>& runtime_keys) const {
  // docs/semantics.md §4.4 step 4 / 4.8: some NON-alias key with a kernel is in ks. A kernel's
  // key is an alias or a runtime key, and a runtime key is in ks exactly when it is one of
  // ks.runtimeKeys(): so each of those is looked up.
  return std::any_of(runtime_keys.begin(), runtime_keys.end(),
                     [&](DispatchKey k) { return !stackOf(op, k).empty(); });
}

ComputedEntry ModelDispatcher::fromKernel(const Kernel& k, std::string_view tag) const {
  return ComputedEntry{k.fallthrough ? EntryKind::Fallthrough : EntryKind::Kernel, k.debug, tag};
}

ComputedEntry ModelDispatcher::computedEntry(const std::string& op_name, DispatchKey k) const {
  return entryOf(findOp(op_name), k);
}

ComputedEntry ModelDispatcher::entryOf(const Operator* op, DispatchKey k) const {
  // isIncludedInAlias, getBackendKeySetFromAutograd and tableIndex of k, looked up.
  const KeyFacts* found = findKeyFacts(k);
  if (k != DK::Undefined && !(found != nullptr && found->runtime)) {  // isRuntimeKey(k)
    return ComputedEntry{EntryKind::Missing, std::string(), tags::kNotARuntimeKey};
  }
  const KeyFacts& facts = *found;  // Undefined is an enum value too
  const DK CEANF = DK::CompositeExplicitAutogradNonFunctional;
  const DK CEA = DK::CompositeExplicitAutograd;
  const DK CIA = DK::CompositeImplicitAutograd;
  const DK CIANested = DK::CompositeImplicitAutogradNestedTensor;
  const bool undefined = k == DK::Undefined;

  // Step 1: a kernel registered directly to k.
  if (!stackOf(op, k).empty()) return fromKernel(front(op, k), tags::kKernel);

  // Step 2: CompositeExplicitAutogradNonFunctional.
  if ((undefined || facts.included(AliasStep::CEANF)) && hasAliasKernel(op, CEANF)) {
    return fromKernel(front(op, CEANF), tags::kDefaultBackendKernel);
  }

  // Step 3: CompositeExplicitAutograd.
  if ((undefined || facts.included(AliasStep::CEA)) && hasAliasKernel(op, CEA)) {
    return fromKernel(front(op, CEA), tags::kDefaultBackendKernel);
  }

  // Step 4: does a backend kernel exist for k? For Autograd<X>, a kernel on X; for any k, a
  // CEA kernel (which therefore switches CIA off for every key). Only step 6 asks.
  auto has_backend_kernel = [&] {
    return hasKernelForAnyDispatchKey(op, facts.autograd_backend_keys) || hasAliasKernel(op, CEA);
  };

  // Step 5: CompositeImplicitAutogradNestedTensor (never for Undefined).
  if (!undefined && facts.included(AliasStep::CIANested) && hasAliasKernel(op, CIANested)) {
    return fromKernel(front(op, CIANested), tags::kNestedKernel);
  }

  // Step 6: CompositeImplicitAutograd ("math").
  if ((undefined || facts.included(AliasStep::CIA)) && hasAliasKernel(op, CIA)) {
    // docs/semantics.md §4.6: AutogradOther is ambiguous when any backend mapped to it has a kernel.
    static const std::vector<DK> autograd_other_backend_keys = autogradOtherBackends().runtimeKeys();
    if (k == DK::AutogradOther && hasKernelForAnyDispatchKey(op, autograd_other_backend_keys)) {
      return ComputedEntry{EntryKind::Ambiguous, std::string(kAmbiguousKernelName),
                           tags::kAmbiguousAutogradOther};
    }
    if (!has_backend_kernel()) return fromKernel(front(op, CIA), tags::kMathKernel);
    // Otherwise fall through to the next step.
  }

  // Step 7: the Autograd alias.
  if (facts.included(AliasStep::Autograd) && hasAliasKernel(op, DK::Autograd)) {
    return fromKernel(front(op, DK::Autograd), tags::kAutogradKernel);
  }

  // Step 8: the backend fallback of k's slot; keys the flavour has no slot for are
  // missing (docs/semantics.md §6.2).
  const int idx = facts.index(flavour_);
  if (idx < 0) return ComputedEntry{EntryKind::Missing, std::string(), tags::kNoSlotInFlavour};
  if (const auto it = fallbacks_.find(idx); it != fallbacks_.end()) {
    const FallbackSlot& fb = it->second;
    return ComputedEntry{fb.fallthrough ? EntryKind::Fallthrough : EntryKind::Kernel, fb.debug,
                         tags::kBackendFallback};
  }

  // Step 9: missing.
  return ComputedEntry{EntryKind::Missing, std::string(), tags::kMissing};
}

const ModelDispatcher::ComputedRow& ModelDispatcher::computedRow(const std::string& op) const {
  auto it = rows_.find(op);
  if (it == rows_.end()) it = rows_.emplace(op, recomputedRow(op)).first;
  return it->second;
}

ModelDispatcher::ComputedRow ModelDispatcher::recomputedRow(const std::string& op) const {
  const Operator* o = findOp(op);
  const std::vector<DK>& slot_keys = tableSlots(flavour_);
  ComputedRow row;
  row.reserve(slot_keys.size());
  for (DK k : slot_keys) row.push_back(entryOf(o, k));
  return row;
}

void ModelDispatcher::refreshSlots(const std::vector<int>& slots) {
  // docs/semantics.md §4.4 step 8: an entry reads the fallbacks only through the slot of its own
  // key, so a fallback change leaves every other entry of a memoised row as it was.
  const std::vector<DK>& slot_keys = tableSlots(flavour_);
  for (auto& [op, row] : rows_) {
    const Operator* o = findOp(op);
    for (int slot : slots) {
      row.at(static_cast<size_t>(slot)) = entryOf(o, slot_keys.at(static_cast<size_t>(slot)));
    }
  }
}

std::string ModelDispatcher::dumpComputedTable(const std::string& op) const {
  return dumpRow(recomputedRow(op));
}

std::string ModelDispatcher::dumpRow(const ComputedRow& row) const {
  // docs/semantics.md §4.8: Undefined, then FULL in ascending priority; only keys with a slot and a kernel.
  const std::vector<DK>& slot_keys = tableSlots(flavour_);
  std::string out;
  for (const int slot : slotsInPrintOrder(flavour_)) {
    const ComputedEntry& e = row.at(static_cast<size_t>(slot));
    if (e.kind == EntryKind::Missing) continue;
    out.append(keyName(slot_keys[static_cast<size_t>(slot)])).append(": ");
    if (e.kind == EntryKind::Fallthrough) out.append("fallthrough ");
    out.append(e.debug).append(" [").append(e.tag).append("]\n");
  }
  return out;
}

std::string ModelDispatcher::dumpFallbacks() const {
  // Every occupied slot, its runtime key's line in ascending priority (the order of §4.8).
  const std::vector<DK>& slot_keys = tableSlots(flavour_);
  std::string out;
  for (const int slot : slotsInPrintOrder(flavour_)) {
    const DK k = slot_keys[static_cast<size_t>(slot)];
    const auto it = fallbacks_.find(slot);
    if (k == DK::Undefined || it == fallbacks_.end()) continue;
    out.append(keyName(k)).append(": ");
    if (it->second.fallthrough) out.append("fallthrough ");
    out.append(it->second.debug).append("\n");
  }
  return out;
}

// =============================================================================================
// Calls (docs/semantics.md §4.8, 4.9, 5.5, 5.6)
// =============================================================================================

KeySet ModelDispatcher::nonFallthroughMask(const std::string& op, int backend_index) const {
  // docs/semantics.md §4.9: the per-backend mask nonFallthroughKeysPerBackend_[backend_index]. A plain
  // functionality is removed when its own entry is a fallthrough; a per-backend one when its
  // instance on this backend is. Keys without a slot are never updated, so never removed.
  const auto backend = static_cast<size_t>(backend_index);
  if (backend >= allBackends().size()) throw std::out_of_range("nonFallthroughMask: backend index");
  KeySet mask = KeySet::full();
  const ComputedRow& row = computedRow(op);
  for (DK functionality : allFunctionalities()) {
    // perBackendInstance(functionality, allBackends()[backend]) for a per-backend one.
    const KeyFacts& facts = keyFacts(functionality);
    const DK k = facts.per_backend_functionality ? facts.instance_of_backend[backend] : functionality;
    const int idx = keyFacts(k).index(flavour_);
    if (idx < 0) continue;
    // row[idx] is computedEntry(op, k): k is the key of its own slot.
    if (row[static_cast<size_t>(idx)].kind == EntryKind::Fallthrough) {
      mask = mask.remove(functionality);
    }
  }
  return mask;
}

KeySet ModelDispatcher::finalKeySet(const std::string& op, const KeySet& args,
                                    const KeySet& tls_included,
                                    const KeySet& tls_excluded) const {
  // docs/semantics.md §5.5: ((args | included) - excluded) & mask, the mask chosen by the backend index of
  // the ARGUMENTS alone, before TLS (1.13 behaviour, docs/semantics.md §4.9 "#141581").
  const KeySet with_tls = (args | tls_included) - tls_excluded;
  return with_tls & nonFallthroughMask(op, args.getBackendIndex());
}

CallOutcome ModelDispatcher::call(const std::string& op, const KeySet& args,
                                  const KeySet& tls_included, const KeySet& tls_excluded) const {
  if (!hasOperator(op)) {
    return callError(makeError(ErrorKind::NotFound, "operator '" + op + "' is not registered"));
  }
  return lookup(op, finalKeySet(op, args, tls_included, tls_excluded));
}

CallOutcome ModelDispatcher::call(const std::string& op, const KeySet& args) const {
  return call(op, args, defaultIncludedSet(), defaultExcludedSet());
}

CallOutcome ModelDispatcher::redispatch(const std::string& op, const KeySet& ks) const {
  // docs/semantics.md §5.6: ks exactly as given; no TLS, no mask.
  if (!hasOperator(op)) {
    return callError(makeError(ErrorKind::NotFound, "operator '" + op + "' is not registered"));
  }
  return lookup(op, ks);
}

CallOutcome ModelDispatcher::lookup(const std::string& op, const KeySet& ks) const {
  // docs/semantics.md §4.8 lookup / reportError.
  const DK type_id = ks.highestPriorityTypeId();
  const int idx = tableIndex(ks, flavour_);
  if (idx < 0) {
    return callError(makeError(ErrorKind::NotImplemented,
                               "Could not run '" + op + "' with arguments from the '" +
                                   describeKey(type_id) + "' backend: no slot in the " +
                                   toString(flavour_) + " table for " + toDebugString(ks),
                               type_id));
  }
  const DK slot_key = tableSlots(flavour_)[static_cast<size_t>(idx)];
  const ComputedEntry& entry = computedRow(op)[static_cast<size_t>(idx)];
  switch (entry.kind) {
    case EntryKind::Missing:
      if (type_id == DK::Undefined) {
        return callError(makeError(
            ErrorKind::NotImplemented,
            "There were no tensor arguments to this function (e.g., you passed an empty list of "
            "Tensors), but no fallback function is registered for schema " + op,
            DK::Undefined));
      }
      return callError(makeError(ErrorKind::NotImplemented,
                                 "Could not run '" + op + "' with arguments from the '" +
                                     describeKey(type_id) + "' backend (slot " +
                                     std::to_string(idx) + " " + keyName(slot_key) + ": " +
                                     std::string(entry.tag) + ")",
                                 type_id));
    case EntryKind::Ambiguous:
      return callError(makeError(ErrorKind::AmbiguousAutogradOther,
                                 op + " has kernels registered to both CompositeImplicitAutograd "
                                      "and a backend mapped to AutogradOther",
                                 type_id));
    case EntryKind::Fallthrough:
      return callError(makeError(ErrorKind::NotImplemented,
                                 "fallthrough kernel called: '" + op + "' reached the fallthrough " +
                                     entry.debug + " [" + std::string(entry.tag) + "] of " + keyName(slot_key),
                                 type_id));
    case EntryKind::Kernel:
      return CallOutcome{CallSuccess{entry.debug, ks}, std::nullopt};
  }
  return callError(makeError(ErrorKind::NotImplemented, "unreachable", type_id));
}

std::string ModelDispatcher::dumpState() const {
  std::ostringstream out;
  out << "ModelDispatcher(" << toString(flavour_) << ")\n";
  for (const auto& [name, o] : ops_) {
    out << "  op " << name << ": ";
    if (o.num_args) {
      out << "schema " << *o.num_args << " args (def id " << *o.def_id << ")\n";
    } else {
      out << "no schema\n";
    }
    for (size_t value = 0; value < o.kernels.size(); ++value) {
      const auto key = static_cast<DK>(value);
      const std::vector<Kernel>& stack = o.kernels[value];
      if (stack.empty()) continue;
      out << "    " << keyName(key) << (isAliasKey(key) ? " [alias]" : "") << ":";
      bool first = true;
      for (const Kernel& k : stack) {
        out << " " << (k.fallthrough ? "fallthrough " : "") << k.debug << " (id " << k.id << ")"
            << (first ? "" : " (inactive)");
        first = false;
      }
      out << "\n";
    }
  }
  out << "  fallbacks:";
  if (fallbacks_.empty()) out << " none";
  out << "\n";
  for (const auto& [slot, fb] : fallbacks_) {
    out << "    slot " << slot << " " << keyName(fb.key) << ": "
        << (fb.fallthrough ? "fallthrough " : "") << fb.debug << " (id " << fb.id << ")\n";
  }
  for (const auto& [ns, id] : namespaces_) out << "  namespace " << ns << " claimed (id " << id << ")\n";
  return out.str();
}

}  // namespace dispatch::model
