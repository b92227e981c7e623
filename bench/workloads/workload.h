#pragma once
// A recorded PyTorch start-up workload (bench/workloads/README.md): reading a recording, its
// translation into calls our dispatcher can take, a slice of it, and the replay of those calls
// into a dispatcher of one flavour. workload_replay (the benchmark) and the pre-merge test share
// it, so what is measured is what is tested.
//
// What a replay cannot carry over, and does instead:
// - Schemas: ours are a subset of c10's (dispatch/schema.h). Each argument keeps its name and
//   whether key extraction reads it, as c10 decides that (Tensor, Tensor?, Tensor[], Tensor?[]);
//   other types become float / bool / str when their base type is one, int otherwise.
// - C++ signatures: ours are typeid-based and cannot name c10's types, so every typed kernel is
//   registered with one stand-in signature: the consistency check runs and agrees, as in c10.
//   Inferred schemas are not passed.
// - Kernels: boxed no-ops; fallthrough stays fallthrough; 1.13's named-not-supported fallback is a
//   boxed kernel like any other.
// - Keys our vocabulary lacks (2.x added some): their registrations are skipped and counted by
//   key name, never dropped silently.
#include <cstddef>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"

namespace dispatch::workload {

// One row of a recording, as written (README "Format").
struct Row {
  long seq = 0;
  std::string call;      // def, impl, fallback, library, name
  long long c10_ns = 0;  // real_call_ns
  std::string op;        // "aten::add"; the namespace for a library row
  std::string overload;  // "" for none
  std::string key;       // c10's key name, "catch-all", or "-"
  std::string kind;      // typed, boxed, fallthrough, named_not_supported, or "-"
  std::string schema;    // def: the schema text
  std::string debug;
};

struct Workload {
  std::vector<std::string> comments;  // the '#' lines
  std::vector<Row> rows;
};

// Parses a recording. Throws std::runtime_error on a malformed one, and on one without rows.
Workload parseWorkload(std::istream& in);
// Reads a recording, gzip'd or plain; "-" is standard input. Throws std::runtime_error when the
// file cannot be read or is not a recording.
Workload readWorkload(const std::string& path);

enum class CallKind { Library, Name, Def, Impl, Fallback };
const char* toString(CallKind kind);

// One registration in the form our dispatcher takes it.
struct Call {
  CallKind kind = CallKind::Def;
  long seq = 0;
  long long c10_ns = 0;
  OperatorName name;                 // Def, Impl, Name; Library: {namespace, ""}
  std::optional<DispatchKey> key;    // Impl (nullopt: catch-all), Fallback
  bool fallthrough = false;          // Impl, Fallback
  bool typed = false;                // Impl: registered with the stand-in C++ signature
  std::optional<FunctionSchema> schema;  // Def
  std::string debug;                 // the kernel's (or def's) debug name: "#<seq> <c10's debug>"
};

struct Translation {
  std::vector<Call> calls;  // in recorded order
  // Registrations skipped because c10's key is not in our vocabulary: key name -> count.
  std::map<std::string, long> skipped_keys;
  // Rows that could not be translated (a schema text we cannot split, an unknown call): the
  // reason -> count and first message.
  std::map<std::string, std::pair<long, std::string>> untranslatable;

  long skipped() const;
  long untranslated() const;
};

Translation translate(const std::vector<Row>& rows);

// Our schema for a def row. Throws std::runtime_error on text it cannot split.
FunctionSchema translateSchema(const Row& row);

// An operator's name as one string, "aten::add.Tensor" ("aten::relu." without an overload): how
// the table comparison and the fuzz seeds name operators.
std::string operatorKey(const std::string& op, const std::string& overload);

// Every `stride`-th operator in order of first appearance (from the first), with every def and
// impl row of those operators, and every fallback and library row, in recorded order.
std::vector<Row> operatorSlice(const std::vector<Row>& rows, size_t stride);

// A fresh dispatcher of layout L and the registrations made into it (released before it).
template <class L>
class Replay {
 public:
  Replay() : dispatcher_(std::make_unique<BasicDispatcher<L>>()) {}
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;
  ~Replay() { handles_.clear(); }

  // Makes one registration (the call's schema and debug text are moved in, as c10's callers
  // move theirs); nullopt when it was made, else the refusal.
  std::optional<Refusal> apply(Call call);

  void reserve(size_t calls) { handles_.reserve(calls); }
  BasicDispatcher<L>& dispatcher() { return *dispatcher_; }
  const BasicDispatcher<L>& dispatcher() const { return *dispatcher_; }

 private:
  std::unique_ptr<BasicDispatcher<L>> dispatcher_;
  std::vector<RegistrationHandle> handles_;  // destroyed before the dispatcher
};

namespace detail {
template <class L>
void noopKernel(const BasicOperatorHandle<L>&, DispatchKeySet, Stack*) {}

// Library and name registrations throw rather than refuse.
template <class F>
TriedRegistration catching(F&& registration) {
  try {
    return registration();
  } catch (const RegistrationError& e) {
    return Refusal(Refusal::Kind::Registration, e.what());
  }
}
}  // namespace detail

template <class L>
std::optional<Refusal> Replay<L>::apply(Call call) {
  using KernelFunction = BasicKernelFunction<L>;
  auto kernel = [&] {
    return call.fallthrough ? KernelFunction::makeFallthrough()
                            : KernelFunction::template makeFromBoxedFunction<&detail::noopKernel<L>>();
  };
  TriedRegistration tried = [&]() -> TriedRegistration {
    switch (call.kind) {
      case CallKind::Library:
        return detail::catching(
            [&] { return dispatcher_->registerLibrary(std::move(call.name.name), std::move(call.debug)); });
      case CallKind::Name:
        return detail::catching([&] { return dispatcher_->registerName(std::move(call.name)); });
      case CallKind::Def:
        return dispatcher_->tryRegisterDef(std::move(*call.schema), std::move(call.debug));
      case CallKind::Impl: {
        std::optional<CppSignature> signature;
        if (call.typed) signature = CppSignature::make<Tensor(const Tensor&)>();  // the stand-in
        return dispatcher_->tryRegisterImpl(std::move(call.name), call.key, kernel(), signature, std::nullopt,
                                            std::move(call.debug));
      }
      case CallKind::Fallback:
        return dispatcher_->tryRegisterFallback(*call.key, kernel(), std::move(call.debug));
    }
    return Refusal(Refusal::Kind::Registration, "unknown call kind");
  }();
  if (!tried.ok()) return *tried.refusal();
  handles_.push_back(std::move(tried).take());
  return std::nullopt;
}

}  // namespace dispatch::workload
