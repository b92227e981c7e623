#pragma once
// The seam (oracle/runner/system_under_test.h) over PyTorch's own dispatcher, c10 in libtorch 1.13.1.
// c10's dispatcher is a process singleton that already holds libtorch's start-up fallbacks
// when the first C10System is made: the model starts from that state (the runner registers the
// 1.13 start-up set on it), and every C10System leaves c10 exactly as it found it (c10State()
// before and after tells). Registrations go through torch::Library objects it creates and
// destroys (destroying one deregisters), in its own namespace kNamespace; kernels report which
// registration ran and with which key set; tensors carry exactly the chosen DispatchKeySet;
// guards are c10's. Declared-schema traces (boxed_call_fuzzer's vocabulary) define their
// operators in kNamespace too, with typed and boxed kernels of src/c10_declared.h. libtorch
// itself is not instrumented (sanitizers see only our code).
//
// This header names no libtorch type: targets that include it need no libtorch include path.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "oracle/runner/system_under_test.h"

namespace dispatch::c10_sut {

// The namespace of the operators a C10System defines: fz::opN of the action vocabulary is
// dispatch_seam::opN in c10.
inline constexpr std::string_view kNamespace = "dispatch_seam";

// A fresh system under test over c10. One at a time per process (c10 has one dispatcher).
// Throws std::logic_error when c10 is not in its start-up state (a previous input leaked).
// probe_every_slot: its invariant check also probes every live slot of every operator against
// the computed table after c10's own check passes (the model-free oracle; c10's check compares
// only function pointers, which every typed kernel of the harness shares). Without it the live
// table is probed only to name the slots when c10's check fails.
// reading: how a live slot is read. Cheap asks c10 whether the slot is valid (and, where a handle
// can read it, whether it is a fallthrough) and calls through it only where a call is the one way
// to tell; ByCalls calls through every slot, as a user's call would (what Cheap is checked against).
enum class SlotReading { Cheap, ByCalls };
std::unique_ptr<oracle::SystemUnderTest> makeC10System(bool probe_every_slot = false,
                                                       SlotReading reading = SlotReading::Cheap);

// The NamedKey registrations (keys by c10's name, oracle/actions/release_keys.h) that C10Systems
// of this process made on c10, by key: how many c10 accepted and refused. Skipped ones (a key
// the release lacks, a fallback c10 would not take) are not among them.
struct NamedKeyCount {
  size_t accepted = 0;
  size_t refused = 0;
};
std::map<std::string, NamedKeyCount> namedKeyCounts();

// What the runner can see of c10's global state: the computed table of a probe operator (so
// every fallback), the operators of kNamespace, the number of operators and the thread-local
// keys. Equal before and after an input when the input left c10 as it found it.
std::string c10State();

// The keys and key-set bits one vocabulary has and the other lacks, matched by name:
// "only in c10: A B ...\nonly in ours: C D ...\n" (src/c10_keys.h).
std::string keyCoverageReport();

}  // namespace dispatch::c10_sut
