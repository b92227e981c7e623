#include "generators.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "oracle/actions/names.h"

namespace dispatch::props {

namespace {

using DK = DispatchKey;
using BC = BackendComponent;
using rc::Gen;
namespace gen = rc::gen;

constexpr int kLastKeyValue = toUnderlying(DK::EndOfAliasKeys);

std::vector<DK> allEnumValues() {
  std::vector<DK> keys;
  for (int v = 0; v <= kLastKeyValue; ++v) keys.push_back(static_cast<DK>(v));
  return keys;
}

// Moves `front` (in that order) to the front of `keys`, keeping the rest in place.
std::vector<DK> withFront(std::vector<DK> keys, const std::vector<DK>& front) {
  std::vector<DK> result;
  for (DK k : front) {
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) result.push_back(k);
  }
  for (DK k : keys) {
    if (std::find(result.begin(), result.end(), k) == result.end()) result.push_back(k);
  }
  return result;
}

}  // namespace

const std::vector<DK>& trimmedKeptKeys() {
  static const std::vector<DK> keys = [] {
    return withFront(model::keysOfTrimmedFlavours(),
                     {DK::CPU, DK::AutogradCPU, DK::QuantizedCPU, DK::SparseCPU, DK::ADInplaceOrView,
                      DK::BackendSelect, DK::AutogradOther, DK::Undefined});
  }();
  return keys;
}

const std::vector<DK>& perBackendInstanceKeys() {
  static const std::vector<DK> keys = [] {
    std::vector<DK> all;
    for (DK k : allEnumValues()) {
      if (model::isPerBackendInstance(k)) all.push_back(k);
    }
    return withFront(all, {DK::CPU, DK::CUDA, DK::AutogradCPU, DK::AutogradCUDA,
                           DK::QuantizedCPU, DK::SparseCPU, DK::NestedTensorCPU, DK::XLA,
                           DK::Meta, DK::PrivateUse1, DK::AutogradMeta, DK::AutogradXLA,
                           DK::HIP, DK::AutogradHIP, DK::SparseCUDA, DK::QuantizedCUDA});
  }();
  return keys;
}

const std::vector<DK>& keysAbsentFromATrimmedFlavour() {
  static const std::vector<DK> keys = [] {
    std::vector<DK> absent;
    for (DK k : model::allRuntimeKeys()) {
      const auto& flavours = model::allFlavours();
      if (std::any_of(flavours.begin(), flavours.end(),
                      [&](model::Flavour f) { return model::tableIndex(k, f) < 0; })) {
        absent.push_back(k);
      }
    }
    // The keys whose start-up fallbacks overflowed the mobile table in PyTorch (docs/semantics.md §6.3).
    return withFront(absent, {DK::AutogradCUDA, DK::Named, DK::CUDA, DK::Conjugate,
                              DK::AutogradXLA, DK::Python, DK::AutocastCPU, DK::Tracer,
                              DK::AutogradNestedTensor, DK::VmapMode});
  }();
  return keys;
}

const std::vector<DK>& plainFunctionalityKeys() {
  static const std::vector<DK> keys = [] {
    std::vector<DK> plain;
    for (DK k : model::allFunctionalities()) {
      if (!model::isPerBackendFunctionality(k)) plain.push_back(k);
    }
    return withFront(plain, {DK::BackendSelect, DK::ADInplaceOrView, DK::AutogradOther,
                             DK::Named, DK::Python, DK::FPGA, DK::AutogradNestedTensor,
                             DK::Conjugate, DK::AutocastCPU, DK::AutocastCUDA, DK::Tracer,
                             DK::PythonDispatcher, DK::SparseCsrCPU, DK::MkldnnCPU});
  }();
  return keys;
}

const std::vector<DK>& allRuntimeKeys() { return model::allRuntimeKeys(); }

const std::vector<DK>& aliasKeys() {
  static const std::vector<DK> keys =
      withFront(model::aliasKeys(), {DK::CompositeImplicitAutograd, DK::Autograd,
                                     DK::CompositeExplicitAutograd});
  return keys;
}

const std::vector<DK>& buildingBlockKeys() {
  static const std::vector<DK> keys = [] {
    std::vector<DK> blocks;
    for (DK k : allEnumValues()) {
      if (!model::isRuntimeKey(k) && !model::isAliasKey(k)) blocks.push_back(k);
    }
    return withFront(blocks, {DK::Undefined, DK::Dense, DK::AutogradFunctionality,
                              DK::EndOfFunctionalityKeys});
  }();
  return keys;
}

Gen<DK> genRuntimeKey() {
  return gen::weightedOneOf<DK>({
      {4, elementShrinkingToFront(trimmedKeptKeys())},
      {5, elementShrinkingToFront(perBackendInstanceKeys())},
      {3, elementShrinkingToFront(keysAbsentFromATrimmedFlavour())},
      {3, elementShrinkingToFront(plainFunctionalityKeys())},
  });
}

