// Differential fuzzer for the runtime-table index (docs/semantics.md sections 3 and 6.2): arbitrary 64-bit
// patterns, keys, key unions and realistic call sets go through the public layouts. Checked:
//   * every layout's indexOf (dispatch::AllLayouts: full and every trimmed flavour of
//     cmake/flavours.list, drawn ones included) is in [0, kNumEntries) or exactly -1;
//   * each agrees with model::tableIndex, for key sets and for single keys (and indexOf(k) ==
//     indexOf(DispatchKeySet(k)));
//   * full vs trimmed: when a trimmed index is >= 0, the key of that slot is the key of the
//     full slot (a trimmed flavour agrees with full on every key it keeps), and is
//     highestPriorityTypeId;
//   * the full slot of a set is the slot of its highestPriorityTypeId whenever that is a
//     runtime key, and slot keys map back to their own slot;
//   * highestPriorityTypeId and getBackendIndex agree with the model;
//   * a second trimmed layout (a "selective build") indexes by highestPriorityTypeId too.
// The library is pure computation, with no global state; the model's answers are remembered per
// value across inputs (harness/model_memo.h), the library is asked every time.

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iterator>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/key_sets.h"
#include "dispatch/table_layout.h"
#include "dispatch/tensor.h"
#include "harness/fuzz_target.h"
#include "harness/model_memo.h"
#include "oracle/flavour_declarations.h"
#include "oracle/ours/layout_flavour.h"
#include "oracle/model/model.h"
#include "oracle/actions/names.h"

namespace {

using namespace dispatch;  // NOLINT(google-build-using-namespace): a fuzz target's own file
namespace m = dispatch::model;
using dispatch::oracle::hex;
using dispatch::oracle::keyName;

constexpr const char* kTarget = "table_index_fuzzer";

#if defined(__clang__)
#define HARNESS_ONLY [[gnu::noinline]] __attribute__((no_sanitize("coverage")))
#else
#define HARNESS_ONLY [[gnu::noinline]]
#endif
constexpr size_t kMaxItems = 64;  // bounded work per input (docs/harness.md §11.1)

// A trimmed layout no flavour declares: what a selective build would keep. Mixes plain keys,
// per-backend instances of several blocks and backends, and the top functionality.
struct SelectiveLayout
    : TrimmedLayout<DispatchKey::Undefined, DispatchKey::CUDA, DispatchKey::AutogradCUDA,
                    DispatchKey::SparseMeta, DispatchKey::NestedTensorPrivateUse3,
                    DispatchKey::FPGA, DispatchKey::Python, DispatchKey::PythonDispatcher,
                    DispatchKey::AutogradOther, DispatchKey::QuantizedXLA> {
  static constexpr std::string_view kName = "selective";
};

// --- decoding ----------------------------------------------------------------------------------

enum class ItemKind : uint8_t {
  Raw,        // any 64-bit pattern
  Structured, // backend bits | functionality bits (| bits past the last functionality)
  Key,        // one key (every class, garbage too)
  Keys,       // a union of keys
  CallSet,    // (tensor key sets | TLS included) - TLS excluded, as a call computes it
  FullSlot,   // the key of one full slot, maybe with extra lower-priority bits
  TrimmedSlot, // a key some trimmed flavour keeps, maybe with extra lower-priority bits
  Neighbour,  // the previous item's set with one bit flipped
  kCount,
};

struct Item {
  ItemKind kind = ItemKind::Raw;
  uint64_t raw = 0;                 // the set (for Key items: DispatchKeySet(key))
  DispatchKey key = DispatchKey::Undefined;  // Key items
};

// An input's items, in a fixed buffer (no allocation per input), and their readable provenance
// when the input is described (--print, or a report): one string per item, otherwise empty.
struct Items {
  std::array<Item, kMaxItems> items;
  size_t size = 0;
  std::vector<std::string> how;
};

DispatchKey consumeKey(FuzzedDataProvider& in) {
  const auto& blocks = m::perBackendFunctionalities();
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
    case 1:
      return m::perBackendInstance(blocks[in.ConsumeIntegralInRange<size_t>(0, blocks.size() - 1)],
                                   static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(0, num_backends)));
    case 2: {
      const auto& aliases = m::aliasKeys();
      return aliases[in.ConsumeIntegralInRange<size_t>(0, aliases.size() - 1)];
    }
    case 3:
      return static_cast<DispatchKey>(in.ConsumeIntegral<uint16_t>());
    default:
      return static_cast<DispatchKey>(
          in.ConsumeIntegralInRange<uint16_t>(0, toUnderlying(DispatchKey::EndOfAliasKeys)));
  }
}

