#include "oracle/actions/dispatcher_action_codec.h"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "dispatch/dispatch_key_set.h"
#include "dispatch/tensor.h"
#include "oracle/actions/release_keys.h"

namespace dispatch::oracle {

namespace {

using DK = DispatchKey;
using BC = BackendComponent;

// The operator of the argument byte's top 3 bits: op0 five times in eight, so that a few
// actions in a row meet on one operator (five on op0: one trace in ten).
constexpr std::array<int, 8> kOpOfBits = {0, 0, 0, 0, 0, 1, 2, 3};
static_assert(kNumOps == 4, "kOpOfBits names every operator");

// Selector values 0 .. 29 of a key argument.
constexpr std::array<DK, 30> kDenseKeys = {
    DK::CPU,          DK::CUDA,          DK::XLA,          DK::Meta,
    DK::HIP,          DK::SparseCPU,     DK::SparseCUDA,   DK::QuantizedCPU,
    DK::NestedTensorCPU, DK::FPGA,       DK::AutogradCPU,  DK::AutogradCUDA,
    DK::AutogradXLA,  DK::AutogradOther, DK::AutogradNestedTensor, DK::AutogradHIP,
    DK::BackendSelect, DK::ADInplaceOrView, DK::Python,    DK::Named,
    DK::AutocastCPU,  DK::Autograd,      DK::CompositeImplicitAutograd,
    DK::CompositeImplicitAutogradNestedTensor, DK::CompositeExplicitAutograd,
    DK::CompositeExplicitAutogradNonFunctional, DK::Dense, DK::Undefined, DK::Tracer,
    DK::SparseCsrCPU};
constexpr uint8_t kCatchAll = 30;  // impls: no key
constexpr uint8_t kEscape = 31;    // the wide form follows

// Selector values 0 .. 27 of a call's or redispatch's key set: real tensors, and a few sets a
// tensor never has (empty, one plain key) that still reach interesting slots.
const std::array<uint64_t, 28>& denseKeySets() {
  static const std::array<uint64_t, 28> sets = [] {
    using TK = TensorKind;
    auto tensor = [](TK kind, BC b, bool inference = false) {
      return tensorKeySet(kind, b, false, inference).raw_repr();
    };
    auto of = [](DK k) { return DispatchKeySet(k).raw_repr(); };
    return std::array<uint64_t, 28>{
        tensor(TK::Dense, BC::CPUBit),        tensor(TK::Dense, BC::CUDABit),
        tensor(TK::Dense, BC::XLABit),        tensor(TK::Dense, BC::MetaBit),
        tensor(TK::Dense, BC::HIPBit),        tensor(TK::Dense, BC::MPSBit),
        tensor(TK::Dense, BC::LazyBit),       tensor(TK::Dense, BC::PrivateUse1Bit),
        tensor(TK::Sparse, BC::CPUBit),       tensor(TK::Sparse, BC::CUDABit),
        tensor(TK::Quantized, BC::CPUBit),    tensor(TK::Quantized, BC::CUDABit),
        tensor(TK::Nested, BC::CPUBit),       tensor(TK::Nested, BC::CUDABit),
        tensor(TK::Dense, BC::CPUBit, true),  tensor(TK::Dense, BC::CUDABit, true),
        tensor(TK::Sparse, BC::CPUBit, true), tensor(TK::Quantized, BC::CPUBit, true),
        uint64_t{0},                          of(DK::CPU),
        of(DK::CUDA),                         of(DK::SparseCPU),
        of(DK::QuantizedCPU),                 of(DK::FPGA),
        of(DK::AutogradCPU),                  of(DK::AutogradOther),
        of(DK::BackendSelect),                of(DK::Python)};
  }();
  return sets;
}
constexpr uint8_t kWideKeySet = 28;  // 28 .. 31: the wide form (and, for calls, maybe `other`)

// NamedKey: the selector picks what it registers (impls, which reach one operator's slots, more
// often than fallbacks), a second byte the key (kReleaseKeyNames, modulo its length).
constexpr std::array<ActionKind, 32> kNamedKeyRegistrations = [] {
  using K = ActionKind;
  std::array<ActionKind, 32> out{};
  const std::pair<ActionKind, size_t> kCounts[] = {{K::ImplTyped, 8},        {K::ImplBoxed, 6},
                                                   {K::ImplFallthrough, 6},  {K::FallbackDirect, 3},
                                                   {K::FallthroughDirect, 3}, {K::FallbackLibrary, 3},
                                                   {K::FallthroughLibrary, 3}};
  size_t next = 0;
  for (const auto& [kind, count] : kCounts) {
    for (size_t i = 0; i < count; ++i) out[next++] = kind;
  }
  return out;
}();
constexpr uint8_t kLastReleaseKey = static_cast<uint8_t>(kReleaseKeyNames.size() - 1);

constexpr uint16_t kLastKeyValue = toUnderlying(DK::EndOfAliasKeys);

// LibraryBlock: the selector picks the block's form (kLibraryBlockForms, by index); an IMPL
// block's key byte follows, read as an impl's selector (dense key, catch-all, or the wide form).

// The wide key: mostly declared keys (runtime, alias, building blocks, placeholders), sometimes
// garbage.
DK consumeWideKey(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return static_cast<DK>(in.ConsumeIntegral<uint16_t>());
  return static_cast<DK>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue));
}
// An impl's key from its selector: a dense key, none (the catch-all), or the wide form.
std::optional<DK> consumeImplKey(FuzzedDataProvider& in, uint8_t selector) {
  if (selector == kCatchAll) return std::nullopt;
  return selector == kEscape ? consumeWideKey(in) : kDenseKeys[selector];
}

