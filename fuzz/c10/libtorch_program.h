#pragma once
// A c10 input as a standalone C++ program against libtorch's public API (torch::Library,
// c10::Dispatcher, c10's guards): the file to attach to an upstream bug report. It replays the
// actions the seam runner ran on c10 (skipped ones are left out), prints what each did, and
// exits 1 when c10's OperatorHandle::checkInvariants() fails or a popped guard leaves the
// thread-local keys changed; 0 otherwise.

#include <string>
#include <vector>

#include "oracle/actions/action.h"

namespace dispatch::fuzz::c10 {

// `actions`: the actions to replay, in order; `origin`: a line saying where they came from.
std::string libtorchProgram(const std::vector<oracle::Action>& actions, const std::string& origin);

}  // namespace dispatch::fuzz::c10
