#include "c10_live_table.h"

#include <map>
#include <set>
#include <sstream>

#include "c10_support.h"
#include "oracle/model/model.h"

namespace dispatch::c10_sut {

namespace {

using Signature = std::string(const at::Tensor&, const c10::optional<at::Tensor>&, int64_t);

// What redispatching on {k} alone runs: "kernel <name>", "fallthrough", "ambiguous", "missing".
std::string liveSlot(const LiveProbe& probe, c10::DispatchKey k) {
  try {
    return "kernel " + probe(k);
  } catch (const c10::Error& e) {
    const oracle::SutOutcome outcome = callError(e);
    if (outcome.error == model::ErrorKind::AmbiguousAutogradOther) return "ambiguous";
    if (outcome.message.find("fallthrough_kernel was executed") != std::string::npos) return "fallthrough";
    if (outcome.error == model::ErrorKind::NotImplemented) return "missing";
    // A missing slot makes c10 report the error, and reportError runs checkInvariants first.
    if (outcome.message.find("_equalsBoxedAndUnboxed") != std::string::npos) return "missing";
    return "error " + outcome.message.substr(0, 80);
  }
}

// What a valid live slot holds, read without a call where the release lets a handle read it
// (OperatorHandle::lookup, 2.x): "fallthrough" (calling one throws from c10's assert), or ""
// when only a call can tell (a kernel's name, an ambiguous slot, 1.13's handles).
template <class Handle>
std::string liveSlotRead(const Handle& op, c10::DispatchKey k) {
  if constexpr (requires { op.lookup(c10::DispatchKeySet(k)); }) {
    if (op.lookup(c10::DispatchKeySet(k)).isFallthrough()) return "fallthrough";
  }
  return "";
}

}  // namespace

ComputedTable computedTable(const c10::OperatorHandle& op) {
  ComputedTable table{op.dumpComputedTable(), {}, {}};
  table.model_words = inModelWords(table.text);
  auto& slots = table.slots;
  std::istringstream lines(table.text);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    const size_t open = line.rfind(" [");
    if (colon == std::string::npos || open == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string debug = line.substr(colon + 2, open - colon - 2);
    const std::string tag = line.substr(open + 2, line.size() - open - 3);
    if (tag == "ambiguous autogradother") {
      slots[key] = "ambiguous";
    } else if (debug.rfind("fallthrough ", 0) == 0) {
      slots[key] = "fallthrough";
    } else {
      slots[key] = "kernel " + debug;
    }
  }
  return table;
}

// A slot holding one is not probed (the fallback expects real tensors); 2.x gives every Autograd
// key one, so skipping the keys that have one, as against 1.13, would skip the stale slots.
bool isStartupBoxedFallback(const std::string& computed) {
  constexpr std::string_view kKernel = "kernel ";
  if (!computed.starts_with(kKernel)) return false;
  const auto& names = startupFallbackNames();
  const auto it = names.find(computed.substr(kKernel.size()));
  return it != names.end() && it->second.starts_with("startup fallback for ");
}

std::string staleSlots(const c10::OperatorHandle& op, const ComputedTable& computed, SlotReading reading) {
  const auto typed = op.typed<Signature>();
  const at::Tensor self = tensorWithKeys(0);
  return staleSlots(
      op, computed,
      [&](c10::DispatchKey k) {
        const std::string result = typed.redispatch(c10::DispatchKeySet(k), self, c10::nullopt, 7);
        return result.substr(0, result.find('@'));
      },
      reading);
}

std::string staleSlots(const c10::OperatorHandle& op, const ComputedTable& table, const LiveProbe& probe,
                       SlotReading reading) {
  const auto& computed = table.slots;
  std::string out;
  int stale = 0;
  // Every runtime key of this release (a full key set iterates over them), by c10's own names:
  // keys our vocabulary lacks are probed too.
  for (c10::DispatchKey k : c10::DispatchKeySet(c10::DispatchKeySet::FULL)) {
    const std::string name = c10::toString(k);
    const auto it = computed.find(name);
    const std::string expected = it == computed.end() ? "missing" : it->second;
    if (isStartupBoxedFallback(expected)) continue;
    std::string live;
    if (reading == SlotReading::ByCalls) {
      live = liveSlot(probe, k);
    } else if (!op.hasComputedKernelForDispatchKey(k)) {
      live = "missing";
    } else if (live = liveSlotRead(op, k); live.empty()) {
      live = liveSlot(probe, k);
    }
    if (live != expected) {
      out += (out.empty() ? "" : ", ") + name + " (live: " + live + "; computed: " + expected + ")";
      ++stale;
    }
  }
  return "(" + std::to_string(stale) + ")" + (out.empty() ? "" : ": " + out);
}

}  // namespace dispatch::c10_sut
