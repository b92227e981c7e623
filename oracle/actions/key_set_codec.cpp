#include "oracle/actions/key_set_codec.h"

#include <stdexcept>
#include <string>

#include "dispatch/dispatch_key_set.h"
#include "oracle/model/model.h"

namespace dispatch::oracle {

namespace {

namespace m = dispatch::model;

constexpr uint16_t kLastKeyValue = toUnderlying(DispatchKey::EndOfAliasKeys);

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("encodeActions (key-set action): ") + what);
}

// Each decoder has its encoder right after it: the same fields in the same order. Encoders write
// one canonical spelling of each value (a plain enum value, a raw pattern).

// Biased towards the interesting classes: per-backend instances of every block and backend,
// aliases, building blocks, placeholders and the sentinel, then any declared value, then garbage.
DispatchKey consumeKey(FuzzedDataProvider& in) {
  const auto& blocks = m::perBackendFunctionalities();
  switch (in.ConsumeIntegralInRange<int>(0, 11)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      // Two reads, in this order: as arguments of one call their order would be the compiler's
      // (clang reads left to right, gcc right to left, so the same bytes decoded differently).
      const DispatchKey block = blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)];
      const auto backend = static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
      return m::perBackendInstance(block, backend);
    }
    case 4: {
      const auto& aliases = m::aliasKeys();
      return aliases[in.ConsumeIntegralInRange<size_t>(0, aliases.size() - 1)];
    }
    case 5:
      return blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)];
    case 6: {
      const auto& fs = m::allFunctionalities();
      return fs[in.ConsumeIntegralInRange<size_t>(0, fs.size() - 1)];
    }
    case 7:
      switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: return DispatchKey::Undefined;
        case 1: return DispatchKey::EndOfFunctionalityKeys;
        default:  // a placeholder ("Unknown", "AutogradUnknown", ...)
          return m::perBackendInstance(blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)],
                                       BackendComponent::InvalidBit);
      }
    case 8:
    case 9:
    case 10:
      return static_cast<DispatchKey>(in.ConsumeIntegralInRange<uint16_t>(0, kLastKeyValue));
    default:
      return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
  }
}
void writeKey(FdpWriter& out, DispatchKey key) {
  const uint16_t value = toUnderlying(key);
  if (value <= kLastKeyValue) {
    out.integralInRange<int>(0, 11, 8);
    out.integralInRange<uint16_t>(0, kLastKeyValue, value);
  } else {
    out.integralInRange<int>(0, 11, 11);
    out.integral<uint16_t>(value);
  }
}

// Mostly real backends, sometimes InvalidBit or a value outside the enum.
BackendComponent consumeBackend(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return BackendComponent::InvalidBit;
    case 1: return static_cast<BackendComponent>(in.ConsumeIntegral<uint8_t>());
    default: return static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
  }
}
void writeBackend(FdpWriter& out, BackendComponent b) {
  const int value = toUnderlying(b);
  if (b == BackendComponent::InvalidBit) {
    out.integralInRange<int>(0, 9, 0);
  } else if (value >= 1 && value <= num_backends) {
    out.integralInRange<int>(0, 9, 2);
    out.integralInRange<int>(1, num_backends, value);
  } else {
    out.integralInRange<int>(0, 9, 1);
    out.integral<uint8_t>(toUnderlying(b));
  }
}
// A real backend (CPUBit .. PrivateUse3Bit) only.
BackendComponent consumeRealBackend(FuzzedDataProvider& in) {
  return static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
}
void writeRealBackend(FdpWriter& out, BackendComponent b) {
  out.integralInRange<int>(1, num_backends, toUnderlying(b));
}

