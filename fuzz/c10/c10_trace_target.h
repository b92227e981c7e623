#pragma once
// The body the c10 fuzz targets share (c10_registration_fuzzer, c10_release_keys_fuzzer; they
// differ in their action weights only): each input runs on a fresh c10 system under test
// (c10_sut/). Against 1.13.1 it is checked against the model after every action (tables,
// outcomes, thread-local keys) and with c10's OperatorHandle::checkInvariants after every
// registration and drop; against other releases (or with DISPATCH_C10_ORACLE=model-free) by the
// model-free oracles (c10_sut/c10_oracle.h), with every live slot probed. Afterwards c10 must be
// exactly as the input found it. Sanitizers and coverage see our code only (libtorch is not
// instrumented).
//
// DISPATCH_C10_KNOWN_UPSTREAM=<fuzz/c10/known_upstream.signatures>: an input that only shows a
// known upstream bug is skipped (and kept out of the corpus), so a campaign goes on past them;
// "c10 known upstream: <id> seen in <N> inputs" goes to stderr on its first input, whenever N
// doubles and at exit (the nightly counts them per release: ci/dispatch_ci/c10_known.py).
// DISPATCH_C10_COUNTS=1: at exit, how many actions ran and were skipped (by reason), and the
// registrations on keys by c10's name (NamedKey) c10 accepted and refused, per key.

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz::c10 {

// LLVMFuzzerTestOneInput of a c10 target: 0, or -1 for an input that shows a known upstream bug
// only; reports (and aborts) on anything else.
int runC10Target(const char* target, const oracle::ActionWeights& weights, const uint8_t* data, size_t size);

// --print-cpp: a standalone program against libtorch (libtorch_program.h) replaying the actions
// the runner ran on c10, up to the first report.
void printC10InputAsCpp(std::ostream& out, const oracle::ActionWeights& weights, const uint8_t* data,
                        size_t size);

}  // namespace dispatch::fuzz::c10
