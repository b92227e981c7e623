#include "oracle/runner/step_log.h"

#include <cstdio>
#include <cstdlib>

namespace dispatch::oracle {

bool traceSteps() {
  static const bool enabled = [] {
    const char* value = std::getenv("DISPATCH_FUZZ_TRACE");
    return value != nullptr && value[0] == '1';
  }();
  return enabled;
}

void logStep(std::string_view flavour, size_t step, std::string_view action,
             std::optional<DispatchKey> key, const std::string& description) {
  const std::string key_text =
      key ? (isValidDispatchKey(*key) ? std::string(toString(*key)) : std::string("invalid")) : "-";
  std::fprintf(stderr, "DISPATCH-STEP flavour=%.*s step=%zu action=%.*s key=%s | %s\n",
               static_cast<int>(flavour.size()), flavour.data(), step,
               static_cast<int>(action.size()), action.data(), key_text.c_str(), description.c_str());
}

}  // namespace dispatch::oracle
