#include "harness/trace_mutator_hooks.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness/trace_mutator.h"

// libFuzzer's byte mutators; weak, so builds without libFuzzer link (and never call the hooks).
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) __attribute__((weak));

namespace dispatch::fuzz {

namespace {
MutatorChoice readChoice(MutatorChoice target_default) {
  const char* value = std::getenv("DISPATCH_FUZZ_MUTATOR");
  if (value == nullptr || *value == '\0') return target_default;
  if (std::strcmp(value, "structure") == 0) return MutatorChoice::Structure;
  if (std::strcmp(value, "bytes") == 0) return MutatorChoice::Bytes;
  std::fprintf(stderr, "DISPATCH_FUZZ_MUTATOR=%s: expected structure or bytes\n", value);
  std::abort();
}

size_t libFuzzerBytes(uint8_t* data, size_t size, size_t max_size) {
  return LLVMFuzzerMutate != nullptr ? LLVMFuzzerMutate(data, size, max_size) : size;
}
}  // namespace

MutatorChoice mutatorChoice(MutatorChoice target_default) {
  static const MutatorChoice choice = readChoice(target_default);
  return choice;
}

size_t customMutate(const oracle::ActionWeights& weights, MutatorChoice target_default, uint8_t* data,
                    size_t size, size_t max_size, unsigned seed) {
  if (mutatorChoice(target_default) == MutatorChoice::Bytes) return libFuzzerBytes(data, size, max_size);
  return mutateTrace(weights, data, size, max_size, seed, libFuzzerBytes);
}

size_t customCrossOver(const oracle::ActionWeights& weights, MutatorChoice target_default,
                       const uint8_t* first, size_t first_size, const uint8_t* second, size_t second_size,
                       uint8_t* out, size_t max_out_size, unsigned seed) {
  if (mutatorChoice(target_default) == MutatorChoice::Bytes) return 0;
  return crossOverTraces(weights, first, first_size, second, second_size, out, max_out_size, seed);
}

}  // namespace dispatch::fuzz