uint64_t randomLowerBits(FuzzedDataProvider& in, DispatchKey k) {
  // Functionalities strictly below k's and any backends at or below k's backend keep k on top
  // (FULL_AFTER minus the PythonDispatcher bit it always carries, docs/semantics.md §2.1).
  if (!in.ConsumeBool()) return 0;
  const DispatchKeySet below =
      DispatchKeySet(DispatchKeySet::FULL_AFTER, k).remove(DispatchKey::PythonDispatcher);
  uint64_t bits = in.ConsumeIntegral<uint64_t>() & below.raw_repr() & ~DispatchKeySet::full_backend_mask;
  const BackendComponent b = toBackendComponent(k);
  if (b != BackendComponent::InvalidBit) {
    bits |= in.ConsumeIntegral<uint16_t>() & ((uint64_t{1} << toUnderlying(b)) - 1);
  } else if (!isPerBackendFunctionalityKey(toFunctionalityKey(k))) {
    bits |= in.ConsumeIntegral<uint16_t>() & DispatchKeySet::full_backend_mask;
  }
  return bits;
}

// An item's readable provenance, collected only when the input is described (--print, or a
// report): building it for every input cost more than checking the input.
class How {
 public:
  explicit How(bool on) { if (on) out_.emplace(); }
  template <class T>
  How& operator<<(const T& value) {
    if (out_) *out_ << value;
    return *this;
  }
  How& operator<<(DispatchKey k) {  // the oracle's name, looked up only when describing
    if (out_) *out_ << keyName(k);
    return *this;
  }
  std::string str() const { return out_ ? out_->str() : std::string(); }

 private:
  std::optional<std::ostringstream> out_;
};

void decode(const uint8_t* data, size_t size, bool describe, Items& out) {
  FuzzedDataProvider in(data, size);
  out.size = 0;
  out.how.clear();
  while (in.remaining_bytes() > 0 && out.size < kMaxItems) {
    Item it;
    it.kind = static_cast<ItemKind>(
        in.ConsumeIntegralInRange<int>(0, static_cast<int>(ItemKind::kCount) - 1));
    How how(describe);
    switch (it.kind) {
      case ItemKind::Raw:
        it.raw = in.ConsumeIntegral<uint64_t>();
        how << "raw";
        break;
      case ItemKind::Structured: {
        const uint64_t backends = in.ConsumeIntegral<uint16_t>() & DispatchKeySet::full_backend_mask;
        const uint64_t functionalities = in.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 40) - 1);
        const uint64_t unknown = in.ConsumeIntegralInRange<int>(0, 3) == 0
                                     ? uint64_t{in.ConsumeIntegral<uint8_t>()} << 54
                                     : 0;
        it.raw = backends | (functionalities << num_backends) | unknown;
        how << "structured";
        break;
      }
      case ItemKind::Key:
        it.key = consumeKey(in);
        it.raw = DispatchKeySet(it.key).raw_repr();
        how << "key " << it.key;
        break;
      case ItemKind::Keys: {
        const int n = in.ConsumeIntegralInRange<int>(1, 5);
        DispatchKeySet ks;
        how << "keys [";
        for (int i = 0; i < n; ++i) {
          const DispatchKey k = consumeKey(in);
          ks = ks.add(k);
          how << (i ? ", " : "") << k;
        }
        how << "]";
        it.raw = ks.raw_repr();
        break;
      }
      case ItemKind::CallSet: {
        const int n = in.ConsumeIntegralInRange<int>(0, 3);
        DispatchKeySet args;
        how << "call set of [";
        for (int i = 0; i < n; ++i) {
          const auto kind = static_cast<TensorKind>(in.ConsumeIntegralInRange<int>(0, 3));
          const auto b = static_cast<BackendComponent>(in.ConsumeIntegralInRange<int>(1, num_backends));
          const bool inference = in.ConsumeIntegralInRange<int>(0, 3) == 0;
          args = args | tensorKeySet(kind, b, false, inference);
          how << (i ? ", " : "") << toString(kind) << "/" << toString(b) << (inference ? "/inference" : "");
        }
        how << "]";
        DispatchKeySet included = default_included_set;
        DispatchKeySet excluded = default_excluded_set;
        if (in.ConsumeBool()) {
          const DispatchKey extra = consumeKey(in);
          included = included.add(extra);
          how << " +TLS " << extra;
        }
        if (in.ConsumeBool()) {
          excluded = excluded | autograd_dispatch_keyset;
          how << " below autograd";
        }
        it.raw = ((args | included) - excluded).raw_repr();
        break;
      }
      case ItemKind::FullSlot: {
        const auto& slots = m::tableSlots(m::Flavour::Full);
        const DispatchKey k = slots[in.ConsumeIntegralInRange<size_t>(0, slots.size() - 1)];
        it.raw = DispatchKeySet(k).raw_repr() | randomLowerBits(in, k);
        how << "full slot key " << k << " + lower bits";
        break;
      }
      case ItemKind::TrimmedSlot: {
        const auto& slots = m::keysOfTrimmedFlavours();
        const DispatchKey k = slots[in.ConsumeIntegralInRange<size_t>(0, slots.size() - 1)];
        it.raw = DispatchKeySet(k).raw_repr() | randomLowerBits(in, k);
        how << "trimmed slot key " << k << " + lower bits";
        break;
      }
      case ItemKind::Neighbour: {
        const uint64_t base = out.size == 0 ? 0 : out.items[out.size - 1].raw;
        const int bit = in.ConsumeIntegralInRange<int>(0, 63);
        it.raw = base ^ (uint64_t{1} << bit);
        how << "previous with bit " << bit << " flipped";
        break;
      }
      case ItemKind::kCount:
        break;
    }
    if (describe) out.how.push_back(how.str());
    out.items[out.size++] = it;
  }
}

