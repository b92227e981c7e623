#pragma once
// The action vocabulary: one dispatcher API call per Action (registrations, drops, TLS guards,
// calls), or one key-set operation (the key-set algebra and key helpers, on a pool of sets). The
// fuzz targets decode actions from bytes (oracle/actions/action_codec.h) with their own weights, the
// properties generate them; dispatcher actions run through oracle/runner/seam_runner.h. They print as
// readable calls and as C++ for regression tests.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/arg_type.h"
#include "dispatch/dispatch_key.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"
#include "oracle/actions/library_block.h"

namespace dispatch::oracle {

// The operators every trace works on: "fz::op0" .. "fz::op3", schema
// (Tensor self, Tensor? other, int tag) -> str. Kernels return "<kernel name>@<key set>".
inline constexpr int kNumOps = 4;
// A reference to a name kept for the whole run: the runners ask for it several times per action.
// Throws std::out_of_range for an index outside 0 .. kNumOps - 1.
const std::string& opName(int op);
std::string opSchema(int op);

enum class ActionKind : uint8_t {
  Def,                // registerDef(schema of op)
  ImplTyped,          // registerImpl(op, key or catch-all, typed kernel)
  ImplBoxed,          // registerImpl(op, key or catch-all, boxed kernel)
  ImplFallthrough,    // registerImpl(op, key or catch-all, fallthrough)
  FallbackDirect,     // Dispatcher::registerFallback(key, boxed kernel)
  FallthroughDirect,  // Dispatcher::registerFallback(key, fallthrough)
  FallbackLibrary,    // DISPATCH_LIBRARY_IMPL(_, key) { m.fallback(boxed) }
  FallthroughLibrary, // DISPATCH_LIBRARY_IMPL(_, key) { m.fallback(fallthrough) }
  StartupFallbacks,   // the fallbacks PyTorch 1.13 registers at start-up
  Drop,               // release() one handle (any handle ever made: twice is an error)
  IncludeKeys,        // push IncludeDispatchKeyGuard(keys)
  ExcludeKeys,        // push ExcludeDispatchKeyGuard(keys)
  PopGuard,           // pop the newest TLS guard
  CallTyped,          // op.typed<...>().call(self, other, tag)
  CallBoxed,          // op.callBoxed(stack)
  Redispatch,         // op.typed<...>().redispatch(keys, ...)
  // Key-set actions (no dispatcher): "set#N" is entry N (modulo its size) of a pool of the
  // newest sets; every set pushed is checked, every query compared.
  KeySetPush,            // a new set from recipe
  KeySetOr,              // set#lhs | set#rhs
  KeySetAnd,             // set#lhs & set#rhs
  KeySetXor,             // set#lhs ^ set#rhs
  KeySetMinus,           // set#lhs - set#rhs
  KeySetOrAssign,        // set#lhs |= set#rhs (in place)
  KeySetAndAssign,       // set#lhs &= set#rhs (in place)
  KeySetAddKey,          // set#lhs.add(key)
  KeySetAddSet,          // set#lhs.add(set#rhs)
  KeySetRemoveKey,       // set#lhs.remove(key)
  KeySetRemoveBackend,   // set#lhs.remove_backend(backend)
  KeySetAddBackend,      // set#lhs | DispatchKeySet(backend)
  KeySetRedispatchMask,  // set#lhs & FULL_AFTER(its highestPriorityTypeId()), the redispatch idiom
  KeySetHas,             // set#lhs.has(key)
  KeySetHasBackend,      // set#lhs.has_backend(backend)
  KeySetHasAll,          // set#lhs.has_all(set#rhs), isSupersetOf
  KeySetHasAny,          // set#lhs.has_any(set#rhs)
  KeySetEqual,           // set#lhs == set#rhs
  KeySetIterate,         // the iterator protocol over set#lhs
  KeySetHighest,         // highest* / getBackendIndex / highestPriorityBackendTypeId of set#lhs
  KeySetAliasQuery,      // isIncludedInAlias / runtimeDispatchKeySetHas(.., key) over set#lhs
  KeyHelpers,            // the per-key helpers of dispatch_key.h and key_sets.h for key, backend
  // Declared-schema actions (weights with declared_schemas, boxed_call_fuzzer): operator N is
  // declaredOpName(N) with the schema its Schema action declares; Def registers that schema,
  // ImplTyped carries a signature, CallBoxed a stack (see BoxedCall).
  Schema,                // the prologue: declares op's schema (built, typed or text; SchemaDecl)
  DefLibrary,            // Library(FRAGMENT, "bx").def(op's schema text)
  RedispatchBoxed,       // op.redispatchBoxed(keys, stack)
  CallForKey,            // op.callBoxedForDispatchKey(key, stack)
  // A registration on a key by its c10 name, for keys only some releases have (release_keys.h):
  // an impl or fallback (NamedKeyRegistration) with the key spelled as c10 spells it.
  NamedKey,
  // A library block (DISPATCH_LIBRARY, _IMPL or _FRAGMENT, as c10's TORCH_LIBRARY...) opened
  // with one registration in it (LibraryBlock below); its handle undoes the block.
  LibraryBlock,
  kCount,
};
inline constexpr int kNumActionKinds = static_cast<int>(ActionKind::kCount);
std::string_view toString(ActionKind kind);

// Where a pushed key set comes from.
enum class KeySetSource : uint8_t {
  Raw,                  // DispatchKeySet(RAW, raw)
  Key,                  // DispatchKeySet(keys[0])
  Keys,                 // keys folded by style: 0 | of singles, 1 add() chain, 2 initializer lists
  Backends,             // backend bits; style 0 |= each, 1 initializer list of the first two
  MixedBackends,        // perBackendInstance(block #style, each backend), then the extra keys
  Tensor,               // tensorKeySet(TensorKind(style), backends[0], ..., inference)
  Predefined,           // kPredefinedKeySetNames[style]
  FullAfter,            // FULL_AFTER(keys[0])
  AliasSet,             // getRuntimeDispatchKeySet(keys[0])
  AutogradRelated,      // getAutogradRelatedKeySetFromBackend(backends[0])
  AutocastRelated,      // getAutocastRelatedKeySetFromBackend(backends[0])
  BackendFromAutograd,  // getBackendKeySetFromAutograd(keys[0])
  kCount,
};
inline constexpr int kNumKeySetSources = static_cast<int>(KeySetSource::kCount);

struct KeySetRecipe {
  KeySetSource source = KeySetSource::Raw;
  uint64_t raw = 0;
  std::vector<DispatchKey> keys;
  std::vector<BackendComponent> backends;
  int style = 0;
  bool inference = false;
  bool operator==(const KeySetRecipe&) const = default;
};

// The predefined sets of dispatch/key_sets.h (and FULL, empty) a recipe can name, by index.
inline constexpr std::string_view kPredefinedKeySetNames[] = {
    "all_backends_keyset", "autograd_dispatch_keyset", "autocast_dispatch_keyset",
    "default_included_set", "default_excluded_set", "autograd_dispatch_keyset_with_ADInplaceOrView",
    "python_ks", "sparse_ks", "sparse_csr_ks", "mkldnn_ks", "autogradother_backends",
    "after_autograd_keyset", "after_ADInplaceOrView_keyset", "after_func_keyset",
    "backend_functionality_keys", "functorch_transforms_ks", "backend_dispatch_keyset",
    "math_dispatch_keyset", "non_functional_backend_dispatch_keyset", "nested_dispatch_keyset",
    "FULL", "empty"};
inline constexpr int kNumPredefinedKeySets = static_cast<int>(std::size(kPredefinedKeySetNames));

// The per-backend functionality a MixedBackends recipe's style names (model order).
DispatchKey mixedBackendsBlock(int style);
// The keys a MixedBackends recipe stands for: block instances on each backend, then the extras.
std::vector<DispatchKey> mixedBackendsKeys(const KeySetRecipe& recipe);

// --- declared schemas and boxed stacks ----------------------------------------------------------

inline constexpr std::string_view kDeclaredNamespace = "bx";
inline constexpr size_t kMaxDeclaredArgs = 6;

// The C++ signatures a typed kernel of a declared-schema trace can have (the kernels themselves
// live with the target); a Typed schema is one of them.
struct TypedSignature {
  std::string_view cpp;
  std::vector<ArgType> args;
  std::vector<ArgType> returns;
};
const std::vector<TypedSignature>& typedSignatures();
inline constexpr ArgType kAllArgTypes[] = {ArgType::Tensor, ArgType::OptionalTensor, ArgType::TensorList,
                                           ArgType::Int,    ArgType::Float,          ArgType::Bool,
                                           ArgType::String};

enum class SchemaMode : uint8_t { Generated, Typed, Text };

// A declared schema: its arguments and returns (from the signature when Typed), and how its text
// is spelled: the spelling choices (loose spacing, namespace, spaces, return style) and, in Text
// mode, the edits that mutate it, each as the choices the decoder made, in the order it made them
// (oracle/actions/action_boxed_spelling.h). schemaText() renders them.
struct SchemaDecl {
  SchemaMode mode = SchemaMode::Generated;
  bool overload = false;  // name "bx::opN.ov"
  int signature = 0;      // Typed: index into typedSignatures()
  std::vector<ArgType> args;
  std::vector<ArgType> returns;
  std::vector<uint32_t> spelling;
  std::vector<uint32_t> edits;  // Text only
  bool operator==(const SchemaDecl&) const = default;
};

// One value on a boxed stack.
struct ValueSpec {
  Value::Tag tag = Value::Tag::None;
  std::vector<uint64_t> tensors;  // Tensor: one key set; TensorList: 0 .. 3
  int64_t number = 0;             // Int, Double (number / 8), Bool (number & 1), String (length & 7)
  bool operator==(const ValueSpec&) const = default;
};

// How a boxed stack is shaped from values fitting the operator's arguments.
enum class StackShape : uint8_t {
  WrongKind,  // args[pick] replaced by extra[0] (any kind)
  None,       // args[pick] replaced by None
  TooFew,     // the top `pick` arguments dropped
  TooMany,    // extra pushed on top (the arguments window shifts)
  Below,      // extra below the arguments: they must survive the call untouched
  Fits,
};

// A boxed call's stack and its thread-local include / exclude sets (scoped to the call).
struct BoxedCall {
  std::vector<ValueSpec> args;  // fitting the operator's intended arguments
  uint32_t shape_choice = 9;    // 0 .. 9, see stackShape()
  uint32_t pick = 0;            // the argument index or count the shape names
  std::vector<ValueSpec> extra;
  std::optional<DispatchKey> include;  // IncludeDispatchKeyGuard(DispatchKeySet(key))
  std::optional<uint64_t> exclude;     // ExcludeDispatchKeyGuard(raw set)
  bool operator==(const BoxedCall&) const = default;
};

OperatorName declaredOpName(int op, const SchemaDecl& decl);
// The schema text, as spelled (and mutated); throws std::invalid_argument for choices out of range.
std::string schemaText(int op, const SchemaDecl& decl);
// The argument types stacks for the operator are built for: the text's if it parses, else decl's.
std::vector<ArgType> intendedArgs(int op, const SchemaDecl& decl);
StackShape stackShape(const BoxedCall& call);
std::vector<ValueSpec> stackValues(const BoxedCall& call);  // bottom to top
std::string stackHow(const BoxedCall& call);                // "fits", "drop 2", ...
// Schema text in quotes, non-printable bytes as \xNN.
std::string quote(std::string_view text);

// What a NamedKey action registers: an impl (ImplTyped, ImplBoxed, ImplFallthrough) or a fallback
// (FallbackDirect, FallthroughDirect, FallbackLibrary, FallthroughLibrary) on the key c10 calls
// `key`. A system resolves the name itself (or says it has no such key), never by a number.
struct NamedKeyRegistration {
  ActionKind registration = ActionKind::ImplTyped;
  std::string key;
  bool operator==(const NamedKeyRegistration&) const = default;
};
// Whether kind is one a NamedKey action can register.
bool registersOnNamedKey(ActionKind kind);

struct Action {
  Action() = default;
  // A dispatcher action by its six fields, as regression tests spell it.
  Action(ActionKind kind_, int op_, std::optional<DispatchKey> key_, uint32_t handle_,
         uint64_t keys_, std::optional<uint64_t> other_)
      : kind(kind_), op(op_), key(key_), handle(handle_), keys(keys_), other(other_) {}
  // A key-set action by its fields.
  static Action keySet(ActionKind kind, uint8_t lhs, uint8_t rhs, std::optional<DispatchKey> key,
                       BackendComponent backend, KeySetRecipe recipe);
  // A declared-schema action: the prologue's Schema, or any other kind with its fields.
  static Action declaredSchema(int op, SchemaDecl decl);
  static Action declared(ActionKind kind, int op, std::optional<DispatchKey> key, uint32_t handle,
                         uint64_t keys, std::optional<int> signature, std::optional<BoxedCall> call);
  // A NamedKey action: `registration` on operator op (impls) on the key c10 calls `key`.
  static Action namedKey(ActionKind registration, int op, std::string key);
  // A LibraryBlock action: `block` on operator op, an IMPL block for `key`.
  static Action libraryBlock(LibraryBlock block, int op, std::optional<DispatchKey> key);

