#include "libtorch_program.h"

#include <sstream>

#include "oracle/actions/names.h"

namespace dispatch::fuzz::c10 {

namespace {

using oracle::Action;
using oracle::ActionKind;

// What every program starts with: tensors with an exact key set, the kernels, and the checks.
constexpr const char* kPrologue = R"(#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/Tensor.h>
#include <c10/core/TensorImpl.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

// A tensor whose key_set() is exactly `raw` (TensorImpl's constructor would add keys).
struct KeyedTensorImpl final : c10::TensorImpl {
  explicit KeyedTensorImpl(uint64_t raw)
      : c10::TensorImpl(c10::DispatchKeySet(c10::DispatchKey::CPU), caffe2::TypeMeta::Make<float>(),
                        c10::Device(c10::kCPU)) {
    key_set_ = c10::DispatchKeySet(c10::DispatchKeySet::RAW, raw);
  }
};
at::Tensor tensor(uint64_t raw) { return at::detail::make_tensor<KeyedTensorImpl>(raw); }

std::string result(const std::string& kernel, c10::DispatchKeySet ks) {
  return kernel + "@" + std::to_string(ks.raw_repr());
}
torch::CppFunction typedKernel(const std::string& name) {
  return torch::CppFunction([name](c10::DispatchKeySet ks, const at::Tensor&, const c10::optional<at::Tensor>&,
                                   int64_t) { return result(name, ks); })
      .debug(name);
}
struct Boxed final : c10::OperatorKernel {
  explicit Boxed(std::string n) : name(std::move(n)) {}
  void operator()(const c10::OperatorHandle&, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
    stack->erase(stack->end() - static_cast<std::ptrdiff_t>(std::min<size_t>(3, stack->size())), stack->end());
    stack->emplace_back(result(name, ks));
  }
  std::string name;
};
torch::CppFunction boxedKernel(const std::string& name) {
  return torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Boxed>(name)).debug(name);
}
torch::CppFunction fallthrough(const std::string& name) { return torch::CppFunction::makeFallthrough().debug(name); }

// Registrations that succeeded, in order (a drop picks one by index, as the fuzzer did).
struct Registration {
  std::unique_ptr<torch::Library> library;
  std::unique_ptr<c10::RegistrationHandleRAII> handle;
};
std::vector<Registration> registrations;
std::vector<std::shared_ptr<void>> guards;

template <class F>
void attempt(const char* what, F&& f) {
  try {
    registrations.push_back(f());
    std::cout << what << ": ok\n";
  } catch (const c10::Error& e) {
    std::cout << what << ": error: " << e.what_without_backtrace() << "\n";
  }
}
Registration library(torch::Library::Kind kind, const char* ns, c10::optional<c10::DispatchKey> key) {
  return {std::make_unique<torch::Library>(kind, ns, key, __FILE__, __LINE__), nullptr};
}

void call(const char* what, const char* op, bool boxed, bool redispatch, uint64_t self, bool has_other,
          uint64_t other) {
  auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(op, ""));
  if (!handle) {
    std::cout << what << ": no operator\n";
    return;
  }
  const c10::optional<at::Tensor> o = has_other ? c10::optional<at::Tensor>(tensor(other)) : c10::nullopt;
  try {
    if (boxed) {
      torch::jit::Stack stack{tensor(self), o ? c10::IValue(*o) : c10::IValue(), c10::IValue(int64_t{7})};
      handle->callBoxed(&stack);
      std::cout << what << ": " << stack.back().toStringRef() << "\n";
      return;
    }
    auto typed = handle->typed<std::string(const at::Tensor&, const c10::optional<at::Tensor>&, int64_t)>();
    std::cout << what << ": "
              << (redispatch ? typed.redispatch(c10::DispatchKeySet(c10::DispatchKeySet::RAW, self), tensor(self), o, 7)
                             : typed.call(tensor(self), o, 7))
              << "\n";
  } catch (const c10::Error& e) {
    std::string message = e.what_without_backtrace();
    std::cout << what << ": error: " << message.substr(0, message.find('\n')) << "\n";
  }
}

