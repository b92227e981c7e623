#include "oracle/ours/our_dispatcher_sut.h"

#include <stdexcept>
#include <variant>

#include "dispatch/startup_fallbacks.h"
#include "oracle/ours/action_cells.h"
#include "oracle/ours/cell_recorder.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/ours/op_schemas.h"
#include "oracle/ours/registration_release.h"

namespace dispatch::oracle {

namespace {

using Signature = std::string(const Tensor&, const std::optional<Tensor>&, int64_t);
constexpr int64_t kTag = 7;

// The slot a call's lookup reads: the key set after TLS and fallthrough masking (a boxed call
// without a schema sees no tensors); a redispatch uses its key set as given.
template <class L>
void observeCallCell(CellRecorder& cells, const BasicOperatorHandle<L>& handle, ActionKind kind, uint64_t self_keys,
                     const Tensor& self, const std::optional<Tensor>& other) {
  DispatchKeySet ks(DispatchKeySet::RAW, self_keys);
  if (kind != ActionKind::Redispatch) {
    DispatchKeySet args = self.key_set() | (other ? other->key_set() : DispatchKeySet());
    if (kind == ActionKind::CallBoxed && !handle.hasSchema()) args = DispatchKeySet();
    ks = handle.entry().computeDispatchKeySet(args);
  }
  cells.observeCall(handle, ks, toString(kind));
}

}  // namespace

SutOutcome errorOutcome(const Error& e) {
  SutOutcome o;
  o.message = e.what();
  if (dynamic_cast<const AmbiguousAutogradOtherError*>(&e)) {
    o.error = model::ErrorKind::AmbiguousAutogradOther;
  } else if (dynamic_cast<const NotImplementedError*>(&e)) {
    o.error = model::ErrorKind::NotImplemented;
  } else if (dynamic_cast<const InvalidKeyError*>(&e)) {
    o.error = model::ErrorKind::InvalidKey;
  } else if (dynamic_cast<const RegistrationError*>(&e)) {
    o.error = model::ErrorKind::Registration;
  } else if (dynamic_cast<const OperatorNotFoundError*>(&e)) {
    o.error = model::ErrorKind::NotFound;
  } else if (dynamic_cast<const BoxedCallError*>(&e)) {
    o.stack_misfit = true;
  } else if (dynamic_cast<const SchemaError*>(&e) || dynamic_cast<const SignatureMismatchError*>(&e)) {
    o.schema_refused = true;
  } else {
    o.unclassified = true;
  }
  return o;
}

SutOutcome errorOutcome(const Refusal& refusal) {
  SutOutcome o;
  o.message = refusal.message();
  switch (refusal.kind()) {
    case Refusal::Kind::InvalidKey:
      o.error = model::ErrorKind::InvalidKey;
      break;
    case Refusal::Kind::Registration:
      o.error = model::ErrorKind::Registration;
      break;
    case Refusal::Kind::Schema:
    case Refusal::Kind::SignatureMismatch:
      o.schema_refused = true;
      break;
  }
  return o;
}

namespace {

template <class L>
BasicCppFunction<L> makeKernel(KernelKind kind, const std::string& name) {
  using CppFunction = BasicCppFunction<L>;
  switch (kind) {
    case KernelKind::Fallthrough:
      return CppFunction::makeFallthrough().withDebug(name);
    case KernelKind::Typed:
      return CppFunction([name](DispatchKeySet ks, const Tensor&, const std::optional<Tensor>&, int64_t) {
               return kernelResult(name, ks.raw_repr());
             })
          .withDebug(name);
    case KernelKind::Boxed:
      break;
  }
  return CppFunction::makeFromBoxedLambda([name](const BasicOperatorHandle<L>&, DispatchKeySet ks, Stack* stack) {
           stack->erase(stack->end() - static_cast<std::ptrdiff_t>(std::min<size_t>(3, stack->size())),
                        stack->end());
           stack->emplace_back(kernelResult(name, ks.raw_repr()));
         })
      .withDebug(name);
}

}  // namespace

template <class L>
OurDispatcherSut<L>::~OurDispatcherSut() {
  while (!guards_.empty()) guards_.pop_back();                // LIFO: guards restore snapshots
  while (!registrations_.empty()) registrations_.pop_back();  // newest first
}

template <class L>
std::string OurDispatcherSut<L>::name() const {
  return std::string(L::kName);
}

template <class L>
model::Flavour OurDispatcherSut<L>::flavour() const {
  return kModelFlavour<L>;
}

template <class L>
std::string OurDispatcherSut<L>::opName(int op) const {
  const auto it = declared_.find(op);
  return it == declared_.end() ? oracle::opName(op) : toString(it->second.name);
}

template <class L>
OperatorName OurDispatcherSut<L>::operatorName(int op) const {
  const auto it = declared_.find(op);
  return it == declared_.end() ? OperatorName{oracle::opName(op), ""} : it->second.name;
}

namespace {
// A direct registration's outcome; when it succeeded, what the recorder says of it is checked
// (call_witness.h).
SutOutcome witnessed(SutOutcome outcome, uint64_t before, flight_recorder::EventKind kind, const std::string& op,
                     DispatchKey key) {
  if (!outcome.ok()) return outcome;
  if (auto wrong = CallWitness::registrationMisreported(before, kind, op, key)) outcome.misreported = *wrong;
  return outcome;
}
}  // namespace

template <class L>
SutOutcome OurDispatcherSut<L>::define(int op) {
  const uint64_t before = CallWitness::newestEvent();
  FunctionSchema schema = parsedOpSchema(op);
  const std::string name = toString(schema.name);
  return witnessed(registerWith([&](Registration& reg) {
                     return keepHandle(reg.handle, dispatcher_.tryRegisterDef(std::move(schema), "def " + opName(op)));
                   }),
                   before, flight_recorder::EventKind::RegisterDef, name, DispatchKey::Undefined);
}

template <class L>
SutOutcome OurDispatcherSut<L>::implement(int op, std::optional<DispatchKey> key, KernelKind kind,
                                          const std::string& kernel) {
  const uint64_t before = CallWitness::newestEvent();
  SutOutcome outcome = registerWith([&](Registration& reg) {
    BasicCppFunction<L> f = declared_.count(op) && kind == KernelKind::Boxed ? declaredBoxedKernel(op, kernel)
                                                                            : makeKernel<L>(kind, kernel);
    return keepHandle(reg.handle, dispatcher_.tryRegisterImpl(operatorName(op), key, std::move(f.kernel_),
                                                              std::move(f.cpp_signature_),
                                                              std::move(f.inferred_schema_), kernel));
  });
  return witnessed(std::move(outcome), before, flight_recorder::EventKind::RegisterImpl, toString(operatorName(op)),
                   key.value_or(DispatchKey::CompositeImplicitAutograd));
}

template <class L>
SutOutcome OurDispatcherSut<L>::fallback(DispatchKey key, KernelKind kind, bool through_library,
                                         const std::string& kernel) {
  const uint64_t before = CallWitness::newestEvent();
  SutOutcome outcome = registerWith([&](Registration& reg) {
    // In a declared-schema trace a boxed fallback pops the schema's arguments.
    auto f = [&] {
      return !declared_.empty() && kind == KernelKind::Boxed ? declaredBoxedKernel(std::nullopt, kernel)
                                                             : makeKernel<L>(kind, kernel);
    };
    if (!through_library) return keepHandle(reg.handle, dispatcher_.tryRegisterFallback(key, f().kernel_, kernel));
    BasicLibrary<L> library(BasicLibrary<L>::Kind::IMPL, "_", key, dispatcher_);
    std::optional<Refusal> refusal = library.tryFallback(f());
    if (!refusal) reg.libraries.push_back(std::move(library));
    return refusal;
  });
  // A library fallback records one event per runtime key its flavour has a slot for (maybe none).
  if (through_library) return outcome;
  return witnessed(std::move(outcome), before, flight_recorder::EventKind::RegisterFallback, "", key);
}

template <class L>
SutOutcome OurDispatcherSut<L>::startupFallbacks() {
  return registerWith([&](Registration& reg) { reg.libraries = registerStartupFallbacks(dispatcher_); });
}

template <class L>
SutOutcome OurDispatcherSut<L>::libraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key,
                                             const std::string& kernel) {
  using Library = BasicLibrary<L>;
  static constexpr typename Library::Kind kKinds[] = {Library::Kind::DEF, Library::Kind::IMPL, Library::Kind::FRAGMENT};
  return registerWith([&](Registration& reg) -> std::optional<Refusal> {
    // Each block has a place of its own ("registered at library_block:N"), as blocks in a
    // program do: two blocks never share that text. The try forms: the fuzzers refuse blocks
    // all the time, and an exception per refusal is slow under ASan's fake stack.
    std::variant<Library, Refusal> opened =
        Library::tryOpen(kKinds[static_cast<size_t>(block.kind)], std::string(kLibraryNamespaces[block.ns]), key,
                         dispatcher_, "library_block", ++blocks_opened_);
    if (Refusal* refusal = std::get_if<Refusal>(&opened)) return std::move(*refusal);
    Library& library = std::get<Library>(opened);
    std::optional<Refusal> refusal;
    if (block.body == LibraryBody::Def) refusal = library.tryDef(opSchema(op));
    if (isLibraryImpl(block.body)) {
      refusal = library.tryImpl(block.qualified ? oracle::opName(op) : "op" + std::to_string(op),
                                makeKernel<L>(kernelKindOf(block.body), kernel));
    }
    if (!refusal) reg.libraries.push_back(std::move(library));
    return refusal;
  });
}

