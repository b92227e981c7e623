#pragma once
// The pieces of the c10 system under test for declared-schema traces (boxed_call_fuzzer's
// vocabulary): declared names and schema text in c10's namespace, the kernels (typed ones of
// oracle::typedSignatures(), boxed ones that pop the schema's arguments and push its returns),
// stacks of IValues from value specs, and the check of a call's stack against what its kernel
// popped and pushed.

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "oracle/runner/system_under_test.h"

namespace dispatch::c10_sut {

// What a kernel saw and left, in the order kernels ran.
struct KernelRun {
  std::string kernel;
  c10::DispatchKeySet keys;
  std::vector<c10::IValue> args;
  std::vector<c10::IValue> returns;
};
using KernelRuns = std::vector<KernelRun>;

// "bx::op0.ov" -> "dispatch_seam::op0.ov" (kNamespace); other namespaces are kept.
c10::OperatorName c10DeclaredName(const OperatorName& name);
// The declared schema as our library prints it, named in c10's namespace.
std::string c10DeclaredSchema(const oracle::DeclaredOp& op);

// A boxed kernel popping the schema's arguments and pushing its returns (without a schema:
// `own`'s, or nothing when own is nullopt, as a fallback); throws c10::Error on a stack that
// does not fit (the message names the kernel and says "does not fit").
torch::CppFunction declaredBoxedKernel(const std::string& name, std::optional<oracle::DeclaredOp> own,
                                       KernelRuns* runs);
c10::KernelFunction declaredBoxedFallback(const std::string& name, KernelRuns* runs);
torch::CppFunction typedKernel(int signature, const std::string& name, KernelRuns* runs);

torch::jit::Stack buildStack(const std::vector<oracle::ValueSpec>& values);
// A stack of placeholder values fitting `types` (the live-table probe's).
torch::jit::Stack fittingStack(const std::vector<ArgType>& types);
// A successful call's stack against the one kernel run (nullopt: consistent).
std::optional<std::string> checkStackAfter(const torch::jit::Stack& before, const torch::jit::Stack& after,
                                           const KernelRuns& runs,
                                           const std::optional<std::vector<ArgType>>& schema_returns);

}  // namespace dispatch::c10_sut
