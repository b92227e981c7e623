#include "dispatch/library.h"

namespace dispatch {

namespace {
// The macro that opens a block of this kind: c10's messages name TORCH_LIBRARY and friends.
template <class Kind>
std::string_view macroName(Kind kind) {
  switch (kind) {
    case Kind::DEF: return "DISPATCH_LIBRARY";
    case Kind::IMPL: return "DISPATCH_LIBRARY_IMPL";
    case Kind::FRAGMENT: return "DISPATCH_LIBRARY_FRAGMENT";
  }
  return "DISPATCH_LIBRARY_<unknown kind>";
}
}  // namespace

template <class L>
BasicLibrary<L>::BasicLibrary(Unopened, Kind kind, std::string ns, std::optional<DispatchKey> key,
                              BasicDispatcher<L>& dispatcher, std::string_view file, uint32_t line)
    : kind_(kind),
      ns_(std::move(ns)),
      key_(key),
      dispatcher_(&dispatcher),
      where_(file.empty() ? std::string("registered by a library")
                          : detail::concat("registered at ", file, ":", line)) {}

template <class L>
BasicLibrary<L>::BasicLibrary(Kind kind, std::string ns, std::optional<DispatchKey> key,
                              BasicDispatcher<L>& dispatcher, std::string_view file,
                              uint32_t line)
    : BasicLibrary(Unopened{}, kind, std::move(ns), key, dispatcher, file, line) {
  raiseIf(open(file, line));
}

template <class L>
std::variant<BasicLibrary<L>, Refusal> BasicLibrary<L>::tryOpen(Kind kind, std::string ns,
                                                                std::optional<DispatchKey> key,
                                                                BasicDispatcher<L>& dispatcher,
                                                                std::string_view file, uint32_t line) {
  BasicLibrary library(Unopened{}, kind, std::move(ns), key, dispatcher, file, line);
  if (std::optional<Refusal> refusal = library.open(file, line)) return std::move(*refusal);
  return library;
}

template <class L>
std::optional<Refusal> BasicLibrary<L>::open(std::string_view file, uint32_t line) {
  DISPATCH_REFUSE_UNLESS(!key_ || isValidDispatchKey(*key_), InvalidKeyError,
                         invalidDispatchKeyMessage(*key_, detail::concat("library block for namespace ", ns_)));
  // c10's text, with c10's ERROR_CONTEXT when the block's place is known.
  const std::string_view macro = macroName(kind_);
  DISPATCH_REFUSE_UNLESS(kind_ == Kind::IMPL || ns_ != "_", RegistrationError, macro,
                         ": cannot define ", macro, " with the wildcard namespace _ (every ", macro,
                         " defines operators for a distinct namespace!) Did you mean to use "
                         "DISPATCH_LIBRARY_IMPL instead?",
                         file.empty() ? std::string()
                                      : detail::concat("  (Error occurred while processing ", macro,
                                                       " block at ", file, ":", line, ")"));
  DISPATCH_REFUSE_UNLESS(kind_ == Kind::IMPL || !kernelKey(), RegistrationError, "a ", macro,
                         " block for ", ns_, " cannot have a dispatch key (", *key_, ")");
  if (kind_ != Kind::DEF) return std::nullopt;
  return keep(dispatcher_->tryRegisterLibrary(ns_, where_));
}

template <class L>
std::optional<Refusal> BasicLibrary<L>::keep(TriedRegistration tried) {
  if (const Refusal* refusal = tried.refusal()) return *refusal;
  registrations_.push_back(std::move(tried).take());
  return std::nullopt;
}

template <class L>
void BasicLibrary<L>::reset() {
  while (!registrations_.empty()) registrations_.pop_back();  // newest first
}

template <class L>
std::variant<OperatorName, Refusal> BasicLibrary<L>::tryQualifiedName(std::string_view name) const {
  if (name.find("::") != std::string_view::npos) {
    OperatorName parsed = parseOperatorName(name);
    DISPATCH_REFUSE_UNLESS(ns_ == "_" || parsed.name.rfind(ns_ + "::", 0) == 0, RegistrationError,
                           "Explicitly provided namespace in operator name ", toString(parsed),
                           " does not match the namespace of the enclosing library block (", ns_,
                           ", dispatch key ", key_ ? toString(*key_) : std::string_view("catch-all"), ")");
    return parsed;
  }
  return parseOperatorName(name, ns_);
}

template <class L>
std::string BasicLibrary<L>::debugFor(const CppFunction& f) const {
  return f.debug_.empty() ? where_ : f.debug_;
}

template <class L>
std::optional<Refusal> BasicLibrary<L>::tryDef(std::string_view schema) {
  DISPATCH_REFUSE_UNLESS(kind_ != Kind::IMPL, RegistrationError,
                         "def() is not allowed in a DISPATCH_LIBRARY_IMPL block (namespace ", ns_,
                         ", dispatch key ", key_ ? toString(*key_) : std::string_view("none"),
                         "); use DISPATCH_LIBRARY or DISPATCH_LIBRARY_FRAGMENT: ", schema);
  FunctionSchema parsed = parseSchema(schema, ns_);
  DISPATCH_REFUSE_UNLESS(parsed.name.name.rfind(ns_ + "::", 0) == 0, RegistrationError,
                         "Explicitly provided namespace in schema ", schema,
                         " does not match the namespace of the enclosing library block (", ns_, ")");
  return keep(dispatcher_->tryRegisterDef(std::move(parsed), where_));
}

template <class L>
std::optional<Refusal> BasicLibrary<L>::tryImplFor(OperatorName name, std::optional<DispatchKey> key,
                                                   CppFunction f) {
  const std::string debug = debugFor(f);
  return keep(dispatcher_->tryRegisterImpl(std::move(name), key, std::move(f.kernel_),
                                           std::move(f.cpp_signature_), std::move(f.inferred_schema_),
                                           debug));
}

template <class L>
BasicLibrary<L>& BasicLibrary<L>::fallback(CppFunction f) {
  return raiseIf(tryFallback(std::move(f)));
}

template <class L>
std::optional<Refusal> BasicLibrary<L>::tryFallback(CppFunction f) {
  DISPATCH_REFUSE_UNLESS(kind_ == Kind::IMPL && ns_ == "_", RegistrationError,
                         "Fallback functions which apply to only a single namespace (you specified ", ns_,
                         ") are not supported. If you intended to apply this fallback function globally, "
                         "please define a separate block: DISPATCH_LIBRARY_IMPL(_, ",
                         key_ ? toString(*key_) : std::string_view("<key>"), ", m) { m.fallback(...); }");
  DISPATCH_REFUSE_UNLESS(key_.has_value(), RegistrationError,
                         "a fallback needs a dispatch key: use DISPATCH_LIBRARY_IMPL(_, <key>, m)");
  const std::string debug = debugFor(f);
  // All or nothing: if one key is refused (e.g. it already has a fallback), the handles of the
  // keys before it are dropped, which undoes them.
  std::vector<RegistrationHandle> added;
  for (DispatchKey k : getRuntimeDispatchKeySet(*key_)) {
    if (L::indexOf(k) < 0) continue;  // this flavour has no slot for k (docs/semantics.md §6.4)
    TriedRegistration tried = dispatcher_->tryRegisterFallback(k, f.kernel_, debug);
    if (const Refusal* refusal = tried.refusal()) return *refusal;
    added.push_back(std::move(tried).take());
  }
  for (auto& handle : added) registrations_.push_back(std::move(handle));
  return std::nullopt;
}

#define DISPATCH_DETAIL_INSTANTIATE_LIBRARY(L) template class BasicLibrary<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_DETAIL_INSTANTIATE_LIBRARY)
#undef DISPATCH_DETAIL_INSTANTIATE_LIBRARY

}  // namespace dispatch