void printItems(std::ostream& out, const Items& decoded) {
  for (size_t i = 0; i < decoded.size; ++i) {
    const uint64_t raw = decoded.items[i].raw;
    out << std::setw(3) << i << ": " << decoded.how.at(i) << " -> "
        << toString(DispatchKeySet(DispatchKeySet::RAW, raw)) << " [" << hex(raw) << "]\n";
  }
}

// --- checking ----------------------------------------------------------------------------------

// What the model says about one raw set and about one key, computed once per value
// (harness/model_memo.h: the model is a pure function of them; every comparison still runs).
// Fixed-size arrays: a memo miss (most Raw items are new values) allocates only the map node.
using IndexPerFlavour = std::array<int, std::size(m::kFlavourDeclarations)>;  // by Flavour::index
struct SetAnswers {
  DispatchKey type_id;
  int backend_index;
  IndexPerFlavour index;  // model::tableIndex
  bool has_unknown_values;
  int selective;  // the SelectiveLayout slot of type_id, -1 if it keeps none (see check())
};
struct KeyAnswers {
  IndexPerFlavour index;  // model::tableIndex
};

dispatch::fuzz::ModelMemo<uint64_t, SetAnswers> set_answers;
dispatch::fuzz::ModelMemo<uint16_t, KeyAnswers> key_answers;  // at most 65536 keys

template <class Query>
IndexPerFlavour indexPerFlavour(Query query) {
  IndexPerFlavour index{};
  for (const m::Flavour f : m::allFlavours()) index.at(f.index) = query(f);
  return index;
}

// A trimmed layout keeps the slot of highestPriorityTypeId, and nothing for bits past the last
// functionality (the oracle here is the model's type id and the layout's own list).
int selectiveSlot(DispatchKey type_id, bool has_unknown_values) {
  if (has_unknown_values) return -1;
  const auto& keys = SelectiveLayout::kSlotKeys;
  const auto found = std::find(keys.begin(), keys.end(), type_id);
  return found == keys.end() ? -1 : static_cast<int>(found - keys.begin());
}