  ActionKind kind = ActionKind::Def;
  int op = 0;                        // operator index, 0 .. kNumOps - 1
  std::optional<DispatchKey> key;    // impl (nullopt: catch-all), fallbacks, key-set key
  uint32_t handle = 0;               // Drop: index into every handle made so far (modulo)
  uint64_t keys = 0;                 // TLS guards, Redispatch: a raw key set; calls: self's set
  std::optional<uint64_t> other;     // calls: the optional second tensor's raw set
  // Key-set actions only:
  KeySetRecipe recipe;               // KeySetPush
  uint8_t lhs = 0;                   // pool operands (modulo the pool size)
  uint8_t rhs = 0;
  BackendComponent backend = BackendComponent::InvalidBit;
  // Declared-schema actions only:
  std::optional<SchemaDecl> schema;  // Schema
  std::optional<int> signature;      // ImplTyped: the typed kernel's signature
  std::optional<BoxedCall> call;     // CallBoxed, RedispatchBoxed, CallForKey
  // NamedKey actions only:
  std::optional<NamedKeyRegistration> named;
  // LibraryBlock actions only:
  std::optional<LibraryBlock> block;
  bool operator==(const Action&) const = default;
};

bool isRegistration(ActionKind kind);  // def, impl, fallbacks, start-up fallbacks, blocks (not NamedKey)
bool isImpl(ActionKind kind);          // the three impl kinds
bool isFallthrough(ActionKind kind);   // registers a fallthrough kernel
bool isCall(ActionKind kind);          // typed call, boxed call, redispatch
bool isGuard(ActionKind kind);         // push or pop a TLS guard
bool isKeySetAction(ActionKind kind);  // KeySetPush .. KeyHelpers: no dispatcher involved
bool isBoxedStackCall(ActionKind kind);  // CallBoxed, RedispatchBoxed, CallForKey (with a stack)

// "impl typed fz::op1 @ AutogradCPU", "impl typed fz::op1 @ named key MTIA", "| set#3 set#5"
// style, one line. With op_labels (declared
// schemas: declaredOpLabels), operators are named by their label.
std::string describe(const Action& action, const std::vector<std::string>& op_labels = {});
// "op0=bx::op0.ov" per Schema action.
std::vector<std::string> declaredOpLabels(const std::vector<Action>& schemas);
// The trace as a numbered list, for --print and crash reports. Leading Schema actions print as
// "opN: ..." lines; the actions after them are numbered from 0.
void printTrace(std::ostream& out, const std::vector<Action>& actions);

// The action as a C++ aggregate initializer, for regression tests written by ci/repro.sh.
// Dispatcher actions by the six-field constructor, e.g.
//   {ActionKind::ImplTyped, 1, DispatchKey::AutogradCPU, 0, 0, std::nullopt}
// key-set actions by Action::keySet(kind, lhs, rhs, key, backend, {recipe, all six fields}),
// NamedKey actions by Action::namedKey(registration, op, "Key"), LibraryBlock actions by
// Action::libraryBlock({kind, ns, body, qualified}, op, key) (enums fully qualified). Keys not
// named by the enum print as static_cast<DispatchKey>(N), key sets as hex literals; assumes
// `using dispatch::DispatchKey;`, `using dispatch::BackendComponent;`,
// `using dispatch::oracle::ActionKind;` and `using dispatch::oracle::KeySetSource;`.
std::string toCpp(const Action& action);

}  // namespace dispatch::oracle
