#include "dispatch/dispatch_key.h"

#include <array>
#include <ostream>

#include "dispatch/errors.h"

namespace dispatch {
namespace {

constexpr int kNumKeyValues = toUnderlying(DispatchKey::EndOfAliasKeys) + 1;

// Canonical names indexed by enum value, generated from the key table in enum order.
constexpr std::array<std::string_view, kNumKeyValues> kKeyNames = {
    "Undefined",
#define DISPATCH_DETAIL_NAME(name, ...) #name,
    DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_NAME, DISPATCH_DETAIL_NAME)
#undef DISPATCH_DETAIL_NAME
    "EndOfFunctionalityKeys",
#define DISPATCH_DETAIL_RUNTIME_NAME(prefix, b) #prefix #b,
#define DISPATCH_DETAIL_BLOCK_NAMES(name, prefix) \
  #prefix "Unknown", DISPATCH_FORALL_BACKEND_COMPONENTS(DISPATCH_DETAIL_RUNTIME_NAME, prefix)
    DISPATCH_FORALL_FUNCTIONALITY_KEYS(DISPATCH_DETAIL_IGNORE, DISPATCH_DETAIL_BLOCK_NAMES)
#undef DISPATCH_DETAIL_BLOCK_NAMES
#undef DISPATCH_DETAIL_RUNTIME_NAME
#define DISPATCH_DETAIL_ALIAS_NAME(name) #name,
    DISPATCH_FORALL_ALIAS_KEYS(DISPATCH_DETAIL_ALIAS_NAME)
#undef DISPATCH_DETAIL_ALIAS_NAME
};

constexpr std::array<std::string_view, num_backends + 1> kBackendNames = {
    "InvalidBit",
#define DISPATCH_DETAIL_BACKEND_NAME(extra, b) #b "Bit",
    DISPATCH_FORALL_BACKEND_COMPONENTS(DISPATCH_DETAIL_BACKEND_NAME, )
#undef DISPATCH_DETAIL_BACKEND_NAME
};

struct BcName {
  std::string_view name;
  DispatchKey key;
};
constexpr BcName kBcNames[] = {
#define DISPATCH_DETAIL_BC_NAME(alias, key) {#alias, DispatchKey::key},
    DISPATCH_FORALL_BC_ALIASES(DISPATCH_DETAIL_BC_NAME)
#undef DISPATCH_DETAIL_BC_NAME
};

}  // namespace

std::string_view toString(DispatchKey k) noexcept {
  if (!isValidDispatchKey(k)) return "UNKNOWN_TENSOR_TYPE_ID";
  return kKeyNames[toUnderlying(k)];
}

std::string_view toString(BackendComponent b) noexcept {
  if (!isValidBackendComponent(b)) return "UNKNOWN_BACKEND_BIT";
  return kBackendNames[toUnderlying(b)];
}

std::ostream& operator<<(std::ostream& out, DispatchKey k) { return out << toString(k); }
std::ostream& operator<<(std::ostream& out, BackendComponent b) { return out << toString(b); }

std::optional<DispatchKey> tryParseDispatchKey(std::string_view name) noexcept {
  for (int v = 0; v < kNumKeyValues; ++v) {
    if (kKeyNames[static_cast<size_t>(v)] == name) return static_cast<DispatchKey>(v);
  }
  for (const auto& bc : kBcNames) {
    if (bc.name == name) return bc.key;
  }
  return std::nullopt;
}

DispatchKey parseDispatchKey(std::string_view name) {
  auto key = tryParseDispatchKey(name);
  DISPATCH_CHECK(key.has_value(), InvalidKeyError, "could not parse dispatch key: ", name);
  return *key;
}

std::string invalidDispatchKeyMessage(DispatchKey k, std::string_view what) {
  return detail::concat(what, ": dispatch key value ", toUnderlying(k),
                        " is outside the DispatchKey enum (0..",
                        toUnderlying(DispatchKey::EndOfAliasKeys), ")");
}

void checkValidDispatchKey(DispatchKey k, std::string_view what) {
  if (!isValidDispatchKey(k)) [[unlikely]] throw InvalidKeyError(invalidDispatchKeyMessage(k, what));
}

}  // namespace dispatch
