#include "oracle/actions/names.h"

#include <charconv>
#include <iterator>

#include "dispatch/dispatch_key_set.h"

namespace dispatch::oracle {

std::string hex(uint64_t raw) {
  // Every kernel result carries one (kernelResult), so no stream is built for it.
  char digits[16];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), raw, 16).ptr;
  return "0x" + std::string(std::begin(digits), end);
}

std::string keyName(DispatchKey k) {
  if (!isValidDispatchKey(k)) return "DispatchKey(" + std::to_string(toUnderlying(k)) + ")";
  return std::string(toString(k));
}

std::string keyName(std::optional<DispatchKey> key) {
  return key ? keyName(*key) : "catch-all";
}

std::string backendName(BackendComponent b) {
  if (!isValidBackendComponent(b)) return "BackendComponent(" + std::to_string(toUnderlying(b)) + ")";
  return std::string(toString(b));
}

std::string keySetName(uint64_t raw) {
  return toString(DispatchKeySet(DispatchKeySet::RAW, raw)) + " [" + hex(raw) + "]";
}

std::string keyListName(const std::vector<DispatchKey>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keyName(keys[i]);
  return out + "]";
}

}  // namespace dispatch::oracle