const SetAnswers& setAnswers(uint64_t raw) {
  return set_answers.get(raw, [raw] {
    const m::KeySet model = m::KeySet::fromRaw(raw);
    const bool unknown = !model.unknownFunctionalityValues().empty();
    return SetAnswers{model.highestPriorityTypeId(), model.getBackendIndex(),
                      indexPerFlavour([&](m::Flavour f) { return m::tableIndex(model, f); }), unknown,
                      selectiveSlot(model.highestPriorityTypeId(), unknown)};
  });
}

const KeyAnswers& keyAnswers(DispatchKey k) {
  return key_answers.get(toUnderlying(k), [k] {
    return KeyAnswers{indexPerFlavour([k](m::Flavour f) { return m::tableIndex(k, f); })};
  });
}


// Every layout has the model's table size. A property of the build, not of an input: checked
// once, before the first input.
void checkTableSizes() {
  AllLayouts::forEach([&]<class L>() {
    const auto model_size = m::tableSlots(oracle::kModelFlavour<L>).size();
    if (static_cast<int>(model_size) != L::kNumEntries) {
      dispatch::fuzz::reportBug(kTarget, "table sizes differ",
                                std::string(L::kName) + " " + std::to_string(L::kNumEntries) + " vs model " +
                                    std::to_string(model_size));
    }
  });
}

class Checker {
 public:
  Checker(const Items& items, const uint8_t* data, size_t size) : items_(items), data_(data), size_(size) {}

  void run() {
    for (index_ = 0; index_ < items_.size; ++index_) check(items_.items[index_]);
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& details) const {
    std::ostringstream out;
    Items described;
    decode(data_, size_, true, described);
    const Item& it = described.items[index_];
    out << "item " << index_ << " (" << described.how.at(index_) << "), set "
        << toString(DispatchKeySet(DispatchKeySet::RAW, it.raw)) << " [" << hex(it.raw)
        << "], model " << m::toDebugString(m::KeySet::fromRaw(it.raw)) << ":\n  " << details
        << "\ninput:\n";
    printItems(out, described);
    dispatch::fuzz::reportBug(kTarget, what, out.str());
  }

  template <class L>
  int checkedIndex(DispatchKeySet ks) const {
    const int index = L::indexOf(ks);
    if (index != -1 && (index < 0 || index >= L::kNumEntries)) {
      fail(std::string(L::kName) + " index out of range",
           std::string(L::kName) + "::indexOf = " + std::to_string(index) + ", table size " +
               std::to_string(L::kNumEntries));
    }
    return index;
  }

  // `what` is a string or a callable returning one, called only on a difference (the names
  // in it cost more to build than the comparison). Both values are computed by the caller, in
  // instrumented code; this comparison of the library's answer with the model's is the
  // harness's, so it is built without coverage: a trace-cmp hook on it told libFuzzer nothing.
  template <class What>
  HARNESS_ONLY void expectIndex(const What& what, int real, int expected) const {
    if (real == expected) return;
    std::string name;
    if constexpr (std::is_invocable_v<What>) {
      name = what();
    } else {
      name = what;
    }
    fail(name + " differs", name + ": dispatcher " + std::to_string(real) + ", model " +
                                std::to_string(expected));
  }

  // A trimmed flavour agrees with the model, and with full on every key it keeps.
  template <class L>
  void checkTrimmed(const Item& it, DispatchKeySet ks, const SetAnswers& model, int full,
                    DispatchKey type_id) const {
    const std::string_view name = L::kName;  // made a std::string only for a report
    const int trimmed = checkedIndex<L>(ks);
    expectIndex([&] { return std::string(name) + " indexOf"; }, trimmed,
                model.index[oracle::kModelFlavour<L>.index]);
    if (trimmed >= 0) {
      const DispatchKey kept_key = L::kSlotKeys[static_cast<size_t>(trimmed)];
      if (full < 0) fail(std::string(name) + " keeps a set full has no slot for", std::string(name) + " slot " + keyName(kept_key));
      const DispatchKey full_key = m::tableSlots(m::Flavour::Full)[static_cast<size_t>(full)];
      if (kept_key != full_key) {
        fail(std::string(name) + " and full slots hold different keys",
             std::string(name) + " slot " + std::to_string(trimmed) + " = " + keyName(kept_key) +
                 ", full slot " + std::to_string(full) + " = " + keyName(full_key));
      }
      if (kept_key != type_id) {
        fail(std::string(name) + " slot is not highestPriorityTypeId",
             std::string(name) + " slot key " + keyName(kept_key) + ", type id " + keyName(type_id));
      }
      expectIndex([&] { return std::string(name) + " indexOf(slot key " + keyName(kept_key) + ")"; },
                  L::indexOf(kept_key), trimmed);
    }
    if (it.kind == ItemKind::Key) {
      const DispatchKey k = it.key;
      expectIndex([&] { return std::string(name) + " indexOf(" + keyName(k) + ")"; }, L::indexOf(k),
                  keyAnswers(k).index[oracle::kModelFlavour<L>.index]);
      expectIndex([&] { return std::string(name) + " indexOf(key) vs indexOf(DispatchKeySet(key))"; },
                  L::indexOf(k), trimmed);
    }
  }

