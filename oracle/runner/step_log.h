#pragma once
// DISPATCH_FUZZ_TRACE=1 logs every step before it runs, so that the last line before a crash
// names the flavour, action and key that crashed (ci/ buckets failures by that line's format:
// "DISPATCH-STEP flavour=<f> step=<n> action=<kind> key=<key or -> | <description>").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/dispatch_key.h"

namespace dispatch::oracle {

bool traceSteps();

// Writes the DISPATCH-STEP line to stderr (call only when traceSteps()).
void logStep(std::string_view flavour, size_t step, std::string_view action,
             std::optional<DispatchKey> key, const std::string& description);

}  // namespace dispatch::oracle
