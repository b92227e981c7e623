// SeamRunner's declared-schema actions (boxed_call_fuzzer's vocabulary): the Schema prologue,
// defs of declared schemas (directly or as a library's schema text), typed kernels of chosen
// C++ signatures, and boxed calls on stacks of any shape. What the model does not model (its
// D16: schemas against inferred schemas, sticky C++ signatures, stacks against schemas) the
// runner predicts here, as docs/semantics.md §4.2, 4.3 and 5.4 state it.

#include "dispatch/dispatch_key_set.h"
#include "oracle/runner/model_actions.h"
#include "oracle/runner/seam_checks.h"
#include "oracle/runner/seam_runner.h"

namespace dispatch::oracle {

namespace {

bool fits(const ValueSpec& v, ArgType t) {
  switch (t) {
    case ArgType::Tensor: return v.tag == Value::Tag::Tensor;
    case ArgType::OptionalTensor: return v.tag == Value::Tag::Tensor || v.tag == Value::Tag::None;
    case ArgType::TensorList: return v.tag == Value::Tag::TensorList;
    case ArgType::Int: return v.tag == Value::Tag::Int;
    case ArgType::Float: return v.tag == Value::Tag::Double;
    case ArgType::Bool: return v.tag == Value::Tag::Bool;
    case ArgType::String: return v.tag == Value::Tag::String;
  }
  return false;
}

// The top types.size() values fit types (docs/semantics.md §5.4: exact kinds, None only for Tensor?).
bool stackFits(const std::vector<ValueSpec>& stack, const std::vector<ArgType>& types) {
  if (stack.size() < types.size()) return false;
  const size_t base = stack.size() - types.size();
  for (size_t i = 0; i < types.size(); ++i) {
    if (!fits(stack[base + i], types[i])) return false;
  }
  return true;
}

std::vector<ArgType> argTypes(const FunctionSchema& schema) {
  std::vector<ArgType> types;
  for (const Argument& arg : schema.arguments) types.push_back(arg.type);
  return types;
}

// The key sets of the tensors among the top n values (the dispatch arguments).
model::KeySet tensorKeys(const std::vector<ValueSpec>& stack, size_t n) {
  model::KeySet keys;
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    if (stack[i].tag != Value::Tag::Tensor && stack[i].tag != Value::Tag::TensorList) continue;
    for (uint64_t raw : stack[i].tensors) keys = keys | model::KeySet::fromRaw(raw);
  }
  return keys;
}

// A typed kernel's inferred schema against the def's: argument and return types (names are
// not compared, docs/semantics.md §4.2).
bool signatureFits(int signature, const FunctionSchema& schema) {
  const TypedSignature& s = typedSignatures().at(static_cast<size_t>(signature));
  return s.args == argTypes(schema) && s.returns == schema.returns;
}

model::CallOutcome failure(model::ErrorKind kind, std::string why, std::optional<DispatchKey> key = std::nullopt) {
  return {std::nullopt, model::Error{kind, std::move(why), key}};
}

}  // namespace

void SeamRunner::declare(const Action& a) {
  const SchemaDecl& decl = *a.schema;
  DeclaredOp d;
  d.text = schemaText(a.op, decl);
  FunctionSchema built{declaredOpName(a.op, decl), {}, decl.returns};
  for (size_t i = 0; i < decl.args.size(); ++i) built.arguments.push_back({"a" + std::to_string(i), decl.args[i]});
  std::optional<FunctionSchema> parsed;
  try {
    parsed = parseSchema(d.text, kDeclaredNamespace);
  } catch (const std::exception&) {  // text no def can register; a library def must refuse it
  }
  // Built and typed schemas: the text spells the built one (boxed_call_fuzzer checks that).
  d.schema = decl.mode == SchemaMode::Text ? parsed : std::optional<FunctionSchema>(built);
  d.name = d.schema ? d.schema->name : built.name;
  d.own_args = d.schema ? argTypes(*d.schema) : decl.args;
  d.own_returns = d.schema ? d.schema->returns : decl.returns;
  sut_.declare(a.op, d);
  declared_[a.op] = std::move(d);
}