// Raw 64-bit patterns: anything, or structured (backend bits | functionality bits), sometimes
// with bits past the last functionality (raw bits 54..63, decision D4).
uint64_t consumeRaw(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeIntegral<uint64_t>();
    case 1: {
      const uint64_t backends = in.ConsumeIntegral<uint16_t>() & DispatchKeySet::full_backend_mask;
      const uint64_t functionalities = in.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 40) - 1);
      return backends | (functionalities << num_backends);
    }
    case 2: {  // few bits: one or two backends, a handful of functionalities
      uint64_t raw = 0;
      const int n = in.ConsumeIntegralInRange<int>(1, 5);
      for (int i = 0; i < n; ++i) raw |= uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
      return raw;
    }
    default: {
      const uint64_t low = in.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 54) - 1);
      return low | (uint64_t{in.ConsumeIntegral<uint8_t>()} << 54);
    }
  }
}
void writeRaw(FdpWriter& out, uint64_t raw) {
  out.integralInRange<int>(0, 3, 0);
  out.integral<uint64_t>(raw);
}

const DispatchKey& firstKey(const KeySetRecipe& r) {
  require(!r.keys.empty(), "the recipe needs a key");
  return r.keys[0];
}
BackendComponent firstBackend(const KeySetRecipe& r) {
  require(!r.backends.empty(), "the recipe needs a backend");
  return r.backends[0];
}

}  // namespace

KeySetRecipe consumeKeySetRecipe(FuzzedDataProvider& in) {
  KeySetRecipe r;
  r.source = static_cast<KeySetSource>(in.ConsumeIntegralInRange<int>(0, kNumKeySetSources - 1));
  switch (r.source) {
    case KeySetSource::Raw:
      r.raw = consumeRaw(in);
      break;
    case KeySetSource::Key:
    case KeySetSource::FullAfter:
    case KeySetSource::AliasSet:
    case KeySetSource::BackendFromAutograd:
      r.keys.push_back(consumeKey(in));
      break;
    case KeySetSource::Keys: {
      const int n = in.ConsumeIntegralInRange<int>(0, 6);
      for (int i = 0; i < n; ++i) r.keys.push_back(consumeKey(in));
      r.style = in.ConsumeIntegralInRange<int>(0, 2);
      break;
    }
    case KeySetSource::Backends: {
      const int n = in.ConsumeIntegralInRange<int>(1, 4);
      for (int i = 0; i < n; ++i) r.backends.push_back(consumeBackend(in));
      r.style = in.ConsumeIntegralInRange<int>(0, 1);
      break;
    }
    case KeySetSource::MixedBackends: {
      const size_t blocks = m::perBackendFunctionalities().size();
      r.style = static_cast<int>(in.ConsumeIntegralInRange<size_t>(0, blocks - 1));
      const int n = in.ConsumeIntegralInRange<int>(2, 5);
      for (int i = 0; i < n; ++i) r.backends.push_back(consumeRealBackend(in));
      const int extra = in.ConsumeIntegralInRange<int>(0, 2);
      for (int i = 0; i < extra; ++i) r.keys.push_back(consumeKey(in));
      break;
    }
    case KeySetSource::Tensor:
      r.style = in.ConsumeIntegralInRange<int>(0, 3);
      r.backends.push_back(consumeRealBackend(in));
      r.inference = in.ConsumeIntegralInRange<int>(0, 3) == 0;
      break;
    case KeySetSource::Predefined:
      r.style = in.ConsumeIntegralInRange<int>(0, kNumPredefinedKeySets - 1);
      break;
    case KeySetSource::AutogradRelated:
    case KeySetSource::AutocastRelated:
      r.backends.push_back(consumeBackend(in));
      break;
    case KeySetSource::kCount:
      break;
  }
  return r;
}

