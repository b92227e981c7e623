#pragma once
// Move-only RAII handle that undoes one registration exactly once.

#include <functional>
#include <utility>

#include "dispatch/errors.h"

namespace dispatch {

class RegistrationHandle {
 public:
  RegistrationHandle() = default;  // inert
  explicit RegistrationHandle(std::function<void()> undo) : undo_(std::move(undo)) {}
  RegistrationHandle(RegistrationHandle&& other) noexcept : undo_(std::exchange(other.undo_, {})) {}
  RegistrationHandle& operator=(RegistrationHandle&& other) noexcept {
    if (this != &other) {
      reset();
      undo_ = std::exchange(other.undo_, {});
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
                   "registration handle released twice (or moved from, or never registered)");
    reset();
  }

 private:
  // Deregistration never throws on a valid handle; it only runs checked internal updates.
  void reset() noexcept {
    if (auto undo = std::exchange(undo_, {})) undo();
  }

  std::function<void()> undo_;
};

}  // namespace dispatch
