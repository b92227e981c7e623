#pragma once
// For the runner tests: our dispatcher (full layout) behind the seam, every member passed on, so a
// test SUT overrides only the members into which it injects its fault. It starts without the
// start-up fallbacks and supports every action but NamedKey ones (as ours).

#include "oracle/ours/our_dispatcher_sut.h"

namespace dispatch::oracle {

class DelegatingSut : public SystemUnderTest {
 public:
  model::Flavour flavour() const override { return real_.flavour(); }
  std::string opName(int op) const override { return real_.opName(op); }
  bool startsWithStartupFallbacks() const override { return false; }
  bool runsStartupFallbacks() const override { return true; }
  bool callErrorsNameOperatorAndKey() const override { return true; }
  std::optional<std::string> unsupported(const Action& a, const model::ModelDispatcher& model) const override {
    return real_.unsupported(a, model);
  }
  SutOutcome define(int op) override { return real_.define(op); }
  SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind, const std::string& kernel) override {
    return real_.implement(op, key, kind, kernel);
  }
  SutOutcome fallback(DispatchKey key, KernelKind kind, bool lib, const std::string& kernel) override {
    return real_.fallback(key, kind, lib, kernel);
  }
  SutOutcome startupFallbacks() override { return real_.startupFallbacks(); }
  SutOutcome libraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key,
                          const std::string& kernel) override {
    return real_.libraryBlock(block, op, key, kernel);
  }
  bool deregister(size_t handle) override { return real_.deregister(handle); }
  void pushGuard(bool include, uint64_t raw) override { real_.pushGuard(include, raw); }
  void popGuard() override { real_.popGuard(); }
  TlsKeys threadLocalKeys() const override { return real_.threadLocalKeys(); }
  SutOutcome call(ActionKind kind, int op, uint64_t self, std::optional<uint64_t> other) override {
    return real_.call(kind, op, self, other);
  }
  void declare(int op, const DeclaredOp& declared) override { real_.declare(op, declared); }
  SutOutcome defineDeclared(int op, bool library) override { return real_.defineDeclared(op, library); }
  SutOutcome implementTyped(int op, std::optional<DispatchKey> key, int signature, const std::string& kernel) override {
    return real_.implementTyped(op, key, signature, kernel);
  }
  SutOutcome callStack(const StackCall& call) override { return real_.callStack(call); }
  bool checksBoxedStacks() const override { return true; }
  std::optional<std::string> table(int op) const override { return real_.table(op); }
  std::optional<std::string> fallbackTable() const override { return real_.fallbackTable(); }
  std::optional<std::string> checkInvariants() const override { return real_.checkInvariants(); }

 protected:
  OurDispatcherSut<FullLayout> real_;
};

}  // namespace dispatch::oracle
