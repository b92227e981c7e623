// The boxed calling convention under random schemas and random stacks (docs/semantics.md §4.2, 4.9, 5.4-5.6).
// Its input is oracle actions under oracle::kBoxedCallWeights (declared schemas; this file and
// fuzz/boxed_call/ keep only the weights' use and the checks). Bytes decode into three operator
// schemas (built from 0-6 arguments of Tensor, Tensor?, Tensor[], int, float, bool, str and 0-1
// returns; or the schema of a typed kernel; or schema text, reformatted or mutated, which
// parseSchema must either accept or refuse with SchemaError)
// and a short program: defs (direct or through a library's schema text), impls with boxed, typed
// and fallthrough kernels, backend fallbacks, the start-up fallbacks, drops, and boxed calls
// (callBoxed, redispatchBoxed, callBoxedForDispatchKey) on stacks of any arity and kinds, under
// random thread-local include/exclude sets. Each program runs on a fresh dispatcher of every flavour
// dispatcher, mirrored into the model (dispatch::model::ModelDispatcher). Checked:
//   * every failure is a clean dispatch::Error of the expected class (BoxedCallError for stack
//     problems, NotImplementedError / AmbiguousAutogradOtherError for missing kernels,
//     InvalidKeyError for bad keys, SchemaError for bad schemas); never InternalError, never
//     anything else; a failed call leaves the stack as it was;
//   * a successful call runs exactly the kernel the model names, with the key set the model
//     computes, hands it the stack's arguments unchanged, and leaves exactly the schema's returns
//     (of the schema's types) on top of the untouched rest of the stack;
//   * registrations succeed or fail as in the model; checkInvariants holds at the end;
//   * the call observers and the flight recorder report each call, and the recorder each
//     registration, as it happened (oracle/ours/call_witness.h).
// No global state survives an input: fresh dispatchers, TLS guards scoped to each call.


#include "boxed_call/program.h"
#include "boxed_call/runner.h"
#include "harness/fuzz_target.h"
#include "harness/trace_mutator_hooks.h"
#include "oracle/ours/cell_recorder.h"

// Mutation: libFuzzer's byte mutators by default; DISPATCH_FUZZ_MUTATOR=structure switches in the
// structure-aware mutator under the declared schemas (harness/trace_mutator.h).
// fuzz/options/boxed_call_fuzzer.options says why (measured on the bug benchmark, both ways).
DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(dispatch::oracle::kBoxedCallWeights, dispatch::fuzz::MutatorChoice::Bytes)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dispatch::fuzz::boxed_call;  // NOLINT(google-build-using-namespace)
  const Program program = decode(data, size);
  const std::vector<OpState> ops = resolveSchemas(program);
  std::vector<StepNote> notes;
  dispatch::AllLayouts::forEach([&]<class L>() { Runner<L>(program, ops, notes).run(); });
  // Once per input, not per flavour: the recorder is the thread's, and its dump costs a write per line.
  if (auto wrong = dispatch::oracle::CallWitness::restingRecorderDiffers()) {
    dispatch::fuzz::reportBug(kTarget, "the flight recorder after the program", *wrong);
  }
  if (auto* cells = dispatch::oracle::CellRecorder::active()) cells->endInput(kTarget);
  return 0;
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  boxed_call::printProgram(out, boxed_call::decode(data, size));
}