namespace {
Gen<DK> genOutOfRangeKey() {
  return gen::map(gen::resize(rc::kNominalSize, gen::inRange(kLastKeyValue + 1, 65536)),
                  [](int v) { return static_cast<DK>(v); });
}
}  // namespace

Gen<DK> genAnyKey() {
  return gen::weightedOneOf<DK>({
      {10, genRuntimeKey()},
      {2, elementShrinkingToFront(aliasKeys())},
      {2, elementShrinkingToFront(buildingBlockKeys())},
      {1, genOutOfRangeKey()},
  });
}

Gen<DK> genRegistrationKey() {
  return gen::weightedOneOf<DK>({
      {4, elementShrinkingToFront(trimmedKeptKeys())},
      {3, elementShrinkingToFront(perBackendInstanceKeys())},
      {3, elementShrinkingToFront(keysAbsentFromATrimmedFlavour())},
      {3, elementShrinkingToFront(plainFunctionalityKeys())},
      {3, elementShrinkingToFront(aliasKeys())},
      {1, elementShrinkingToFront(buildingBlockKeys())},
      {1, genOutOfRangeKey()},
  });
}

Gen<BC> genBackend() {
  std::vector<BC> backends = {BC::CPUBit, BC::CUDABit};
  for (BC b : model::allBackends()) {
    if (b != BC::CPUBit && b != BC::CUDABit) backends.push_back(b);
  }
  return elementShrinkingToFront(std::move(backends));
}

void showValue(const RawKeySet& ks, std::ostream& os) { os << oracle::keySetName(ks.raw); }

Gen<uint64_t> genTensorKeys() {
  enum class Kind { Dense, Quantized, Sparse, Nested };
  return gen::exec([] {
    const Kind kind = *elementShrinkingToFront<Kind>(
        {Kind::Dense, Kind::Dense, Kind::Quantized, Kind::Sparse, Kind::Nested});
    const BC backend = *genBackend();
    const bool inference = *gen::weightedElement<bool>({{5, false}, {1, true}});
    const DK functionality = kind == Kind::Dense       ? DK::Dense
                             : kind == Kind::Quantized ? DK::Quantized
                             : kind == Kind::Sparse    ? DK::Sparse
                                                       : DK::NestedTensor;
    const model::KeySet storage =
        model::KeySet::of(model::perBackendInstance(functionality, backend));
    model::KeySet keys = model::tensorKeySet(storage, inference);
    if (kind == Kind::Nested && !inference) {
      // NestedTensorImpl's autograd key (see dispatch/tensor.h): AutogradNestedTensor, not the
      // backend's own autograd key.
      keys = (keys - model::KeySet{model::autogradKeyOfBackend(backend)})
                 .add(DK::AutogradNestedTensor);
    }
    return keys.toRaw();
  });
}

namespace {

Gen<uint64_t> genPiece() {
  return gen::weightedOneOf<uint64_t>({
      {6, genTensorKeys()},
      {5, gen::map(genAnyKey(), [](DK k) { return model::KeySet::of(k).toRaw(); })},
      {2, gen::map(genBackend(), [](BC b) { return model::KeySet::ofBackend(b).toRaw(); })},
      {1, gen::map(gen::resize(rc::kNominalSize, gen::inRange(0, 64)),
                   [](int bit) { return uint64_t{1} << bit; })},
      {1, gen::resize(rc::kNominalSize, gen::arbitrary<uint64_t>())},
  });
}

Gen<RawKeySet> orOfPieces(Gen<uint64_t> piece, int max_pieces) {
  return gen::map(gen::resize(max_pieces, gen::container<std::vector<uint64_t>>(std::move(piece))),
                  [](const std::vector<uint64_t>& pieces) {
                    RawKeySet ks;
                    for (uint64_t p : pieces) ks.raw |= p;
                    return ks;
                  });
}

}  // namespace

Gen<RawKeySet> genKeySet() { return orOfPieces(genPiece(), 4); }

Gen<RawKeySet> genCallKeySet() {
  return gen::weightedOneOf<RawKeySet>({
      {6, gen::map(genTensorKeys(), [](uint64_t raw) { return RawKeySet{raw}; })},
      {2, gen::map(gen::pair(genTensorKeys(), genTensorKeys()),
                   [](const std::pair<uint64_t, uint64_t>& two) {
                     return RawKeySet{two.first | two.second};  // mixed devices
                   })},
      {3, genKeySet()},
  });
}

Gen<RawKeySet> genGuardKeySet() {
  return gen::weightedOneOf<RawKeySet>({
      {6, gen::map(genAnyKey(), [](DK k) { return RawKeySet{model::KeySet::of(k).toRaw()}; })},
      {2, gen::map(genTensorKeys(), [](uint64_t raw) { return RawKeySet{raw}; })},
      {1, genKeySet()},
  });
}

}  // namespace dispatch::props

namespace dispatch {
void showValue(DispatchKey k, std::ostream& os) { os << oracle::keyName(k); }
void showValue(BackendComponent b, std::ostream& os) { os << oracle::backendName(b); }
}  // namespace dispatch
