#pragma once
// The seam between the action vocabulary and a dispatcher: a system under test (SUT) is anything
// that can define, implement, fall back, deregister, push and pop thread-local guards, call
// typed or boxed with tensors of chosen key sets, print an operator's table and check its own
// invariants. oracle/runner/seam_runner.h applies actions to a SUT and to the model side by side (our
// dispatcher's fast path included: oracle/ours/our_dispatcher_runner.h); oracle/runner/model_free_runner.h
// judges a SUT by its own rules alone.
// Implementations: our dispatcher in every layout (oracle/ours/our_dispatcher_sut.h) and PyTorch's
// c10 through libtorch (c10_sut/, built with DISPATCH_WITH_LIBTORCH).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <vector>

#include "dispatch/schema.h"
#include "oracle/actions/action.h"
#include "oracle/model/model.h"

namespace dispatch::oracle {

// What a registration or a call did, in the model's words.
struct SutOutcome {
  std::optional<std::string> result;     // a call's kernel result "<kernel>@<hex key set>"
  std::optional<model::ErrorKind> error;  // the kind of error it raised, when it maps to one
  bool unclassified = false;              // it raised an error of no known kind (a finding)
  std::string message;
  // Declared-schema traces only: errors the model does not model (its D16).
  bool stack_misfit = false;  // a boxed stack that does not fit the arguments (BoxedCallError)
  bool schema_refused = false;  // a schema, an inferred schema or a C++ signature refused
  // A call or registration that succeeded, but whose report by the SUT's own diagnostics (call
  // observers, a flight recorder) is wrong: what is wrong (a finding). Empty: right, or nothing
  // to check.
  std::string misreported = {};
  bool ok() const { return !error && !unclassified && !stack_misfit && !schema_refused && misreported.empty(); }
};

enum class KernelKind { Typed, Boxed, Fallthrough };
// The kernel a registration of this kind installs.
inline KernelKind kernelKindOf(ActionKind kind) {
  if (isFallthrough(kind)) return KernelKind::Fallthrough;
  return kind == ActionKind::ImplTyped ? KernelKind::Typed : KernelKind::Boxed;
}
// The kernel a library block's impl installs (isLibraryImpl(body)).
inline KernelKind kernelKindOf(LibraryBody body) {
  if (body == LibraryBody::ImplFallthrough) return KernelKind::Fallthrough;
  return body == LibraryBody::ImplTyped ? KernelKind::Typed : KernelKind::Boxed;
}

// An operator of a declared-schema trace (boxed_call_fuzzer's inputs): its name in the model's
// words ("bx::op0.ov"), the schema a def registers (nullopt: its text does not parse), the text
// as spelled (a library def registers that), and what a kernel written for it pops and pushes
// when the operator has no schema.
struct DeclaredOp {
  OperatorName name;
  std::optional<FunctionSchema> schema;
  std::string text;
  std::vector<ArgType> own_args;
  std::vector<ArgType> own_returns;
};

// A boxed call of a declared-schema trace: CallBoxed, RedispatchBoxed (with redispatch_keys) or
// CallForKey (with key), on a stack of values (bottom to top), under thread-local include and
// exclude sets added for the call only.
struct StackCall {
  ActionKind kind = ActionKind::CallBoxed;
  int op = 0;
  std::optional<DispatchKey> key;
  uint64_t redispatch_keys = 0;
  std::vector<ValueSpec> stack;
  uint64_t include = 0;
  uint64_t exclude = 0;
};

struct TlsKeys {
  uint64_t included = 0;
  uint64_t excluded = 0;
  // Keys of the SUT's own that the vocabulary has no bit for, by name (" included <Key>" /
  // " excluded <Key>"; c10 2.x's default excluded set has some): compared like the bits.
  std::string unmapped;
};

// What a SUT that can read its own table entries offers the runner: its live rows and fallback
// table compared with the model's structurally, slot by slot (kernel identity and fallthrough
// flag; in the full check also why each slot holds its kernel), with no text built unless they
// differ. The runner then checks a row this way after every step, and the printed tables too at
// the end of a trace. Each returns the first difference, or nullopt.
class RowComparison {
 public:
  virtual ~RowComparison() = default;
  // Operator `op`'s live row against the model's memoised row (full: recomputed from scratch).
  virtual std::optional<std::string> compareRow(const std::string& context, int op,
                                                const model::ModelDispatcher& model, bool full) const = 0;
  virtual std::optional<std::string> compareFallbacks(const std::string& context,
                                                      const model::ModelDispatcher& model) const = 0;
};

class SystemUnderTest {
 public:
  virtual ~SystemUnderTest() = default;