std::optional<std::string> SeamRunner::declaredDefAction(const Action& a) {
  const DeclaredOp& d = declared_.at(a.op);
  const bool library = a.kind == ActionKind::DefLibrary;
  if (!d.schema && !library) return skip("the declared schema text does not parse: a def has nothing to register");
  const std::string op = modelOp(a.op);
  const bool foreign = d.schema && !d.name.name.starts_with(std::string(kDeclaredNamespace) + "::");
  // What must be refused before the model is asked: bad text, a library def naming another
  // namespace, a schema that existing typed kernels' inferred schemas disagree with.
  std::string refusal;
  bool schema_refusal = true;
  if (!d.schema) {
    refusal = "the text does not parse";
  } else if (library && foreign) {
    refusal = "the library's namespace is " + std::string(kDeclaredNamespace);
    schema_refusal = false;
  } else if (!model_.hasSchema(op)) {
    for (const Registration& r : registrations_) {
      if (!r.dropped && r.op == a.op && r.signature && !signatureFits(*r.signature, *d.schema)) {
        refusal = "a typed kernel's inferred schema differs from it";
      }
    }
  }
  if (!refusal.empty()) {
    const SutOutcome real = sut_.defineDeclared(a.op, library);
    const bool agree = schema_refusal ? real.schema_refused : real.error == model::ErrorKind::Registration;
    if (!agree) {
      return "def of " + quote(d.text) + ": system " + describe(real) + "; expected it refused (" + refusal + ")";
    }
    return checkTouched(std::string(toString(a.kind)), a.op);
  }
  const model::RegistrationResult expected = model_.def(op, static_cast<int>(d.schema->arguments.size()));
  const SutOutcome real = sut_.defineDeclared(a.op, library);
  if (auto disagreement = compareRegistration(expected, real)) return disagreement;
  if (expected.ok()) registrations_.push_back({{*expected.id}, a.op, std::nullopt, false});
  return checkTouched(std::string(toString(a.kind)), a.op);
}

std::optional<std::string> SeamRunner::typedImplAction(const Action& a) {
  const std::string op = modelOp(a.op);
  const std::string name = "k" + std::to_string(next_kernel_++);
  const int signature = *a.signature;
  // docs/semantics.md §4.3: the key, then the C++ signature, then the inferred schema against
  // the def's. Every check comes before the first change, so a refused kernel leaves no C++
  // signature behind (c10 1.13 keeps it: fuzz/c10/known_upstream.md, refused-kernel-signature).
  std::string refusal;
  if (!a.key || model::isAliasKey(*a.key) || model::isRuntimeKey(*a.key)) {
    if (const auto sticky = cpp_signature_.find(a.op); sticky != cpp_signature_.end() && sticky->second != signature) {
      refusal = "the operator's C++ signature is another";
    } else if (model_.hasSchema(op) && !signatureFits(signature, *declared_.at(a.op).schema)) {
      refusal = "its inferred schema differs from the def's";
    }
  }
  if (!refusal.empty()) {
    const SutOutcome real = sut_.implementTyped(a.op, a.key, signature, name);
    if (!real.schema_refused) return "typed impl: system " + describe(real) + "; expected it refused (" + refusal + ")";
    return checkTouched("ImplTyped", a.op);
  }
  const model::RegistrationResult expected = model_.impl(op, a.key, name, false);
  const SutOutcome real = sut_.implementTyped(a.op, a.key, signature, name);
  if (auto disagreement = compareRegistration(expected, real)) return disagreement;
  if (expected.ok()) {
    kernel_args_[name] = typedSignatures().at(static_cast<size_t>(signature)).args;
    cpp_signature_.try_emplace(a.op, signature);
    registrations_.push_back({{*expected.id}, a.op, signature, false});
  }
  return checkTouched("ImplTyped", a.op);
}