void writeKeySetRecipe(FdpWriter& out, const KeySetRecipe& r) {
  out.integralInRange<int>(0, kNumKeySetSources - 1, static_cast<int>(r.source));
  switch (r.source) {
    case KeySetSource::Raw:
      writeRaw(out, r.raw);
      break;
    case KeySetSource::Key:
    case KeySetSource::FullAfter:
    case KeySetSource::AliasSet:
    case KeySetSource::BackendFromAutograd:
      writeKey(out, firstKey(r));
      break;
    case KeySetSource::Keys:
      out.integralInRange<int>(0, 6, static_cast<int>(r.keys.size()));
      for (DispatchKey k : r.keys) writeKey(out, k);
      out.integralInRange<int>(0, 2, r.style);
      break;
    case KeySetSource::Backends:
      out.integralInRange<int>(1, 4, static_cast<int>(r.backends.size()));
      for (BackendComponent b : r.backends) writeBackend(out, b);
      out.integralInRange<int>(0, 1, r.style);
      break;
    case KeySetSource::MixedBackends:
      out.integralInRange<size_t>(0, m::perBackendFunctionalities().size() - 1, static_cast<size_t>(r.style));
      out.integralInRange<int>(2, 5, static_cast<int>(r.backends.size()));
      for (BackendComponent b : r.backends) writeRealBackend(out, b);
      out.integralInRange<int>(0, 2, static_cast<int>(r.keys.size()));
      for (DispatchKey k : r.keys) writeKey(out, k);
      break;
    case KeySetSource::Tensor:
      out.integralInRange<int>(0, 3, r.style);
      writeRealBackend(out, firstBackend(r));
      out.integralInRange<int>(0, 3, r.inference ? 0 : 1);
      break;
    case KeySetSource::Predefined:
      out.integralInRange<int>(0, kNumPredefinedKeySets - 1, r.style);
      break;
    case KeySetSource::AutogradRelated:
    case KeySetSource::AutocastRelated:
      writeBackend(out, firstBackend(r));
      break;
    case KeySetSource::kCount:
      require(false, "no such recipe source");
  }
}

void consumeKeySetFields(FuzzedDataProvider& in, Action& a) {
  switch (a.kind) {
    case ActionKind::KeySetPush:
      a.recipe = consumeKeySetRecipe(in);
      break;
    case ActionKind::KeySetAddKey:
    case ActionKind::KeySetRemoveKey:
    case ActionKind::KeySetHas:
    case ActionKind::KeySetAliasQuery:
      a.lhs = in.ConsumeIntegral<uint8_t>();
      a.key = consumeKey(in);
      break;
    case ActionKind::KeySetRemoveBackend:
    case ActionKind::KeySetAddBackend:
    case ActionKind::KeySetHasBackend:
      a.lhs = in.ConsumeIntegral<uint8_t>();
      a.backend = consumeBackend(in);
      break;
    case ActionKind::KeyHelpers:
      a.key = consumeKey(in);
      a.backend = consumeBackend(in);
      break;
    default:
      a.lhs = in.ConsumeIntegral<uint8_t>();
      a.rhs = in.ConsumeIntegral<uint8_t>();
      break;
  }
}

void writeKeySetFields(FdpWriter& out, const Action& a) {
  switch (a.kind) {
    case ActionKind::KeySetPush:
      writeKeySetRecipe(out, a.recipe);
      break;
    case ActionKind::KeySetAddKey:
    case ActionKind::KeySetRemoveKey:
    case ActionKind::KeySetHas:
    case ActionKind::KeySetAliasQuery:
      require(a.key.has_value(), "the action needs a key");
      out.integral<uint8_t>(a.lhs);
      writeKey(out, *a.key);
      break;
    case ActionKind::KeySetRemoveBackend:
    case ActionKind::KeySetAddBackend:
    case ActionKind::KeySetHasBackend:
      out.integral<uint8_t>(a.lhs);
      writeBackend(out, a.backend);
      break;
    case ActionKind::KeyHelpers:
      require(a.key.has_value(), "the action needs a key");
      writeKey(out, *a.key);
      writeBackend(out, a.backend);
      break;
    default:
      out.integral<uint8_t>(a.lhs);
      out.integral<uint8_t>(a.rhs);
      break;
  }
}

}  // namespace dispatch::oracle
