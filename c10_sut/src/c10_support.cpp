#include "c10_support.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include <c10/core/TensorImpl.h>
#include <c10/util/Logging.h>
#include <torch/version.h>

#include "oracle/model/model.h"

namespace dispatch::c10_sut {

namespace {

class KeyedTensorImpl final : public c10::TensorImpl {
 public:
  explicit KeyedTensorImpl(c10::DispatchKeySet keys)
      : c10::TensorImpl(c10::DispatchKeySet(c10::DispatchKey::CPU), caffe2::TypeMeta::Make<float>(),
                        c10::Device(c10::kCPU)) {
    key_set_ = keys;
  }
};

class BoxedKernel final : public c10::OperatorKernel {
 public:
  explicit BoxedKernel(std::string name) : name_(std::move(name)) {}
  void operator()(const c10::OperatorHandle&, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
    const auto n = static_cast<std::ptrdiff_t>(std::min<size_t>(3, stack->size()));
    stack->erase(stack->end() - n, stack->end());
    stack->emplace_back(c10KernelResult(name_, ks));
  }

 private:
  std::string name_;
};

class SilentWarnings final : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}
#else
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
#endif
};

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// One line of dumpComputedTable: "<Key>: [fallthrough ]<debug> [<tag>]".
struct TableLine {
  std::string key;
  bool fallthrough = false;
  std::string debug;
  std::string tag;
};

std::optional<TableLine> parseTableLine(const std::string& line) {
  const size_t colon = line.find(": ");
  const size_t open = line.rfind(" [");
  if (colon == std::string::npos || open == std::string::npos || open < colon || !line.ends_with("]")) {
    return std::nullopt;
  }
  TableLine entry{line.substr(0, colon), false, line.substr(colon + 2, open - colon - 2),
                  line.substr(open + 2, line.size() - open - 3)};
  constexpr std::string_view kFallthrough = "fallthrough ";
  if (entry.debug.starts_with(kFallthrough)) {
    entry.fallthrough = true;
    entry.debug.erase(0, kFallthrough.size());
  }
  return entry;
}

}  // namespace

at::Tensor tensorWithKeys(c10::DispatchKeySet keys) { return at::detail::make_tensor<KeyedTensorImpl>(keys); }

at::Tensor tensorWithKeys(uint64_t raw) { return tensorWithKeys(toC10Set(raw)); }

torch::CppFunction makeCppFunction(oracle::KernelKind kind, const std::string& name) {
  switch (kind) {
    case oracle::KernelKind::Fallthrough:
      return torch::CppFunction::makeFallthrough().debug(name);
    case oracle::KernelKind::Typed:
      return torch::CppFunction([name](c10::DispatchKeySet ks, const at::Tensor&, const c10::optional<at::Tensor>&,
                                       int64_t) { return c10KernelResult(name, ks); })
          .debug(name);
    case oracle::KernelKind::Boxed:
      break;
  }
  return torch::CppFunction::makeFromBoxedFunctor(std::make_unique<BoxedKernel>(name)).debug(name);
}

c10::KernelFunction makeKernelFunction(oracle::KernelKind kind, const std::string& name) {
  if (kind == oracle::KernelKind::Fallthrough) return c10::KernelFunction::makeFallthrough();
  return c10::KernelFunction::makeFromBoxedFunctor(std::make_unique<BoxedKernel>(name));
}

std::string messageOf(const c10::Error& e) { return e.what_without_backtrace(); }

oracle::SutOutcome callError(const c10::Error& e) {
  oracle::SutOutcome o;
  o.message = messageOf(e);
  if (dynamic_cast<const c10::NotImplementedError*>(&e) || contains(o.message, "fallthrough_kernel was executed")) {
    o.error = model::ErrorKind::NotImplemented;
  } else if (contains(o.message, "a backend mapped to AutogradOther")) {
    o.error = model::ErrorKind::AmbiguousAutogradOther;
  } else if (contains(o.message, ": the stack does not fit")) {  // a declared-schema boxed kernel
    o.stack_misfit = true;
  } else {
    o.unclassified = true;
  }
  return o;
}

oracle::SutOutcome registrationError(const c10::Error& e) {
  oracle::SutOutcome o;
  o.message = messageOf(e);
  if (contains(o.message, "INTERNAL ASSERT FAILED")) {
    o.unclassified = true;
  } else if (contains(o.message, "Inferred operator schema for a C++ kernel function doesn't match") ||
             contains(o.message, "Mismatch in kernel C++ signatures")) {
    o.schema_refused = true;
  } else {
    o.error = model::ErrorKind::Registration;
  }
  return o;
}

std::string probeTable() {
  torch::Library probe(torch::Library::FRAGMENT, "dispatch_seam_probe", c10::nullopt, __FILE__, __LINE__);
  probe.def("dispatch_seam_probe::probe(Tensor self) -> Tensor");
  return c10::Dispatcher::singleton().findSchemaOrThrow("dispatch_seam_probe::probe", "").dumpComputedTable();
}

const std::map<std::string, std::string>& startupFallbackNames() {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> out;
    std::istringstream lines(probeTable());
    for (std::string line; std::getline(lines, line);) {
      const auto entry = parseTableLine(line);
      if (!entry || entry->tag != "backend fallback") continue;
      out[entry->debug] = (entry->fallthrough ? "startup fallthrough for " : "startup fallback for ") + entry->key;
    }
    return out;
  }();
  return names;
}

const std::set<std::string>& startupFallbackKeys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> out;
    std::istringstream lines(probeTable());
    for (std::string line; std::getline(lines, line);) {
      const auto entry = parseTableLine(line);
      if (entry && entry->tag == "backend fallback") out.insert(entry->key);
    }
    return out;
  }();
  return keys;
}

std::string inModelWords(const std::string& table) {
  const auto& names = startupFallbackNames();
  std::istringstream lines(table);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    auto entry = parseTableLine(line);
    if (!entry) {
      out += line + "\n";
      continue;
    }
    if (auto it = names.find(entry->debug); it != names.end()) entry->debug = it->second;
    out += entry->key + ": " + (entry->fallthrough ? "fallthrough " : "") + entry->debug + " [" + entry->tag + "]\n";
  }
  return out;
}

void quietC10() {
  static SilentWarnings silent;
#if TORCH_VERSION_MAJOR >= 2
  c10::WarningUtils::set_warning_handler(&silent);
#else
  c10::Warning::set_warning_handler(&silent);
#endif
  c10::SetStackTraceFetcher([] { return std::string("(backtrace off)"); });
}

}  // namespace dispatch::c10_sut