SeamRunner::StackExpectation SeamRunner::expectedStackCall(const Action& a, const StackCall& call) const {
  StackExpectation e;
  const std::string op = modelOp(a.op);
  if (!model_.hasOperator(op)) {
    e.outcome = failure(model::ErrorKind::NotFound, "no operator " + op);
    return e;
  }
  const bool has_schema = model_.hasSchema(op);
  const std::vector<ArgType> schema_args = has_schema ? argTypes(*declared_.at(a.op).schema) : std::vector<ArgType>{};
  const bool stack_fits = stackFits(call.stack, schema_args);
  // A boxed call without a schema sees no tensors.
  const model::KeySet args = has_schema && stack_fits ? tensorKeys(call.stack, schema_args.size()) : model::KeySet();
  const model::KeySet included = model::KeySet::fromRaw(model_tls_.back().included | call.include);
  const model::KeySet excluded = model::KeySet::fromRaw(model_tls_.back().excluded | call.exclude);
  const bool validates = sut_.checksBoxedStacks();
  switch (a.kind) {
    case ActionKind::CallBoxed:
    case ActionKind::RedispatchBoxed:
      e.misfit = !stack_fits;
      e.outcome = a.kind == ActionKind::CallBoxed ? model_.call(op, args, included, excluded)
                                                  : model_.redispatch(op, model::KeySet::fromRaw(call.redispatch_keys));
      break;
    default: {
      // callBoxedForDispatchKey: the key's own kernel, else its fallback; then the stack check.
      const DispatchKey k = *a.key;
      if (!model::isValidKey(k)) {
        if (!validates) e.skip = "callBoxedForDispatchKey reads c10's fallback table out of bounds for an invalid key";
        e.outcome = failure(model::ErrorKind::InvalidKey, "not a declared key", k);
        return e;
      }
      std::string kernel;
      if (const auto kernels = model_.kernelStack(op, k); !kernels.empty()) {
        kernel = kernels.front();
      } else if (const auto fallback = model_.fallbackFor(k); fallback && !model::isAliasKey(k)) {
        kernel = (fallback->fallthrough ? "fallthrough " : "") + fallback->debug;
      } else {
        if (!validates) e.skip = "callBoxedForDispatchKey runs an empty kernel (or asserts) for a key without one";
        e.outcome = failure(model::ErrorKind::NotImplemented, "no kernel and no fallback", k);
        return e;
      }
      e.misfit = !stack_fits;
      if (kernel.starts_with("fallthrough ")) {
        e.outcome = failure(model::ErrorKind::NotImplemented, "runs " + kernel, k);
      } else {
        e.outcome = {model::CallSuccess{kernel, model_.finalKeySet(op, args, included, excluded)}, std::nullopt};
      }
      break;
    }
  }
  if (!sut_.runsStartupFallbacks() && !e.misfit && reachesStartupFallback(e.outcome)) {
    e.skip = "the call would run a start-up fallback";
  }
  e.outcome = followStartupPassThrough(model_, op, e.outcome);
  if (!has_schema && e.outcome.success) {
    // Without a schema nothing checks the stack before the kernel pops its own arguments.
    const auto own = kernel_args_.find(e.outcome.success->kernel);
    e.misfit = e.misfit || (own != kernel_args_.end() && !stackFits(call.stack, own->second));
  }
  if (e.misfit && !validates) e.skip = "c10 leaves checking a boxed stack to its callers (the stack does not fit)";
  return e;
}

std::optional<std::string> SeamRunner::stackCallAction(const Action& a) {
  const BoxedCall& boxed = *a.call;
  StackCall call;
  call.kind = a.kind;
  call.op = a.op;
  call.key = a.key;
  call.redispatch_keys = a.keys;
  call.stack = stackValues(boxed);
  call.include = boxed.include ? DispatchKeySet(*boxed.include).raw_repr() : 0;  // as the fuzzer's guard
  call.exclude = boxed.exclude.value_or(0);
  const StackExpectation expected = expectedStackCall(a, call);
  if (!expected.skip.empty()) return skip(expected.skip);
  const SutOutcome real = sut_.callStack(call);
  // The call's own guards are gone again: the thread-local sets are as before.
  if (auto leaked = compareTls(model_tls_.back(), sut_.threadLocalKeys())) return "call guards: " + *leaked;
  if (expected.misfit) {
    if (real.stack_misfit) return std::nullopt;
    return "boxed call: system " + describe(real) + "; expected the stack refused (it does not fit the arguments)";
  }
  return compareCall(expected.outcome, real, sut_.opName(a.op), false);
}

}  // namespace dispatch::oracle