// c10's own consistency check on every operator of the program's namespace.
bool invariantsHold(const char* after) {
  for (int i = 0; i < 4; ++i) {
    auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName("repro::op" + std::to_string(i), ""));
    if (!handle) continue;
    try {
      handle->checkInvariants();
    } catch (const c10::Error& e) {
      std::cout << "checkInvariants FAILED after " << after << " on repro::op" << i << ":\n"
                << e.what_without_backtrace() << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  std::vector<std::pair<uint64_t, uint64_t>> tls_stack;  // the keys before each live guard
)";

// The key as the program names it: the enum's keys and NamedKey's keys alike by c10's name.
std::string keyExpr(const Action& a) {
  if (a.named) return "c10::DispatchKey::" + a.named->key;
  if (!a.key) return "c10::nullopt";
  return "c10::DispatchKey::" + oracle::keyName(*a.key);
}

std::string kernelExpr(ActionKind kind, const std::string& name) {
  if (oracle::isFallthrough(kind)) return "fallthrough(\"" + name + "\")";
  return (kind == ActionKind::ImplTyped ? "typedKernel(\"" : "boxedKernel(\"") + name + "\")";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\\\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

std::string libtorchProgram(const std::vector<Action>& actions, const std::string& origin) {
  std::ostringstream out;
  out << "// Reproduces a c10 (libtorch 1.13.1) dispatcher bug found by c10_registration_fuzzer.\n"
      << "// " << origin << "\n"
      << "// Build: g++ -std=c++17 repro.cpp -I/usr/include/torch/csrc/api/include -ltorch_cpu -lc10\n"
      << "// Exit status 1: checkInvariants failed or a guard left the thread-local keys changed.\n"
      << "//\n// The actions:\n";
  for (size_t i = 0; i < actions.size(); ++i) out << "//   " << i << ": " << oracle::describe(actions[i]) << "\n";
  out << "\n" << kPrologue;
  int next_kernel = 0;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action& a = actions[i];
    const std::string what = quoted(std::to_string(i) + ": " + oracle::describe(a));
    const std::string op = "repro::op" + std::to_string(a.op);
    // A NamedKey action is the registration it makes, on a key spelled by name.
    const ActionKind kind = a.named ? a.named->registration : a.kind;
    const std::string name = (oracle::isImpl(kind) ? "k" : "fb") + std::to_string(next_kernel);
    if (oracle::isRegistration(kind)) ++next_kernel;
    switch (kind) {
      case ActionKind::Def:
        out << "  attempt(" << what << ", [] { auto r = library(torch::Library::FRAGMENT, \"repro\", c10::nullopt);\n"
            << "    r.library->def(" << quoted(op + oracle::opSchema(a.op).substr(oracle::opName(a.op).size()))
            << "); return r; });\n";
        break;
      case ActionKind::ImplTyped:
      case ActionKind::ImplBoxed:
      case ActionKind::ImplFallthrough:
        out << "  attempt(" << what << ", [] { auto r = library(torch::Library::IMPL, \"repro\", " << keyExpr(a)
            << ");\n    r.library->impl(\"op" << a.op << "\", " << kernelExpr(kind, name) << "); return r; });\n";
        break;
      case ActionKind::FallbackLibrary:
      case ActionKind::FallthroughLibrary:
        out << "  attempt(" << what << ", [] { auto r = library(torch::Library::IMPL, \"_\", " << keyExpr(a)
            << ");\n    r.library->fallback(" << kernelExpr(kind, name) << "); return r; });\n";
        break;
      case ActionKind::FallbackDirect:
      case ActionKind::FallthroughDirect:
        out << "  attempt(" << what << ", [] { return Registration{nullptr, std::make_unique<c10::RegistrationHandleRAII>(\n"
            << "    c10::Dispatcher::singleton().registerFallback(" << keyExpr(a) << ", "
            << (oracle::isFallthrough(kind) ? "c10::KernelFunction::makeFallthrough()"
                                              : "c10::KernelFunction::makeFromBoxedFunctor(std::make_unique<Boxed>(\"" + name + "\"))")
            << ", \"" << name << "\"))}; });\n";
        break;
      case ActionKind::Drop:
        out << "  if (!registrations.empty()) {  // " << oracle::describe(a) << "\n"
            << "    auto& r = registrations[" << a.handle << " % registrations.size()];\n"
            << "    r.library.reset();\n    r.handle.reset();\n  }\n";
        break;
      case ActionKind::IncludeKeys:
      case ActionKind::ExcludeKeys: {
        const char* guard = a.kind == ActionKind::IncludeKeys ? "IncludeDispatchKeyGuard" : "ExcludeDispatchKeyGuard";
        out << "  {  // " << oracle::describe(a) << "\n"
            << "    auto tls = c10::impl::tls_local_dispatch_key_set();\n"
            << "    tls_stack.emplace_back(tls.included_.raw_repr(), tls.excluded_.raw_repr());\n"
            << "    guards.push_back(std::make_shared<c10::impl::" << guard
            << ">(c10::DispatchKeySet(c10::DispatchKeySet::RAW, " << oracle::hex(a.keys) << "ull)));\n  }\n";
        break;
      }
      case ActionKind::PopGuard:
        out << "  if (!guards.empty()) {  // " << oracle::describe(a) << "\n"
            << "    guards.pop_back();\n    auto tls = c10::impl::tls_local_dispatch_key_set();\n"
            << "    if (tls.included_.raw_repr() != tls_stack.back().first ||\n"
            << "        tls.excluded_.raw_repr() != tls_stack.back().second) {\n"
            << "      std::cout << \"guard FAILED to restore the thread-local keys: included \" << tls.included_.raw_repr()\n"
            << "                << \" (was \" << tls_stack.back().first << \"), excluded \" << tls.excluded_.raw_repr()\n"
            << "                << \" (was \" << tls_stack.back().second << \")\\n\";\n      return 1;\n    }\n"
            << "    tls_stack.pop_back();\n  }\n";
        break;
      case ActionKind::CallTyped:
      case ActionKind::CallBoxed:
      case ActionKind::Redispatch:
        out << "  call(" << what << ", \"" << op << "\", " << (a.kind == ActionKind::CallBoxed ? "true" : "false")
            << ", " << (a.kind == ActionKind::Redispatch ? "true" : "false") << ", " << oracle::hex(a.keys) << "ull, "
            << (a.other ? "true" : "false") << ", " << oracle::hex(a.other.value_or(0)) << "ull);\n";
        break;
      default:
        out << "  // not replayed: " << oracle::describe(a) << "\n";
        break;
    }
    if (oracle::isRegistration(kind) || kind == ActionKind::Drop) {
      out << "  if (!invariantsHold(" << what << ")) return 1;\n";
    }
  }
  out << "  std::cout << \"no invariant failure\\n\";\n  return 0;\n}\n";
  return out.str();
}

}  // namespace dispatch::fuzz::c10
