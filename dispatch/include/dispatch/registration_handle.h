#pragma once
// Move-only RAII handle that undoes one registration exactly once.

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "dispatch/errors.h"

namespace dispatch {

class RegistrationHandle {
 public:
  RegistrationHandle() = default;  // inert
  // `what` names the registration ("impl of 'ns::op' for dispatch key CPU") for error messages.
  explicit RegistrationHandle(std::function<void()> undo, std::string what = {})
      : undo_(std::move(undo)),
        what_(what.empty() ? nullptr : std::make_shared<const std::string>(std::move(what))) {}
  // The moved-from handle is inert but still knows what it was, for release()'s message.
  RegistrationHandle(RegistrationHandle&& other) noexcept
      : undo_(std::exchange(other.undo_, {})), what_(other.what_) {}
  RegistrationHandle& operator=(RegistrationHandle&& other) noexcept {
    if (this != &other) {
      reset();
      undo_ = std::exchange(other.undo_, {});
      what_ = other.what_;
    }
    return *this;
  }
  RegistrationHandle(const RegistrationHandle&) = delete;
  RegistrationHandle& operator=(const RegistrationHandle&) = delete;
  ~RegistrationHandle() { reset(); }

  // Whether dropping this handle would still undo something.
  bool active() const noexcept { return static_cast<bool>(undo_); }

  // Undoes the registration now. Throws RegistrationError when there is nothing to undo
  // (already released, moved from, or default-constructed): a double deregistration is a bug
  // in the caller, never a silent no-op.
  void release() {
    DISPATCH_CHECK(active(), RegistrationError,
                   "registration handle released twice (or moved from, or never registered)",
                   what_ ? ": " : "", what_ ? *what_ : std::string());
    reset();
  }

 private:
  // Deregistration never throws on a valid handle; it only runs checked internal updates.
  void reset() noexcept {
    if (auto undo = std::exchange(undo_, {})) undo();
  }

  std::function<void()> undo_;
  std::shared_ptr<const std::string> what_;  // shared: copying it in a move stays noexcept
};

}  // namespace dispatch