  virtual std::string name() const = 0;             // "full", "mobile", "c10"
  virtual model::Flavour flavour() const = 0;       // which model table it is checked against
  virtual std::string opName(int op) const = 0;     // operator `op` as the SUT's messages spell it

  // Whether it starts with the 1.13 start-up fallbacks registered (the model then starts so).
  virtual bool startsWithStartupFallbacks() const = 0;
  // Whether a call may run the start-up boxed fallbacks: ours are pass-through stand-ins; the
  // real ones expect real tensors, so the runner skips calls that would reach them.
  virtual bool runsStartupFallbacks() const = 0;
  // Whether every call error names the operator, and a NotImplemented error also the key it is
  // about, quoted as c10 quotes it ('CPU'); c10's internal asserts do neither.
  virtual bool callErrorsNameOperatorAndKey() const = 0;
  // Why the SUT cannot run this action meaningfully (bad input it does not promise to refuse,
  // say); the runner then skips it on both sides. nullopt: run it.
  virtual std::optional<std::string> unsupported(const Action& action,
                                                 const model::ModelDispatcher& model) const = 0;

  // Registrations. A successful one is kept under the next handle number (0, 1, 2, ... in the
  // order of success), which deregister takes; a failed one leaves nothing behind.
  virtual SutOutcome define(int op) = 0;
  virtual SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind,
                               const std::string& kernel) = 0;
  virtual SutOutcome fallback(DispatchKey key, KernelKind kind, bool through_library,
                              const std::string& kernel) = 0;
  virtual SutOutcome startupFallbacks() = 0;
  // A NamedKey action that unsupported() lets through: its impl (on `op`) or fallback on the key
  // this system calls r.key, resolved by that name. A system whose keys are the enum's skips
  // every NamedKey action (namedKeyOutsideVocabulary) and never gets here.
  virtual SutOutcome registerOnNamedKey(const NamedKeyRegistration& r, int op, const std::string& kernel) {
    (void)op;
    (void)kernel;
    throw std::logic_error(name() + " cannot register on the key named " + r.key +
                           ": its unsupported() should have skipped the action");
  }
  // A LibraryBlock action that unsupported() lets through: the block (an IMPL block for key) on
  // operator op, its one registration named kernel, kept under the next handle; a refusal
  // leaves nothing behind (the block closes again).
  virtual SutOutcome libraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key,
                                  const std::string& kernel) {
    (void)block;
    (void)op;
    (void)key;
    (void)kernel;
    throw std::logic_error(name() + " cannot open library blocks: its unsupported() should have skipped the action");
  }
  // Undoes registration `handle`; returns false when it was undone already and the SUT refuses
  // (or ignores) the second undo.
  virtual bool deregister(size_t handle) = 0;

  virtual void pushGuard(bool include, uint64_t raw_keys) = 0;
  virtual void popGuard() = 0;  // the newest guard; no-op without one
  virtual TlsKeys threadLocalKeys() const = 0;

  // kind is CallTyped, CallBoxed (stack: self, other or None, tag) or Redispatch (with self as
  // the key set). Kernels return "<kernel>@<hex key set they were given>".
  virtual SutOutcome call(ActionKind kind, int op, uint64_t self, std::optional<uint64_t> other) = 0;

  // Declared-schema traces. declare() comes before any action on `op` and makes the SUT's
  // kernels for it (and its fallback kernels) pop the schema's arguments and push the schema's
  // returns (without a schema: the operator's own ones; a fallback takes and gives nothing).
  // Every kernel checks that the stack fits what it pops (else stack_misfit), and a successful
  // call checks that the kernel got the stack's arguments and left exactly its returns on the
  // untouched rest (else unclassified).
  virtual void declare(int op, const DeclaredOp& declared) = 0;
  // Def (through_library false): the declared schema; DefLibrary: its text in a library block.
  virtual SutOutcome defineDeclared(int op, bool through_library) = 0;
  // ImplTyped of a declared operator: a typed kernel of typedSignatures()[signature].
  virtual SutOutcome implementTyped(int op, std::optional<DispatchKey> key, int signature,
                                    const std::string& kernel) = 0;
  virtual SutOutcome callStack(const StackCall& call) = 0;
  // Whether a boxed call checks its stack against the schema before dispatching (ours); c10
  // leaves that to its callers, so the runner skips calls with ill-fitting stacks there.
  virtual bool checksBoxedStacks() const = 0;

  // Operator `op`'s table as dumpComputedTable prints it, debug names in the model's words, or
  // nullopt when the operator does not exist.
  virtual std::optional<std::string> table(int op) const = 0;
  // The fallback table as "<Key>: [fallthrough ]<debug>" lines, when the SUT shows it.
  virtual std::optional<std::string> fallbackTable() const = 0;
  // The SUT's own consistency check: nullopt when it holds, else what failed.
  virtual std::optional<std::string> checkInvariants() const = 0;
  // The same check after a step that can change operator `op`'s table alone (a def or an impl,
  // or the drop of one): a SUT whose check is costly may check that operator only (c10 probes
  // every live slot). The runners still check everything at the end of a trace.
  virtual std::optional<std::string> checkInvariantsOf(int /*op*/) const { return checkInvariants(); }

  // The structural row comparison, when the SUT offers one (ours); nullptr: printed tables only.
  virtual const RowComparison* rowComparison() const { return nullptr; }
  // Called before and after each action the runner runs (after only when it found nothing
  // wrong): a SUT that records which of its table cells a trace reaches hooks in here.
  virtual void beforeAction(const Action&) {}
  virtual void afterAction(const Action&) {}

  // The model-free call oracle (oracle/runner/model_free_runner.h): which entry of `op`'s computed table
  // a call (CallTyped, CallBoxed, Redispatch; the current thread-local sets) runs, found by the
  // SUT's own key-set rules: "kernel <name>", "ambiguous", "missing", "fallthrough" (a redispatch
  // onto a fallthrough slot), kStartupFallbackSlot for a start-up fallback that must not run
  // on the harness's tensors, or kUnshownSlot for a slot its computed table does not show (what
  // runs there cannot be foretold, and may be a start-up fallback). The runner skips the call
  // for the last two. nullopt: the SUT cannot tell, or the operator does not exist.
  virtual std::optional<std::string> slotACallRuns(ActionKind, int, uint64_t, std::optional<uint64_t>) const {
    return std::nullopt;
  }
};

inline constexpr const char* kStartupFallbackSlot = "start-up fallback";
inline constexpr const char* kUnshownSlot = "a slot the computed table does not show";

// Why a system whose keys are the enum's (PyTorch 1.13.1's: our dispatcher, the model) skips a
// NamedKey action: it has no key of that name (or, for a hand-written action, the enum names it
// and the plain registration kinds carry it).
std::string namedKeyOutsideVocabulary(const std::string& system, const Action& a);
// Throws std::invalid_argument for a NamedKey action that makes no impl or fallback (the runners
// check before any system sees it).
void checkNamedKey(const Action& a);

// The kernel result every SUT's kernels return: "<kernel>@<hex raw key set>".
std::string kernelResult(const std::string& kernel, uint64_t raw_keys);
// The kernel and raw key set of a kernelResult; nullopt for any other text.
struct KernelResultParts {
  std::string kernel;
  uint64_t keys = 0;
};
std::optional<KernelResultParts> parseKernelResult(std::string_view result);

}  // namespace dispatch::oracle
