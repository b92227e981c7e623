#pragma once
// Our keys and key sets in the numbering of the c10 we run against, matched by name. c10's
// DispatchKey values and key-set bits change between releases (2.x added backends and
// functionality keys, and moved Meta), so nothing here assumes 1.13.1's numbering: every key
// and every key-set bit is looked up by its name once per process, both ways. A key or bit one
// side lacks is reported by name (UnmappedKey), never guessed.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <c10/core/DispatchKeySet.h>

#include "dispatch/dispatch_key.h"

namespace dispatch::c10_sut {

// A key (or a key-set bit) that one side has and the other lacks.
class UnmappedKey : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws UnmappedKey when c10 has no key of that name.
c10::DispatchKey toC10(DispatchKey key);
bool c10HasKey(DispatchKey key);
// Throws UnmappedKey when c10 has no key of that name.
DispatchKey fromC10(c10::DispatchKey key);
// c10's functionality, runtime or alias key of that name (as c10::toString spells it), or
// nullopt when this release has none: how a NamedKey action's key is resolved.
std::optional<c10::DispatchKey> c10KeyNamed(const std::string& name);

// Bit by bit: each backend bit by its BackendComponent's name, each functionality bit by its
// key's name. Bits past the last functionality key keep their distance from it (model D4).
// Throws UnmappedKey naming the first bit the other side lacks.
c10::DispatchKeySet toC10Set(uint64_t raw);
uint64_t fromC10Set(c10::DispatchKeySet keys);
// The bits of `keys` we have, as our raw set, and the names of those we lack (c10's bits past
// ours), for the kernels' results: a kernel must report what it got, not throw.
struct TranslatedSet {
  uint64_t raw = 0;
  std::vector<std::string> unmapped;
};
TranslatedSet translateC10Set(c10::DispatchKeySet keys);
// "<kernel>@<hex our raw>", plus "+<c10 name>" for each bit of c10's that we lack.
std::string c10KernelResult(const std::string& kernel, c10::DispatchKeySet keys);

// What the two vocabularies do not share: runtime, functionality and alias keys and backend
// components (by name), sorted. For docs/c10-harness.md's coverage table and its test.
struct KeyCoverage {
  std::vector<std::string> only_in_c10;
  std::vector<std::string> only_in_ours;
};
KeyCoverage keyCoverage();

}  // namespace dispatch::c10_sut