void writeWideKey(FdpWriter& out, DK key) {
  const uint16_t value = toUnderlying(key);
  if (value <= kLastKeyValue) {
    out.integralInRange<int>(0, 15, 1);
    out.integralInRange<uint16_t>(0, kLastKeyValue, value);
  } else {
    out.integralInRange<int>(0, 15, 0);
    out.integral<uint16_t>(value);
  }
}

// The wide key set: realistic tensors most of the time, then unions of keys, then raw patterns.
uint64_t consumeWideKeySet(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return in.ConsumeIntegral<uint64_t>();
    case 1:
    case 2: {
      DispatchKeySet ks;
      const int n = in.ConsumeIntegralInRange<int>(0, 4);
      for (int i = 0; i < n; ++i) ks = ks.add(consumeWideKey(in));
      return ks.raw_repr();
    }
    default: {
      const auto kind = static_cast<TensorKind>(in.ConsumeIntegralInRange<int>(0, 3));
      const auto backend = static_cast<BC>(in.ConsumeIntegralInRange<int>(1, num_backends));
      const bool inference = in.ConsumeIntegralInRange<int>(0, 5) == 0;
      return tensorKeySet(kind, backend, false, inference).raw_repr();
    }
  }
}
// Every set as its raw pattern: the one wide spelling that expresses any set.
void writeWideKeySet(FdpWriter& out, uint64_t raw) {
  out.integralInRange<int>(0, 7, 0);
  out.integral<uint64_t>(raw);
}

template <size_t N, class T>
std::optional<uint8_t> indexIn(const std::array<T, N>& list, const T& value) {
  const auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) return std::nullopt;
  return static_cast<uint8_t>(it - list.begin());
}

void writeArgumentByte(FdpWriter& out, int op, uint8_t selector) {
  const auto bits = indexIn(kOpOfBits, op);
  if (!bits) throw std::invalid_argument("encodeActions: operator " + std::to_string(op) + " out of range");
  out.integral<uint8_t>(static_cast<uint8_t>(*bits << 5 | selector));
}

}  // namespace

void consumeDispatcherFields(FuzzedDataProvider& in, Action& a) {
  const uint8_t argument = in.ConsumeIntegral<uint8_t>();
  a.op = kOpOfBits[argument >> 5];
  const uint8_t selector = argument & 31;
  switch (a.kind) {
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough:
      a.key = consumeImplKey(in, selector);
      break;
    case ActionKind::LibraryBlock:
      a.block = kLibraryBlockForms[selector];
      if (a.block->kind == LibraryKind::Impl) a.key = consumeImplKey(in, in.ConsumeIntegralInRange<uint8_t>(0, 31));
      break;
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary:
      a.key = selector < kDenseKeys.size() ? kDenseKeys[selector] : consumeWideKey(in);
      break;
    case ActionKind::Drop:
      a.handle = selector == kEscape ? in.ConsumeIntegral<uint8_t>() : selector;
      break;
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys:
      a.keys = selector < kDenseKeys.size() ? DispatchKeySet(kDenseKeys[selector]).raw_repr()
                                            : consumeWideKeySet(in);
      break;
    case ActionKind::Redispatch:
      a.keys = selector < kWideKeySet ? denseKeySets()[selector] : consumeWideKeySet(in);
      break;
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed:
      if (selector < kWideKeySet) {
        a.keys = denseKeySets()[selector];
        break;
      }
      a.keys = consumeWideKeySet(in);
      if (in.ConsumeBool()) a.other = consumeWideKeySet(in);
      break;
    case ActionKind::NamedKey: {
      const uint8_t key = in.ConsumeIntegralInRange<uint8_t>(0, kLastReleaseKey);
      a.named = NamedKeyRegistration{kNamedKeyRegistrations[selector], std::string(kReleaseKeyNames[key])};
      break;
    }
    default:  // Def, StartupFallbacks, PopGuard: the operator only
      break;
  }
}

