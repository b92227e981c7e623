#pragma once
// The seam (oracle/runner/system_under_test.h) over our own dispatcher: a fresh BasicDispatcher<L> per
// object, registrations through the try... forms of registerDef / registerImpl /
// registerFallback (refusals are routine in a trace; no exception per refusal), Library blocks
// and registerStartupFallbacks. It offers the structural row comparison (our_dispatcher_rows.cpp)
// and records table cells (oracle/ours/cell_recorder.h, DISPATCH_TABLE_CELLS). One class per layout
// in DISPATCH_FOR_EACH_LAYOUT. The declared-schema members live in our_dispatcher_sut_declared.cpp.
// A library bug (InternalError, a failed checkInvariants included) propagates from every member.

#include <map>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "dispatch/flavours.h"
#include "oracle/ours/call_witness.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::oracle {

template <class L>
class OurDispatcherSut final : public SystemUnderTest, private RowComparison {
 public:
  OurDispatcherSut() : witness_(std::string(L::kName), [](DispatchKeySet ks) { return L::indexOf(ks); }) {}
  ~OurDispatcherSut() override;

  std::string name() const override;
  model::Flavour flavour() const override;
  std::string opName(int op) const override;
  bool startsWithStartupFallbacks() const override { return false; }
  bool runsStartupFallbacks() const override { return true; }
  bool callErrorsNameOperatorAndKey() const override { return true; }
  // It refuses every bad input with a typed error; its keys are the enum's, so it has none by
  // a later release's name.
  std::optional<std::string> unsupported(const Action& a, const model::ModelDispatcher&) const override {
    if (a.kind == ActionKind::NamedKey) return namedKeyOutsideVocabulary("our dispatcher", a);
    return std::nullopt;
  }

  SutOutcome define(int op) override;
  SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind,
                       const std::string& kernel) override;
  SutOutcome fallback(DispatchKey key, KernelKind kind, bool through_library,
                      const std::string& kernel) override;
  SutOutcome startupFallbacks() override;
  SutOutcome libraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key,
                          const std::string& kernel) override;
  bool deregister(size_t handle) override;

  void pushGuard(bool include, uint64_t raw_keys) override;
  void popGuard() override;
  TlsKeys threadLocalKeys() const override;

  SutOutcome call(ActionKind kind, int op, uint64_t self, std::optional<uint64_t> other) override;

  void declare(int op, const DeclaredOp& declared) override { declared_[op] = declared; }
  SutOutcome defineDeclared(int op, bool through_library) override;
  SutOutcome implementTyped(int op, std::optional<DispatchKey> key, int signature,
                            const std::string& kernel) override;
  SutOutcome callStack(const StackCall& call) override;
  bool checksBoxedStacks() const override { return true; }

  std::optional<std::string> table(int op) const override;
  std::optional<std::string> fallbackTable() const override { return dispatcher_.dumpFallbacks(); }
  std::optional<std::string> checkInvariants() const override;

  const RowComparison* rowComparison() const override { return this; }
  void beforeAction(const Action& a) override;
  void afterAction(const Action& a) override;

  const BasicDispatcher<L>& dispatcher() const noexcept { return dispatcher_; }

 private:
  struct Registration {
    std::optional<RegistrationHandle> handle;  // def, impl, direct fallback
    std::vector<BasicLibrary<L>> libraries;    // library and start-up fallbacks
    bool dropped = false;
  };
  using Guard = std::variant<std::unique_ptr<IncludeDispatchKeyGuard>,
                             std::unique_ptr<ExcludeDispatchKeyGuard>>;

  // What a declared-schema kernel saw and left (our_dispatcher_sut_declared.cpp).
  struct KernelRun {
    std::string kernel;
    uint64_t keys = 0;
    std::vector<Value> args;     // what it popped, in order
    std::vector<Value> returns;  // what it pushed, in order
  };

  // RowComparison (our_dispatcher_rows.cpp).
  std::optional<std::string> compareRow(const std::string& context, int op, const model::ModelDispatcher& model,
                                        bool full) const override;
  std::optional<std::string> compareFallbacks(const std::string& context,
                                              const model::ModelDispatcher& model) const override;

  template <class F>
  SutOutcome registerWith(F&& make);
  OperatorName operatorName(int op) const;
  BasicCppFunction<L> declaredBoxedKernel(std::optional<int> op, const std::string& kernel);
  // A successful call's stack against what the kernel popped and pushed (nullopt: consistent).
  std::optional<std::string> checkStackAfter(const Stack& before, const Stack& after,
                                             const std::optional<FunctionSchema>& schema) const;

  BasicDispatcher<L> dispatcher_;
  std::vector<Registration> registrations_;  // after dispatcher_: dropped before it dies
  std::vector<Guard> guards_;
  std::map<int, DeclaredOp> declared_;
  std::vector<KernelRun> runs_;  // the kernels of the current declared call
  CallWitness witness_;          // checks what the diagnostics report of each call
  int64_t next_tensor_ = 1;
  uint32_t blocks_opened_ = 0;  // names each library block's place
};

// A boxed stack of our Values from value specs (bottom to top); each tensor gets the next id.
Stack buildStack(const std::vector<ValueSpec>& values, int64_t& next_tensor_id);

// The typed errors of errors.h in the model's words, and the declared traces' schema,
// signature and stack errors; anything else is unclassified.
SutOutcome errorOutcome(const Error& e);
// The same for a refusal a try... registration returned: what errorOutcome gives for the error
// its throwing form throws.
SutOutcome errorOutcome(const Refusal& refusal);

// Keeps the handle of a registration that was made; gives back the refusal of one that was not.
inline std::optional<Refusal> keepHandle(std::optional<RegistrationHandle>& handle, TriedRegistration tried) {
  if (const Refusal* refusal = tried.refusal()) return *refusal;
  handle = std::move(tried).take();
  return std::nullopt;
}

// make(reg) registers into reg; it returns nothing (a refusal throws) or the refusal of a try...
// form (nullopt: made).
template <class L>
template <class F>
SutOutcome OurDispatcherSut<L>::registerWith(F&& make) {
  Registration reg;
  try {
    if constexpr (std::is_void_v<decltype(make(reg))>) {
      make(reg);
    } else if (const std::optional<Refusal> refusal = make(reg)) {
      return errorOutcome(*refusal);
    }
  } catch (const InternalError&) {
    throw;  // a library bug, not an outcome
  } catch (const Error& e) {
    return errorOutcome(e);
  }
  registrations_.push_back(std::move(reg));
  return {};
}

#define DISPATCH_ORACLE_EXTERN_SUT(L) extern template class OurDispatcherSut<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_EXTERN_SUT)
#undef DISPATCH_ORACLE_EXTERN_SUT

}  // namespace dispatch::oracle
