#pragma once
// What a trace target's LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver call: the
// structure-aware mutation of harness/trace_mutator.h, or libFuzzer's own byte mutation, as the
// target's default says or DISPATCH_FUZZ_MUTATOR (structure | bytes) overrides, so that one
// build can be measured both ways (bench/bug_benchmark.sh --mutators bytes,structure).
// In builds without libFuzzer (replay_main.cpp) the hooks are linked but never called.

#include <cstddef>
#include <cstdint>

#include "oracle/actions/action_codec.h"

namespace dispatch::fuzz {

enum class MutatorChoice { Structure, Bytes };

// The choice in force: DISPATCH_FUZZ_MUTATOR when set (any other value stops the process with
// a message), else the target's default.
MutatorChoice mutatorChoice(MutatorChoice target_default);

size_t customMutate(const oracle::ActionWeights& weights, MutatorChoice target_default, uint8_t* data,
                    size_t size, size_t max_size, unsigned seed);

// Bytes: no custom crossover (0: libFuzzer then picks another mutation, its own byte crossover
// included, exactly as without the hook).
size_t customCrossOver(const oracle::ActionWeights& weights, MutatorChoice target_default,
                       const uint8_t* first, size_t first_size, const uint8_t* second, size_t second_size,
                       uint8_t* out, size_t max_out_size, unsigned seed);

}  // namespace dispatch::fuzz

// A trace target's LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver, in one line per target.
#define DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(weights, target_default)                                         \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) { \
    return dispatch::fuzz::customMutate(weights, target_default, data, size, max_size, seed);              \
  }                                                                                                         \
  extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* first, size_t first_size, const uint8_t* second, \
                                              size_t second_size, uint8_t* out, size_t max_out_size,        \
                                              unsigned int seed) {                                          \
    return dispatch::fuzz::customCrossOver(weights, target_default, first, first_size, second, second_size, \
                                           out, max_out_size, seed);                                        \
  }
