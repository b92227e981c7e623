#pragma once
// Printing helpers every fuzz target and the harness share: readable names for keys, backends
// and raw key sets (also for out-of-range values a fuzzer makes up), and the step-log switch.

#include <cstdint>
#include <optional>
#include <string>

#include "dispatch/dispatch_key.h"

namespace dispatch::fuzz {

std::string hex(uint64_t raw);                         // "0x1f"
std::string keyName(DispatchKey k);                    // "CPU", or "DispatchKey(200)"
std::string keyName(std::optional<DispatchKey> key);   // as above; "catch-all" for none
std::string backendName(BackendComponent b);           // "CPUBit", or "BackendComponent(99)"
std::string keySetName(uint64_t raw);                  // "DispatchKeySet(CPU, ...) [0x...]"

// DISPATCH_FUZZ_TRACE=1 logs every step before it runs, so that the last line before a crash
// names the flavour, action and key that crashed (ci/ buckets failures by it).
bool traceSteps();

}  // namespace dispatch::fuzz