  void check(const Item& it) const {
    const DispatchKeySet ks(DispatchKeySet::RAW, it.raw);
    const SetAnswers& model = setAnswers(it.raw);
    const auto& full_slots = m::tableSlots(m::Flavour::Full);

    const DispatchKey type_id = ks.highestPriorityTypeId();
    if (type_id != model.type_id) {
      fail("highestPriorityTypeId differs", "dispatcher " + keyName(type_id) + ", model " + keyName(model.type_id));
    }
    const int backend_index = ks.getBackendIndex();
    if (backend_index != model.backend_index || backend_index < 0 || backend_index >= num_backends) {
      fail("getBackendIndex differs", "dispatcher " + std::to_string(backend_index) + ", model " +
                                          std::to_string(model.backend_index));
    }

    const int full = checkedIndex<FullLayout>(ks);
    const int selective = checkedIndex<SelectiveLayout>(ks);
    expectIndex("FullLayout::indexOf", full, model.index[m::Flavour::Full.index]);

    expectIndex("SelectiveLayout::indexOf", selective, model.selective);

    if (full >= 0) {
      const DispatchKey full_key = full_slots[static_cast<size_t>(full)];
      if (isRuntimeDispatchKey(type_id) && full_key != type_id) {
        fail("full slot is not highestPriorityTypeId",
             "full slot " + std::to_string(full) + " = " + keyName(full_key) + ", type id " + keyName(type_id));
      }
      expectIndex([&] { return "FullLayout::indexOf(slot key " + keyName(full_key) + ")"; },
                  FullLayout::indexOf(full_key), full);
    }
    AllLayouts::forEach([&]<class L>() {
      if constexpr (!std::is_same_v<L, FullLayout>) checkTrimmed<L>(it, ks, model, full, type_id);
    });

    if (it.kind == ItemKind::Key) {
      const DispatchKey k = it.key;
      const KeyAnswers& expected = keyAnswers(k);
      expectIndex([&] { return "FullLayout::indexOf(" + keyName(k) + ")"; }, FullLayout::indexOf(k),
                  expected.index[m::Flavour::Full.index]);
      expectIndex("FullLayout::indexOf(key) vs indexOf(DispatchKeySet(key))", FullLayout::indexOf(k), full);
      expectIndex("SelectiveLayout::indexOf(key) vs indexOf(DispatchKeySet(key))",
                  SelectiveLayout::indexOf(k), selective);
      // A runtime key owns its own full slot.
      if (isRuntimeDispatchKey(k)) {
        if (full < 0 || full_slots[static_cast<size_t>(full)] != k) {
          fail("runtime key does not own its full slot",
               keyName(k) + " -> slot " + std::to_string(full));
        }
      }
    }
  }

  const Items& items_;
  const uint8_t* data_;  // the input, decoded again with descriptions for a report
  size_t size_;
  size_t index_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool sizes_checked = (checkTableSizes(), true);
  (void)sizes_checked;
  set_answers.trim();
  static Items items;  // reused: decode() overwrites it
  decode(data, size, false, items);
  Checker(items, data, size).run();
  return 0;
}

void dispatch::fuzz::printInput(std::ostream& out, const uint8_t* data, size_t size) {
  Items items;
  decode(data, size, true, items);
  printItems(out, items);
}
