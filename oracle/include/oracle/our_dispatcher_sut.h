#pragma once
// The seam (oracle/system_under_test.h) over our own dispatcher: a fresh BasicDispatcher<L> per
// object, registrations through registerDef / registerImpl / registerFallback, Library blocks
// and registerStartupFallbacks, exactly as the trace runner makes them. One class per layout in
// DISPATCH_FOR_EACH_LAYOUT.

#include <memory>
#include <variant>
#include <vector>

#include "dispatch/flavours.h"
#include "oracle/system_under_test.h"

namespace dispatch::oracle {

template <class L>
class OurDispatcherSut final : public SystemUnderTest {
 public:
  OurDispatcherSut() = default;
  ~OurDispatcherSut() override;

  std::string name() const override;
  model::Flavour flavour() const override;
  std::string opName(int op) const override;
  bool startsWithStartupFallbacks() const override { return false; }
  bool runsStartupFallbacks() const override { return true; }
  bool callErrorsNameTheOperator() const override { return true; }
  std::optional<std::string> unsupported(const Action&, const model::ModelDispatcher&) const override {
    return std::nullopt;  // it refuses every bad input with a typed error
  }

  SutOutcome define(int op) override;
  SutOutcome implement(int op, std::optional<DispatchKey> key, KernelKind kind,
                       const std::string& kernel) override;
  SutOutcome fallback(DispatchKey key, KernelKind kind, bool through_library,
                      const std::string& kernel) override;
  SutOutcome startupFallbacks() override;
  bool deregister(size_t handle) override;

  void pushGuard(bool include, uint64_t raw_keys) override;
  void popGuard() override;
  TlsKeys threadLocalKeys() const override;

  SutOutcome call(ActionKind kind, int op, uint64_t self, std::optional<uint64_t> other) override;

  std::optional<std::string> table(int op) const override;
  std::optional<std::string> fallbackTable() const override { return dispatcher_.dumpFallbacks(); }
  std::optional<std::string> checkInvariants() const override;

  const BasicDispatcher<L>& dispatcher() const noexcept { return dispatcher_; }

 private:
  struct Registration {
    std::optional<RegistrationHandle> handle;  // def, impl, direct fallback
    std::vector<BasicLibrary<L>> libraries;    // library and start-up fallbacks
    bool dropped = false;
  };
  using Guard = std::variant<std::unique_ptr<IncludeDispatchKeyGuard>,
                             std::unique_ptr<ExcludeDispatchKeyGuard>>;

  template <class F>
  SutOutcome registerWith(F&& make);

  BasicDispatcher<L> dispatcher_;
  std::vector<Registration> registrations_;  // after dispatcher_: dropped before it dies
  std::vector<Guard> guards_;
};

#define DISPATCH_ORACLE_EXTERN_SUT(L) extern template class OurDispatcherSut<L>;
DISPATCH_FOR_EACH_LAYOUT(DISPATCH_ORACLE_EXTERN_SUT)
#undef DISPATCH_ORACLE_EXTERN_SUT

}  // namespace dispatch::oracle
