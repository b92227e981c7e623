#pragma once
// Move-only RAII handle that undoes one registration exactly once.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "dispatch/errors.h"

namespace dispatch {

class RegistrationHandle {
 public:
  // What a handle undoes. The description ("impl of 'ns::op' for dispatch key CPU") is built
  // only for release()'s error message: registrations are made by the thousand per fuzz input,
  // and one object per registration is all they allocate.
  class Registration {
   public:
    virtual ~Registration() = default;
    virtual void undo() = 0;
    virtual std::string describe() const = 0;
  };

  RegistrationHandle() = default;  // inert
  explicit RegistrationHandle(std::shared_ptr<Registration> registration) noexcept
      : registration_(std::move(registration)), active_(registration_ != nullptr) {}
  // `what` names the registration for error messages. An empty undo makes an inert handle.
  explicit RegistrationHandle(std::function<void()> undo, std::string what = {})
      : active_(static_cast<bool>(undo)) {
    registration_ = std::make_shared<FunctionRegistration>(std::move(undo), std::move(what));
  }
  // The moved-from handle is inert but still knows what it was, for release()'s message.
  RegistrationHandle(RegistrationHandle&& other) noexcept
      : registration_(other.registration_), active_(std::exchange(other.active_, false)) {}
  RegistrationHandle& operator=(RegistrationHandle&& other) noexcept {
    if (this != &other) {
      reset();
      registration_ = other.registration_;
      active_ = std::exchange(other.active_, false);
    }
    return *this;
  }
  RegistrationHandle(const RegistrationHandle&) = delete;
  RegistrationHandle& operator=(const RegistrationHandle&) = delete;
  ~RegistrationHandle() { reset(); }

  // Whether dropping this handle would still undo something.
  bool active() const noexcept { return active_; }

  // Undoes the registration now. Throws RegistrationError when there is nothing to undo
  // (already released, moved from, or default-constructed): a double deregistration is a bug
  // in the caller, never a silent no-op.
  void release() {
    if (tryRelease()) [[likely]] return;
    const std::string what = registration_ ? registration_->describe() : std::string();
    throw RegistrationError(detail::concat(
        "registration handle released twice (or moved from, or never registered)",
        what.empty() ? "" : ": ", what));
  }

  // release() for callers that expect the second release (the fuzz runners drop handles in any
  // order, and twice): undoes the registration and returns true, or returns false where
  // release() throws, having changed nothing.
  [[nodiscard]] bool tryRelease() noexcept {
    if (!active()) return false;
    reset();
    return true;
  }

 private:
  // A registration given as an undo function and a fixed description.
  class FunctionRegistration final : public Registration {
   public:
    FunctionRegistration(std::function<void()> undo, std::string what)
        : undo_(std::move(undo)), what_(std::move(what)) {}
    void undo() override { undo_(); }
    std::string describe() const override { return what_; }

   private:
    std::function<void()> undo_;
    std::string what_;
  };

  // Deregistration never throws on a valid handle; it only runs checked internal updates.
  void reset() noexcept {
    if (std::exchange(active_, false)) registration_->undo();
  }

  std::shared_ptr<Registration> registration_;  // shared: the moved-from handle describes it
  bool active_ = false;
};

// What a try... registration returns: the handle of the registration made, or the refusal its
// throwing form throws (and then nothing changed).
class TriedRegistration {
 public:
  TriedRegistration(RegistrationHandle handle) noexcept : handle_(std::move(handle)) {}  // NOLINT: implicit by design
  TriedRegistration(Refusal refusal) : refusal_(std::move(refusal)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return !refusal_.has_value(); }
  // nullptr when the registration was made.
  const Refusal* refusal() const noexcept { return refusal_ ? &*refusal_ : nullptr; }
  // The handle; throws the refusal as its error type when the registration was refused.
  RegistrationHandle take() && {
    if (refusal_) refusal_->raise();
    return std::move(handle_);
  }

 private:
  RegistrationHandle handle_;
  std::optional<Refusal> refusal_;
};

}  // namespace dispatch
