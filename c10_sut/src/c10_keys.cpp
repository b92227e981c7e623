#include "c10_keys.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "dispatch/dispatch_key_set.h"
#include "oracle/model/model.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::c10_sut {

namespace {

constexpr size_t kBits = 64;
constexpr size_t kNoBit = kBits;
constexpr size_t kOurFunctionalityEnd = num_backends + num_functionality_keys - 1;  // first unknown bit
constexpr size_t kC10FunctionalityEnd =
    c10::num_backends + static_cast<size_t>(c10::DispatchKey::EndOfFunctionalityKeys) - 1;

// Every key of ours a registration or a key set can name: functionality, runtime and alias keys.
std::vector<DispatchKey> ourKeys() {
  std::vector<DispatchKey> keys;
  for (uint16_t f = 1; f < num_functionality_keys; ++f) keys.push_back(static_cast<DispatchKey>(f));
  for (DispatchKey k : model::allRuntimeKeys()) keys.push_back(k);
  for (DispatchKey k : model::aliasKeys()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// c10's keys by name, as ourKeys() lists ours: functionality keys, runtime keys (a full key set
// iterates over exactly those) and alias keys. The placeholders (StartOf*Backends) are none.
std::map<std::string, c10::DispatchKey> c10KeysByName() {
  std::map<std::string, c10::DispatchKey> out;
  for (uint16_t f = 1; f < static_cast<uint16_t>(c10::DispatchKey::EndOfFunctionalityKeys); ++f) {
    const auto k = static_cast<c10::DispatchKey>(f);
    out.emplace(c10::toString(k), k);
  }
  for (c10::DispatchKey k : c10::DispatchKeySet(c10::DispatchKeySet::FULL)) out.emplace(c10::toString(k), k);
  for (uint16_t v = static_cast<uint16_t>(c10::DispatchKey::EndOfRuntimeBackendKeys) + 1;
       v <= static_cast<uint16_t>(c10::DispatchKey::EndOfAliasKeys); ++v) {
    const auto k = static_cast<c10::DispatchKey>(v);
    if (c10::isAliasDispatchKey(k)) out.emplace(c10::toString(k), k);
  }
  return out;
}

struct Translation {
  std::map<std::string, c10::DispatchKey> c10_by_name = c10KeysByName();
  std::map<DispatchKey, c10::DispatchKey> to_c10;
  std::map<c10::DispatchKey, DispatchKey> from_c10;
  std::array<size_t, kBits> our_bit_to_c10;
  std::array<size_t, kBits> c10_bit_to_ours;
  std::array<std::string, kBits> c10_bit_name;
  std::array<std::string, kBits> our_bit_name;
  KeyCoverage coverage;

  Translation() {
    our_bit_to_c10.fill(kNoBit);
    c10_bit_to_ours.fill(kNoBit);
    const auto& c10_keys = c10_by_name;
    std::set<std::string> ours_named;
    for (DispatchKey k : ourKeys()) {
      const std::string name(toString(k));
      ours_named.insert(name);
      if (const auto it = c10_keys.find(name); it != c10_keys.end()) {
        to_c10.emplace(k, it->second);
        from_c10.emplace(it->second, k);
      } else {
        coverage.only_in_ours.push_back(name);
      }
    }
    for (const auto& [name, key] : c10_keys) {
      if (!ours_named.count(name)) coverage.only_in_c10.push_back(name);
    }
    mapBits(c10_keys, ours_named);
    std::sort(coverage.only_in_c10.begin(), coverage.only_in_c10.end());
    std::sort(coverage.only_in_ours.begin(), coverage.only_in_ours.end());
  }

  // A functionality bit one side lacks is named only when the other side has that key (then as
  // a runtime key of a per-backend functionality, as 2.x has 1.13's SparseCsrCPU); a key both
  // lack as a bit is already named as a key.
  void mapBits(const std::map<std::string, c10::DispatchKey>& c10_keys, const std::set<std::string>& our_keys) {
    std::map<std::string, size_t> c10_bits;
    for (size_t b = 1; b <= c10::num_backends; ++b) {
      const std::string name = c10::toString(static_cast<c10::BackendComponent>(b));
      c10_bits[name] = b - 1;
      c10_bit_name[b - 1] = name;
    }
    for (size_t f = 1; f < static_cast<size_t>(c10::DispatchKey::EndOfFunctionalityKeys); ++f) {
      const std::string name = c10::toString(static_cast<c10::DispatchKey>(f));
      c10_bits[name] = c10::num_backends + f - 1;
      c10_bit_name[c10::num_backends + f - 1] = name;
    }
    std::set<std::string> ours;
    auto pair = [&](size_t bit, const std::string& name) {
      our_bit_name[bit] = name;
      ours.insert(name);
      if (const auto it = c10_bits.find(name); it != c10_bits.end()) {
        our_bit_to_c10[bit] = it->second;
        c10_bit_to_ours[it->second] = bit;
      } else {
        // Backend bits are named here; a functionality bit whose key c10 has as a per-backend
        // runtime key instead (1.13's SparseCsrCPU) is named as a bit.
        if (name.ends_with("Bit")) {
          coverage.only_in_ours.push_back(name);
        } else if (c10_keys.count(name)) {
          coverage.only_in_ours.push_back(name + " (key-set bit)");
        }
      }
    };
    for (size_t b = 1; b <= num_backends; ++b) pair(b - 1, std::string(toString(static_cast<BackendComponent>(b))));
    for (size_t f = 1; f < num_functionality_keys; ++f) {
      pair(num_backends + f - 1, std::string(toString(static_cast<DispatchKey>(f))));
    }
    for (const auto& [name, bit] : c10_bits) {
      if (ours.count(name)) continue;
      if (name.ends_with("Bit")) {
        coverage.only_in_c10.push_back(name);
      } else if (our_keys.count(name)) {
        coverage.only_in_c10.push_back(name + " (key-set bit)");
      }
    }
    // Bits past the last functionality key: unknown on both sides, at the same distance.
    for (size_t d = 0; kOurFunctionalityEnd + d < kBits && kC10FunctionalityEnd + d < kBits; ++d) {
      our_bit_to_c10[kOurFunctionalityEnd + d] = kC10FunctionalityEnd + d;
      c10_bit_to_ours[kC10FunctionalityEnd + d] = kOurFunctionalityEnd + d;
    }
    for (size_t bit = kOurFunctionalityEnd; bit < kBits; ++bit) our_bit_name[bit] = "bit " + std::to_string(bit);
    for (size_t bit = kC10FunctionalityEnd; bit < kBits; ++bit) c10_bit_name[bit] = "bit " + std::to_string(bit);
  }
};

const Translation& translation() {
  static const Translation t;
  return t;
}

}  // namespace

c10::DispatchKey toC10(DispatchKey key) {
  const auto& t = translation();
  if (const auto it = t.to_c10.find(key); it != t.to_c10.end()) return it->second;
  throw UnmappedKey("c10 has no dispatch key " + std::string(toString(key)));
}

bool c10HasKey(DispatchKey key) { return translation().to_c10.count(key) != 0; }

DispatchKey fromC10(c10::DispatchKey key) {
  const auto& t = translation();
  if (const auto it = t.from_c10.find(key); it != t.from_c10.end()) return it->second;
  throw UnmappedKey(std::string("our dispatcher has no dispatch key ") + c10::toString(key));
}

std::optional<c10::DispatchKey> c10KeyNamed(const std::string& name) {
  const auto& by_name = translation().c10_by_name;
  if (const auto it = by_name.find(name); it != by_name.end()) return it->second;
  return std::nullopt;
}

c10::DispatchKeySet toC10Set(uint64_t raw) {
  const auto& t = translation();
  uint64_t out = 0;
  for (size_t bit = 0; bit < kBits; ++bit) {
    if (!((raw >> bit) & 1)) continue;
    if (t.our_bit_to_c10[bit] == kNoBit) throw UnmappedKey("c10 has no key-set bit for " + t.our_bit_name[bit]);
    out |= uint64_t{1} << t.our_bit_to_c10[bit];
  }
  return c10::DispatchKeySet(c10::DispatchKeySet::RAW, out);
}

TranslatedSet translateC10Set(c10::DispatchKeySet keys) {
  const auto& t = translation();
  TranslatedSet out;
  const uint64_t raw = keys.raw_repr();
  for (size_t bit = 0; bit < kBits; ++bit) {
    if (!((raw >> bit) & 1)) continue;
    if (t.c10_bit_to_ours[bit] == kNoBit) {
      out.unmapped.push_back(t.c10_bit_name[bit]);
    } else {
      out.raw |= uint64_t{1} << t.c10_bit_to_ours[bit];
    }
  }
  return out;
}

uint64_t fromC10Set(c10::DispatchKeySet keys) {
  const TranslatedSet t = translateC10Set(keys);
  if (!t.unmapped.empty()) throw UnmappedKey("our dispatcher has no key-set bit for " + t.unmapped.front());
  return t.raw;
}

std::string c10KernelResult(const std::string& kernel, c10::DispatchKeySet keys) {
  const TranslatedSet t = translateC10Set(keys);
  std::string out = oracle::kernelResult(kernel, t.raw);
  for (const auto& name : t.unmapped) out += "+" + name;
  return out;
}

KeyCoverage keyCoverage() { return translation().coverage; }

}  // namespace dispatch::c10_sut