template <class L>
bool OurDispatcherSut<L>::deregister(size_t handle) {
  return !releaseRegistration(registrations_.at(handle));
}

template <class L>
void OurDispatcherSut<L>::pushGuard(bool include, uint64_t raw_keys) {
  const DispatchKeySet keys(DispatchKeySet::RAW, raw_keys);
  if (include) {
    guards_.emplace_back(std::make_unique<IncludeDispatchKeyGuard>(keys));
  } else {
    guards_.emplace_back(std::make_unique<ExcludeDispatchKeyGuard>(keys));
  }
}

template <class L>
void OurDispatcherSut<L>::popGuard() {
  if (!guards_.empty()) guards_.pop_back();
}

template <class L>
TlsKeys OurDispatcherSut<L>::threadLocalKeys() const {
  const auto tls = tls_local_dispatch_key_set();
  return {tls.included.raw_repr(), tls.excluded.raw_repr(), ""};
}

template <class L>
SutOutcome OurDispatcherSut<L>::call(ActionKind kind, int op, uint64_t self_keys,
                                     std::optional<uint64_t> other_keys) {
  const std::string name = opName(op);
  auto handle = dispatcher_.findOp(OperatorName{name, ""});
  if (!handle) return {std::nullopt, model::ErrorKind::NotFound, false, "no operator " + name};
  const Tensor self(DispatchKeySet(DispatchKeySet::RAW, self_keys));
  const std::optional<Tensor> other =
      other_keys ? std::optional<Tensor>(Tensor(DispatchKeySet(DispatchKeySet::RAW, *other_keys))) : std::nullopt;
  if (CellRecorder* cells = CellRecorder::active()) observeCallCell(*cells, *handle, kind, self_keys, self, other);
  try {
    const CallWitness::Watch watch(witness_);
    std::string result;
    if (kind == ActionKind::CallBoxed) {
      Stack stack{Value(self), other ? Value(*other) : Value(), Value(kTag)};
      handle->callBoxed(stack);
      if (stack.size() != 1) throw std::logic_error("callBoxed left " + std::to_string(stack.size()) + " values");
      result = stack.back().toString();
    } else {
      const auto typed = handle->template typed<Signature>();
      result = kind == ActionKind::Redispatch
                   ? typed.redispatch(DispatchKeySet(DispatchKeySet::RAW, self_keys), self, other, kTag)
                   : typed.call(self, other, kTag);
    }
    SutOutcome outcome{result, std::nullopt, false, ""};
    const std::optional<KernelResultParts> ran = parseKernelResult(result);
    if (!ran) throw std::logic_error("a kernel of the harness returned " + result);
    if (auto wrong = witness_.misreport(name, callKindOf(kind), ran->kernel, ran->keys)) outcome.misreported = *wrong;
    return outcome;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    return errorOutcome(e);
  }
}

template <class L>
std::optional<std::string> OurDispatcherSut<L>::table(int op) const {
  const auto handle = dispatcher_.findOp(operatorName(op));
  if (!handle) return std::nullopt;
  return handle->dumpDispatchTable();  // the live table, tags included
}

template <class L>
std::optional<std::string> OurDispatcherSut<L>::checkInvariants() const {
  dispatcher_.checkInvariants();  // a stale or inconsistent table throws InternalError: a library bug
  return std::nullopt;
}

template <class L>
void OurDispatcherSut<L>::beforeAction(const Action& a) {
  if (CellRecorder* cells = CellRecorder::active()) observeActionKeys<L>(*cells, a);
}

template <class L>
void OurDispatcherSut<L>::afterAction(const Action&) {
  if (CellRecorder* cells = CellRecorder::active()) cells->observeTables(dispatcher_);
}

#define DISPATCH_ORACLE_INSTANTIATE_SUT(L) template class OurDispatcherSut<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_INSTANTIATE_SUT)
#undef DISPATCH_ORACLE_INSTANTIATE_SUT

}  // namespace dispatch::oracle
