#pragma once
// Readable names for keys, backends and raw key sets, also for out-of-range values a fuzzer or a
// generator makes up. The one spelling every fuzz target, property and report uses.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatch_key.h"

namespace dispatch::oracle {

std::string hex(uint64_t raw);                         // "0x1f"
std::string keyName(DispatchKey k);                    // "CPU", or "DispatchKey(200)"
std::string keyName(std::optional<DispatchKey> key);   // as above; "catch-all" for none
std::string backendName(BackendComponent b);           // "CPUBit", or "BackendComponent(99)"
std::string keySetName(uint64_t raw);                  // "DispatchKeySet(CPU, ...) [0x...]"
std::string keyListName(const std::vector<DispatchKey>& keys);  // "[CPU, DispatchKey(200)]"

}  // namespace dispatch::oracle
