#pragma once
// Dropping one registration of a runner (the trace runner's and the seam's dispatcher both keep
// a handle, or the library blocks of a library or start-up registration).

#include "dispatch/errors.h"

namespace dispatch::oracle {

// Releases what `reg` holds and marks it dropped; returns whether the dispatcher refused. A
// handle refuses a second release itself (tryRelease answers false where release() throws
// RegistrationError; runners drop twice often, so they skip the exception); library blocks have
// no release of their own, so dropping them twice counts as refused.
template <class Registration>
bool releaseRegistration(Registration& reg) {
  bool refused = false;
  if (reg.handle) {
    refused = !reg.handle->tryRelease();
  } else {
    refused = reg.dropped;
    for (auto& library : reg.libraries) library.reset();
  }
  reg.dropped = true;
  return refused;
}

}  // namespace dispatch::oracle
