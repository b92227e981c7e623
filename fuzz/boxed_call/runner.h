#pragma once
// boxed_call_fuzzer's runner: one program on a fresh dispatcher of one flavour, mirrored into the
// model. Registration-side members live in runner_registration.cpp, call-side members in
// runner_calls.cpp; both instantiate the two flavours.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "boxed_call/kernels.h"
#include "boxed_call/outcome.h"
#include "boxed_call/program.h"
#include "dispatch/flavours.h"
#include "oracle/ours/call_witness.h"
#include "oracle/ours/cell_recorder.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/model/model.h"

namespace dispatch::fuzz::boxed_call {

namespace m = dispatch::model;
using oracle::CellRecorder;

template <class L>
class Runner {
 public:
  Runner(const Program& program, const std::vector<OpState>& ops, std::vector<StepNote>& notes)
      : program_(program), ops_(ops), notes_(notes), model_(dispatch::oracle::kModelFlavour<L>) {
    const auto tls = tls_local_dispatch_key_set();
    if (!(tls.included == default_included_set) || !(tls.excluded == default_excluded_set)) {
      fail("thread-local state leaked into an input", "TLS is not the default at the start");
    }
  }

  void run();

 private:
  struct Registration {
    std::optional<RegistrationHandle> handle;
    std::vector<BasicLibrary<L>> libraries;
    std::vector<m::RegistrationId> model_ids;
    bool dropped = false;
  };
  struct KernelInfo {  // what a kernel pops and pushes when the operator has no schema
    std::optional<std::vector<ArgType>> args;  // nullopt: a fallback (nothing without a schema)
  };

  [[noreturn]] void fail(const std::string& what, const std::string& details) const;

  // One note per step for the crash report (and a line on stderr under DISPATCH_FUZZ_TRACE=1).
  void note(StepNote n);

  std::string kernelName(const char* prefix) { return prefix + std::to_string(next_kernel_++); }

  // Table-cell coverage (oracle/ours/cell_recorder.h): the keys a registration names without a slot.

  // Runs one registration on the dispatcher and, if it should touch the model, on the model.
  void registration(const Action& a);

  std::optional<std::vector<ArgType>> intendedArgsOf(int op) const;
  std::vector<ArgType> intendedReturnsOf(int op) const;

  void checkInvariants() const;

  void drop(const Action& a);

  Stack buildStack(const Action& a);

  m::CallOutcome passThrough(const std::string& op, m::CallOutcome outcome) const;

  // From a model outcome to the expected class; on success, whether the kernel can take the stack.
  Expected judge(const m::CallOutcome& outcome, const Stack& stack, bool has_schema) const;

  Expected expectCall(const Action& a, const std::string& op, const Stack& stack, const FunctionSchema* schema,
                      const m::KeySet& included, const m::KeySet& excluded) const;

  void call(const Action& a);

  // Table-cell coverage: the slot the lookup reads, under the call's TLS guards. A stack that
  // fails the schema check never reaches the table; callBoxedForDispatchKey bypasses it.
  static void observeCallCell(CellRecorder& cells, const Action& a, const BasicOperatorHandle<L>& handle,
                              const FunctionSchema* schema, const Stack& stack);

  void checkSuccess(const Expected& expected, const FunctionSchema* schema, const Stack& before,
                    const Stack& after) const;
  // After a registration that succeeded: the flight recorder's one new event is it
  // (oracle/ours/call_witness.h); `before` is the newest event before it ran.
  void checkRegistrationReport(const Action& a, const std::string& op_name, const std::string& kernel,
                               uint64_t before) const;

  const Program& program_;
  const std::vector<OpState>& ops_;
  std::vector<StepNote>& notes_;
  // The dispatcher outlives every handle and library below (members die in reverse order).
  BasicDispatcher<L> dispatcher_;
  m::ModelDispatcher model_;
  Recorder recorder_;
  // What the call observers and the flight recorder report of each call, checked after it.
  oracle::CallWitness witness_{std::string(L::kName), [](DispatchKeySet ks) { return L::indexOf(ks); }};
  std::vector<Registration> registrations_;
  std::map<std::string, KernelInfo> kernels_;
  int next_kernel_ = 0;
  int64_t next_tensor_ = 1;
  size_t step_ = 0;
};

#define DISPATCH_FUZZ_EXTERN_RUNNER(L) extern template class Runner<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_FUZZ_EXTERN_RUNNER)
#undef DISPATCH_FUZZ_EXTERN_RUNNER

}  // namespace dispatch::fuzz::boxed_call
