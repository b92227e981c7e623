#pragma once
// Shared helpers of operator_entry_test, dispatcher_test, errors_test and concurrency_test.
//
// The key lists below are written out from docs/semantics.md
// (sections 1.3, 1.4, 2.6, 2.8 and 6.2) as plain strings and integers. They deliberately use none
// of the library's key helpers (no getRuntimeDispatchKeySet, no isIncludedInAlias, no iteration of
// library key sets): the expected tables built from them are an independent statement of the
// spec, so a wrong library answer makes a test fail instead of agreeing with itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "dispatch/dispatch.h"

namespace dispatch::test_support {

// --- spec key lists ------------------------------------------------------------------------------

// Section 1.2, in BackendComponent order (value 1 .. 14).
inline const std::vector<std::string>& backendNames() {
  static const std::vector<std::string> names = {
      "CPU", "CUDA", "HIP",  "XLA",  "MPS",         "IPU",         "XPU",
      "HPU", "VE",   "Lazy", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3"};
  return names;
}

// One runtime key: its canonical name and its enum value (section 1.3 / 1.4).
struct SpecKey {
  std::string name;
  int value;
};

// Section 1.3: (value, name, per-backend prefix or nullptr) of functionality values 1 .. 40.
// Section 1.4: the StartOf<F>Backends value of each per-backend block.
struct SpecFunctionality {
  int value;
  const char* name;
  const char* prefix;  // non-null: per-backend, runtime keys are prefix + backend name
  int block_start;
};
inline const std::vector<SpecFunctionality>& functionalities() {
  static const std::vector<SpecFunctionality> list = {
      {1, "Dense", "", 42},
      {2, "FPGA", nullptr, 0},
      {3, "ORT", nullptr, 0},
      {4, "Vulkan", nullptr, 0},
      {5, "Metal", nullptr, 0},
      {6, "Quantized", "Quantized", 57},
      {7, "CustomRNGKeyId", nullptr, 0},
      {8, "MkldnnCPU", nullptr, 0},
      {9, "Sparse", "Sparse", 72},
      {10, "SparseCsrCPU", nullptr, 0},
      {11, "SparseCsrCUDA", nullptr, 0},
      {12, "NestedTensor", "NestedTensor", 87},
      {13, "BackendSelect", nullptr, 0},
      {14, "Python", nullptr, 0},
      {15, "Fake", nullptr, 0},
      {16, "FuncTorchDynamicLayerBackMode", nullptr, 0},
      {17, "Functionalize", nullptr, 0},
      {18, "Named", nullptr, 0},
      {19, "Conjugate", nullptr, 0},
      {20, "Negative", nullptr, 0},
      {21, "ZeroTensor", nullptr, 0},
      {22, "ADInplaceOrView", nullptr, 0},
      {23, "AutogradOther", nullptr, 0},
      {24, "AutogradFunctionality", "Autograd", 102},
      {25, "AutogradNestedTensor", nullptr, 0},
      {26, "Tracer", nullptr, 0},
      {27, "AutocastCPU", nullptr, 0},
      {28, "AutocastXPU", nullptr, 0},
      {29, "AutocastCUDA", nullptr, 0},
      {30, "FuncTorchBatched", nullptr, 0},
      {31, "FuncTorchVmapMode", nullptr, 0},
      {32, "Batched", nullptr, 0},
      {33, "VmapMode", nullptr, 0},
      {34, "FuncTorchGradWrapper", nullptr, 0},
      {35, "DeferredInit", nullptr, 0},
      {36, "PythonTLSSnapshot", nullptr, 0},
      {37, "FuncTorchDynamicLayerFrontMode", nullptr, 0},
      {38, "TESTING_ONLY_GenericWrapper", nullptr, 0},
      {39, "TESTING_ONLY_GenericMode", nullptr, 0},
      {40, "PythonDispatcher", nullptr, 0},
  };
  return list;
}

// The 105 runtime keys in ascending priority (the FULL order of section 2.6).
inline const std::vector<SpecKey>& fullRuntimeKeys() {
  static const std::vector<SpecKey> keys = [] {
    std::vector<SpecKey> out;
    for (const auto& f : functionalities()) {
      if (f.prefix == nullptr) {
        out.push_back({f.name, f.value});
        continue;
      }
      for (size_t b = 0; b < backendNames().size(); ++b) {
        out.push_back({std::string(f.prefix) + backendNames()[b], f.block_start + 1 + int(b)});
      }
    }
    return out;
  }();
  return keys;
}

inline DispatchKey keyOfValue(int value) { return static_cast<DispatchKey>(value); }

// Names of every runtime key, optionally preceded by Undefined: the order of table dumps.
inline std::vector<std::string> tableKeyOrder() {
  std::vector<std::string> out = {"Undefined"};
  for (const auto& k : fullRuntimeKeys()) out.push_back(k.name);
  return out;
}

using Names = std::vector<std::string>;

inline Names concatNames(std::initializer_list<Names> parts) {
  Names out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// prefix + every backend, optionally leaving some backends out.
inline Names perBackend(const std::string& prefix, const Names& without = {}) {
  Names out;
  for (const auto& b : backendNames()) {
    if (std::find(without.begin(), without.end(), b) == without.end()) out.push_back(prefix + b);
  }
  return out;
}

// Section 2.8, written out.
inline const Names kPlainBackends = {
    "FPGA",           "ORT",       "Vulkan",       "Metal",
    "CustomRNGKeyId", "MkldnnCPU", "SparseCsrCPU", "SparseCsrCUDA"};
// CompositeExplicitAutograd: Dense, Quantized, Sparse x 14 and the 8 plain backends (50).
inline Names ceaKeys() {
  return concatNames(
      {perBackend(""), perBackend("Quantized"), perBackend("Sparse"), kPlainBackends});
}
// CompositeExplicitAutogradNonFunctional: CEA without Sparse* and without XLA / Lazy (32).
inline Names ceanfKeys() {
  return concatNames(
      {perBackend("", {"XLA", "Lazy"}), perBackend("Quantized", {"XLA", "Lazy"}), kPlainBackends});
}
// Autograd: AutogradOther, Autograd x 14, AutogradNestedTensor (16).
inline Names autogradKeys() {
  return concatNames({{"AutogradOther"}, perBackend("Autograd"), {"AutogradNestedTensor"}});
}
// CompositeImplicitAutogradNestedTensor: NestedTensor x 14 + AutogradNestedTensor (15).
inline Names ciaNestedKeys() {
  return concatNames({perBackend("NestedTensor"), {"AutogradNestedTensor"}});
}
// CompositeImplicitAutograd: CEA + NestedTensor x 14 + the Autograd set (80).
inline Names ciaKeys() {
  return concatNames({ceaKeys(), perBackend("NestedTensor"), autogradKeys()});
}

// The full table (every key has a slot) or a trimmed one (cmake/flavours.list).
template <class L>
constexpr bool isFull() {
  return std::is_same_v<L, FullLayout>;
}

// Whether the flavour keeps `key`: its declared slot keys (the full table keeps all).
template <class L>
bool hasSlot(const std::string& key) {
  if constexpr (isFull<L>()) {
    return true;
  } else {
    return std::any_of(L::kSlotKeys.begin(), L::kSlotKeys.end(),
                       [&](DispatchKey k) { return toString(k) == key; });
  }
}

// Keeps the keys of `keys` that the flavour has a slot for, in order.
template <class L>
Names slotted(const Names& keys) {
  Names out;
  for (const auto& k : keys) {
    if (hasSlot<L>(k)) out.push_back(k);
  }
  return out;
}

// --- expected tables -----------------------------------------------------------------------------

// key name -> "[fallthrough ]<debug> [<tag>]" as dumpComputedTable prints it. A value starting
// with "* " matches any debug string followed by the rest (used for the ambiguous kernel, whose
// debug name the spec does not fix).
using Table = std::map<std::string, std::string>;

class Expect {
 public:
  Expect& set(const Names& keys, const std::string& value) {
    for (const auto& k : keys) table_[k] = value;
    return *this;
  }
  // Single-key forms (named differently: a braced list of two literals would otherwise also
  // match std::string's iterator-pair constructor).
  Expect& one(const std::string& key, const std::string& value) { return set(Names{key}, value); }
  Expect& erase(const Names& keys) {
    for (const auto& k : keys) table_.erase(k);
    return *this;
  }
  Expect& eraseOne(const std::string& key) { return erase(Names{key}); }
  // The expectation for a flavour: keys without a slot are never printed.
  template <class L>
  Table forLayout() const {
    Table out;
    for (const auto& [k, v] : table_) {
      if (hasSlot<L>(k)) out.emplace(k, v);
    }
    return out;
  }
  const Table& all() const { return table_; }

 private:
  Table table_;
};

// Parses a "Key: rest" dump; records a failure for malformed lines, duplicate keys and keys out
// of the table order (Undefined, then ascending priority).
inline Table parseDump(const std::string& dump, const std::string& what) {
  Table out;
  const Names order = tableKeyOrder();
  size_t last_position = 0;
  bool first = true;
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) {
      ADD_FAILURE() << what << ": malformed line '" << line << "'";
      continue;
    }
    const std::string key = line.substr(0, colon);
    auto position = std::find(order.begin(), order.end(), key);
    if (position == order.end()) {
      ADD_FAILURE() << what << ": unknown key '" << key << "' in line '" << line << "'";
      continue;
    }
    const size_t index = static_cast<size_t>(position - order.begin());
    if (!first && index <= last_position) {
      ADD_FAILURE() << what << ": key '" << key << "' out of priority order";
    }
    first = false;
    last_position = index;
    if (!out.emplace(key, line.substr(colon + 2)).second) {
      ADD_FAILURE() << what << ": duplicate key '" << key << "'";
    }
  }
  return out;
}

inline bool valueMatches(const std::string& expected, const std::string& actual) {
  if (expected.rfind("* ", 0) == 0) {
    const std::string tail = expected.substr(1);  // " [tag]"
    return actual.size() >= tail.size() &&
           actual.compare(actual.size() - tail.size(), tail.size(), tail) == 0;
  }
  return expected == actual;
}

inline ::testing::AssertionResult tableMatches(const Table& actual, const Table& expected) {
  std::ostringstream diff;
  for (const auto& [k, v] : expected) {
    auto found = actual.find(k);
    if (found == actual.end()) {
      diff << "  " << k << ": expected '" << v << "', but it is missing\n";
    } else if (!valueMatches(v, found->second)) {
      diff << "  " << k << ": expected '" << v << "', got '" << found->second << "'\n";
    }
  }
  for (const auto& [k, v] : actual) {
    if (!expected.count(k)) diff << "  " << k << ": expected missing, got '" << v << "'\n";
  }
  if (diff.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n" << diff.str();
}

// The computed table, the live table and the expectation all agree, and the invariants hold.
template <class L>
void expectTables(const BasicOperatorHandle<L>& op, const Expect& expected) {
  const Table want = expected.template forLayout<L>();
  EXPECT_TRUE(tableMatches(parseDump(op.dumpComputedTable(), "dumpComputedTable"), want))
      << "dumpComputedTable of " << op.operatorNameString() << " (" << L::kName << ")";
  EXPECT_TRUE(tableMatches(parseDump(op.dumpDispatchTable(), "dumpDispatchTable"), want))
      << "dumpDispatchTable of " << op.operatorNameString() << " (" << L::kName << ")";
  EXPECT_NO_THROW(op.checkInvariants());
}

// One entry of a dump ("" when the key is not printed).
inline std::string entryOf(const std::string& dump, const std::string& key) {
  const Table t = parseDump(dump, "dump");
  auto found = t.find(key);
  return found == t.end() ? std::string() : found->second;
}

// --- registration helpers ------------------------------------------------------------------------

using IntSig = int64_t(const Tensor&);

// A typed kernel `int64_t(const Tensor&)` returning `ret`, registered through registerImpl.
template <class L>
RegistrationHandle implInt(BasicDispatcher<L>& d, const std::string& op,
                           std::optional<DispatchKey> key, const std::string& debug, int64_t ret) {
  BasicCppFunction<L> f([ret](const Tensor&) -> int64_t { return ret; });
  return d.registerImpl(parseOperatorName(op), key, std::move(f.kernel_),
                        std::move(f.cpp_signature_), std::move(f.inferred_schema_), debug);
}

// A boxed kernel or fallback that pops the operator's arguments and pushes `ret`.
template <class L>
BasicKernelFunction<L> boxedInt(int64_t ret) {
  return BasicKernelFunction<L>::makeFromBoxedLambda(
      [ret](const BasicOperatorHandle<L>& op, DispatchKeySet, Stack* stack) {
        stack->resize(stack->size() - op.schema().arguments.size());
        stack->emplace_back(ret);
      });
}

template <class L>
BasicCppFunction<L> boxedIntFunction(int64_t ret) {
  return BasicCppFunction<L>::makeFromBoxedLambda(
      [ret](const BasicOperatorHandle<L>& op, DispatchKeySet, Stack* stack) {
        stack->resize(stack->size() - op.schema().arguments.size());
        stack->emplace_back(ret);
      });
}

template <class L>
BasicCppFunction<L> intFunction(int64_t ret, std::string debug) {
  return BasicCppFunction<L>([ret](const Tensor&) -> int64_t { return ret; })
      .withDebug(std::move(debug));
}

template <class L>
BasicCppFunction<L> fallthrough(std::string debug) {
  return BasicCppFunction<L>::makeFallthrough().withDebug(std::move(debug));
}

// Fallthrough fallbacks for Autograd (expanded), ADInplaceOrView and BackendSelect: the part of
// the 1.13 start-up set that ordinary calls depend on (docs/semantics.md §5.3), with our own debug names.
template <class L>
std::vector<BasicLibrary<L>> usualFallthroughs(BasicDispatcher<L>& d) {
  using Library = BasicLibrary<L>;
  std::vector<Library> libs;
  libs.emplace_back(Library::Kind::IMPL, "_", DK::Autograd, d)
      .fallback(fallthrough<L>("autograd_ft"));
  libs.emplace_back(Library::Kind::IMPL, "_", DK::ADInplaceOrView, d)
      .fallback(fallthrough<L>("adinplace_ft"));
  libs.emplace_back(Library::Kind::IMPL, "_", DK::BackendSelect, d)
      .fallback(fallthrough<L>("backendselect_ft"));
  return libs;
}

// --- tensors -------------------------------------------------------------------------------------

inline Tensor tensor(TensorKind kind, BackendComponent b, int64_t id = 0) {
  return makeTensor(kind, b, false, false, id);
}
inline Tensor cpuTensor(int64_t id = 0) { return tensor(TensorKind::Dense, BC::CPUBit, id); }

// --- state snapshots -----------------------------------------------------------------------------

// Everything observable about a dispatcher: every operator's canonical state and both tables,
// the fallbacks, the dangling impls. Two equal snapshots mean "nothing changed".
template <class L>
std::string snapshot(const BasicDispatcher<L>& d) {
  std::ostringstream out;
  std::vector<OperatorName> names = d.getAllOpNames();
  std::sort(names.begin(), names.end());
  out << "operators: " << d.numOperators() << "\n";
  for (const auto& name : names) {
    auto op = d.findOp(name);
    if (!op) {
      out << "LOST " << name << "\n";
      continue;
    }
    out << "== " << name << (op->hasSchema() ? "" : " (no schema)") << "\n"
        << op->dumpState() << "-- computed\n"
        << op->dumpComputedTable() << "-- live\n"
        << op->dumpDispatchTable();
  }
  std::vector<OperatorName> dangling = d.findDanglingImpls();
  std::sort(dangling.begin(), dangling.end());
  out << "dangling:";
  for (const auto& name : dangling) out << " " << name;
  out << "\nfallbacks:\n" << d.dumpFallbacks();
  return out.str();
}

// --- exceptions ----------------------------------------------------------------------------------

// Runs f and returns the message of the exception it throws, which must be exactly of type E
// (not a base, not a subclass). Records a failure otherwise.
template <class E, class F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    if (typeid(e) != typeid(E)) {
      ADD_FAILURE() << "expected exactly " << typeid(E).name() << ", got " << typeid(e).name()
                    << ": " << e.what();
      return e.what();
    }
    return e.what();
  }
  ADD_FAILURE() << "expected " << typeid(E).name() << ", but nothing was thrown";
  return "";
}

// Readable gtest names for the flavour-typed suites.
struct LayoutName {
  template <class L>
  static std::string GetName(int) {
    return std::string(L::kName);
  }
};
// Every flavour declared in cmake/flavours.list (the expectations here are derived per flavour
// from its slot keys; drawn flavours run in the fuzz targets and the properties).
using TestedLayouts = ::dispatch::DeclaredLayouts::Apply<::testing::Types>;

}  // namespace dispatch::test_support