void writeDispatcherFields(FdpWriter& out, const Action& a) {
  // An impl's key selector (dense, catch-all, or the wide form after it).
  const auto implKeySelector = [&] {
    return a.key ? indexIn(kDenseKeys, *a.key).value_or(kEscape) : kCatchAll;
  };
  switch (a.kind) {
    case ActionKind::ImplTyped:
    case ActionKind::ImplBoxed:
    case ActionKind::ImplFallthrough: {
      const uint8_t selector = implKeySelector();
      writeArgumentByte(out, a.op, selector);
      if (selector == kEscape) writeWideKey(out, *a.key);
      break;
    }
    case ActionKind::LibraryBlock: {
      if (!a.block) throw std::invalid_argument("encodeActions: a library block action without a block");
      if (auto problem = libraryBlockProblem(*a.block, a.op)) throw std::invalid_argument("encodeActions: " + *problem);
      const auto form = indexIn(kLibraryBlockForms, *a.block);
      if (!form) throw std::invalid_argument("encodeActions: no form byte makes " + describe(a));
      writeArgumentByte(out, a.op, *form);
      if (a.block->kind != LibraryKind::Impl) {
        if (a.key) throw std::invalid_argument("encodeActions: only an IMPL block has a key: " + describe(a));
        break;
      }
      const uint8_t selector = implKeySelector();
      out.integralInRange<uint8_t>(0, 31, selector);
      if (selector == kEscape) writeWideKey(out, *a.key);
      break;
    }
    case ActionKind::FallbackDirect:
    case ActionKind::FallthroughDirect:
    case ActionKind::FallbackLibrary:
    case ActionKind::FallthroughLibrary: {
      if (!a.key) throw std::invalid_argument("encodeActions: a fallback without a key");
      const auto dense = indexIn(kDenseKeys, *a.key);
      writeArgumentByte(out, a.op, dense.value_or(kEscape));
      if (!dense) writeWideKey(out, *a.key);
      break;
    }
    case ActionKind::Drop:
      if (a.handle > 255) throw std::invalid_argument("encodeActions: drop handle above 255");
      writeArgumentByte(out, a.op, a.handle < kEscape ? static_cast<uint8_t>(a.handle) : kEscape);
      if (a.handle >= kEscape) out.integral<uint8_t>(static_cast<uint8_t>(a.handle));
      break;
    case ActionKind::IncludeKeys:
    case ActionKind::ExcludeKeys: {
      std::optional<uint8_t> dense;
      for (uint8_t i = 0; i < kDenseKeys.size() && !dense; ++i) {
        if (DispatchKeySet(kDenseKeys[i]).raw_repr() == a.keys) dense = i;
      }
      writeArgumentByte(out, a.op, dense.value_or(kEscape));
      if (!dense) writeWideKeySet(out, a.keys);
      break;
    }
    case ActionKind::Redispatch: {
      const auto dense = indexIn(denseKeySets(), a.keys);
      writeArgumentByte(out, a.op, dense.value_or(kWideKeySet));
      if (!dense) writeWideKeySet(out, a.keys);
      break;
    }
    case ActionKind::CallTyped:
    case ActionKind::CallBoxed: {
      const auto dense = a.other ? std::nullopt : indexIn(denseKeySets(), a.keys);
      writeArgumentByte(out, a.op, dense.value_or(kWideKeySet));
      if (dense) break;
      writeWideKeySet(out, a.keys);
      out.boolean(a.other.has_value());
      if (a.other) writeWideKeySet(out, *a.other);
      break;
    }
    case ActionKind::NamedKey: {
      if (!a.named || !registersOnNamedKey(a.named->registration)) {
        throw std::invalid_argument("encodeActions: a named-key action without an impl or fallback to make");
      }
      const auto key = indexIn(kReleaseKeyNames, std::string_view(a.named->key));
      if (!key) throw std::invalid_argument("encodeActions: no key byte names " + a.named->key + " (release_keys.h)");
      writeArgumentByte(out, a.op, *indexIn(kNamedKeyRegistrations, a.named->registration));
      out.integralInRange<uint8_t>(0, kLastReleaseKey, *key);
      break;
    }
    default:
      writeArgumentByte(out, a.op, 0);
      break;
  }
}

}  // namespace dispatch::oracle
