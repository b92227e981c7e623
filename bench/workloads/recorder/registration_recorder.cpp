// Records every registration libtorch makes into c10's dispatcher, in call order, loaded with
// LD_PRELOAD into a program that links libtorch (bench/workloads/record.sh builds and runs it).
//
// It defines c10::Dispatcher::registerDef / registerImpl / registerFallback / registerLibrary /
// registerName with the exact signatures of the headers it is compiled against, so the preloaded
// definitions replace the ones libtorch_cpu calls through its PLT (as fuzz/c10/fixes does for
// OperatorEntry). Each one writes a row, times the real call (found with dlsym(RTLD_NEXT) under
// its own mangled name, so no release's mangling is written here) and returns its result.
//
// Output: a TSV streamed to $DISPATCH_RECORD_REGISTRATIONS (columns in kColumns). Without the
// variable, or if the file cannot be opened or written, one line on stderr says so. At exit, a
// line on stderr gives the rows written and the real calls' net heap growth (malloc's bytes in use
// after each call minus before it, summed: c10's memory for the set, bench/workload_c10.sh).
#include <ATen/core/dispatch/Dispatcher.h>

#include <dlfcn.h>
#include <malloc.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace {

constexpr const char* kColumns =
    "seq\tcall\treal_call_ns\toperator\toverload\tkey\tkind\tunboxed\tcpp_signature\tschema\tdebug";
constexpr const char* kEnvVar = "DISPATCH_RECORD_REGISTRATIONS";

// State lives on the heap and is never freed: libtorch's static initialisers call us before this
// object's own initialisers may have run, and its static destructors may run after ours.
struct Recorder {
  std::mutex mutex;
  std::FILE* out = nullptr;
  std::string path;
  long rows = 0;
  long long heap_growth = 0;  // bytes, summed over the real calls
  bool failed = false;
};

void finish();

Recorder& recorder() {
  static Recorder* r = [] {
    auto* fresh = new Recorder;
    const char* path = std::getenv(kEnvVar);
    if (path == nullptr || *path == '\0') {
      std::fprintf(stderr, "registration_recorder: %s is not set; recording nothing\n", kEnvVar);
      fresh->failed = true;
      return fresh;
    }
    fresh->path = path;
    fresh->out = std::fopen(path, "w");
    if (fresh->out == nullptr) {
      std::fprintf(stderr, "registration_recorder: cannot open %s for writing: %s\n", path, std::strerror(errno));
      fresh->failed = true;
      return fresh;
    }
    std::fprintf(fresh->out, "%s\n", kColumns);
    std::atexit(finish);
    return fresh;
  }();
  return *r;
}

void finish() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.out == nullptr) return;
  const bool write_error = std::ferror(r.out) != 0;
  const bool close_error = std::fclose(r.out) != 0;
  r.out = nullptr;
  if (write_error || close_error) {
    std::fprintf(stderr, "registration_recorder: writing %s failed: %s\n", r.path.c_str(), std::strerror(errno));
  } else if (r.rows == 0) {
    std::fprintf(stderr, "registration_recorder: no registration reached the recorder; %s is empty\n", r.path.c_str());
  } else {
    std::fprintf(stderr, "registration_recorder: %ld registrations written to %s; heap growth in the real calls: %lld bytes\n",
                 r.rows, r.path.c_str(), r.heap_growth);
  }
}

// Tabs and newlines would break the row; none are expected in schemas or debug strings.
std::string field(std::string text) {
  if (text.empty()) return "-";
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return text;
}

struct Row {
  const char* call;
  std::string op = "-", overload = "-", key = "-", kind = "-", unboxed = "-", cpp_signature = "-";
  std::string schema = "-", debug = "-";
};

void write(const Row& row, long long ns) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.out == nullptr) return;
  std::fprintf(r.out, "%ld\t%s\t%lld\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.rows, row.call, ns, row.op.c_str(),
               row.overload.c_str(), row.key.c_str(), row.kind.c_str(), row.unboxed.c_str(),
               row.cpp_signature.c_str(), row.schema.c_str(), row.debug.c_str());
  ++r.rows;
}

// The boxed stand-ins c10 registers for "no real kernel here"; makeNamedNotSupported exists in
// 1.x only, hence the overloads.
template <class KF>
auto isNamedNotSupported(const KF& kernel, int) -> decltype(KF::makeNamedNotSupported(), bool()) {
  return kernel._equalsBoxedAndUnboxed(KF::makeNamedNotSupported());
}
template <class KF>
bool isNamedNotSupported(const KF&, long) {
  return false;
}

void describeKernel(const c10::KernelFunction& kernel, const c10::optional<c10::impl::CppSignature>& signature,
                    Row& row) {
  if (kernel.isFallthrough()) {
    row.kind = "fallthrough";
  } else if (kernel._equalsBoxedAndUnboxed(c10::KernelFunction::makeAmbiguousAutogradOther())) {
    row.kind = "ambiguous_autogradother";
  } else if (isNamedNotSupported(kernel, 0)) {
    row.kind = "named_not_supported";
  } else if (signature.has_value()) {
    row.kind = "typed";
  } else {
    row.kind = kernel.isValid() ? "boxed" : "invalid";
  }
  row.unboxed = kernel.isValidUnboxed() ? "yes" : "no";
  if (signature.has_value()) row.cpp_signature = field(signature->name());
}

std::string schemaText(const c10::FunctionSchema& schema) {
  std::ostringstream text;
  text << schema;
  return field(text.str());
}

// The real member function behind `ours`: the next definition of the symbol ours is exported as.
template <class MemberFn>
void* realFunction(MemberFn ours, const char* what) {
  // A pointer to a non-virtual member holds the function's address first (Itanium C++ ABI 2.3).
  void* address = nullptr;
  static_assert(sizeof(ours) >= sizeof(address));
  std::memcpy(&address, &ours, sizeof(address));
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_sname == nullptr) {
    std::fprintf(stderr, "registration_recorder: cannot name the symbol of %s\n", what);
    std::abort();
  }
  void* real = dlsym(RTLD_NEXT, info.dli_sname);
  if (real == nullptr || real == address) {
    std::fprintf(stderr, "registration_recorder: no libtorch definition of %s (%s)\n", what, info.dli_sname);
    std::abort();
  }
  return real;
}

// malloc's bytes in use, mmapped blocks included.
long long heapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<long long>(info.uordblks + info.hblkhd);
}

// Calls the real member as a function taking `this` first (Itanium ABI), timing it and counting
// the heap it keeps (outside the timed region).
template <class Result, class... Args>
Result timedCall(void* real, long long& ns, c10::Dispatcher* self, Args&&... args) {
  using Fn = Result (*)(c10::Dispatcher*, std::decay_t<Args>...);
  const long long heap_before = heapInUse();
  const auto start = std::chrono::steady_clock::now();
  Result result = reinterpret_cast<Fn>(real)(self, std::forward<Args>(args)...);
  ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  const long long growth = heapInUse() - heap_before;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.heap_growth += growth;
  return result;
}

}  // namespace

namespace c10 {

RegistrationHandleRAII Dispatcher::registerDef(FunctionSchema schema, std::string debug, std::vector<at::Tag> tags) {
  static void* real = realFunction(&Dispatcher::registerDef, "c10::Dispatcher::registerDef");
  Row row{"def"};
  row.op = field(schema.name());
  row.overload = field(schema.overload_name());
  row.schema = schemaText(schema);
  row.debug = field(debug);
  long long ns = 0;
  auto handle = timedCall<RegistrationHandleRAII>(real, ns, this, std::move(schema), std::move(debug), std::move(tags));
  write(row, ns);
  return handle;
}

RegistrationHandleRAII Dispatcher::registerImpl(OperatorName op_name, c10::optional<DispatchKey> dispatch_key,
                                                KernelFunction kernel,
                                                c10::optional<impl::CppSignature> cpp_signature,
                                                std::unique_ptr<FunctionSchema> inferred_function_schema,
                                                std::string debug) {
  static void* real = realFunction(&Dispatcher::registerImpl, "c10::Dispatcher::registerImpl");
  Row row{"impl"};
  row.op = field(op_name.name);
  row.overload = field(op_name.overload_name);
  row.key = dispatch_key.has_value() ? std::string(toString(*dispatch_key)) : "catch-all";
  describeKernel(kernel, cpp_signature, row);
  // The schema a typed kernel's C++ signature implies, when c10 could infer one.
  if (inferred_function_schema != nullptr) row.schema = schemaText(*inferred_function_schema);
  row.debug = field(debug);
  long long ns = 0;
  auto handle = timedCall<RegistrationHandleRAII>(real, ns, this, std::move(op_name), std::move(dispatch_key),
                                                  std::move(kernel), std::move(cpp_signature),
                                                  std::move(inferred_function_schema), std::move(debug));
  write(row, ns);
  return handle;
}

RegistrationHandleRAII Dispatcher::registerFallback(DispatchKey dispatch_key, KernelFunction kernel, std::string debug) {
  static void* real = realFunction(&Dispatcher::registerFallback, "c10::Dispatcher::registerFallback");
  Row row{"fallback"};
  row.key = toString(dispatch_key);
  describeKernel(kernel, c10::nullopt, row);
  row.debug = field(debug);
  long long ns = 0;
  auto handle = timedCall<RegistrationHandleRAII>(real, ns, this, std::move(dispatch_key), std::move(kernel),
                                                  std::move(debug));
  write(row, ns);
  return handle;
}

// TORCH_LIBRARY's claim on a namespace: no kernel, but part of the load's registration work.
RegistrationHandleRAII Dispatcher::registerLibrary(std::string ns, std::string debug) {
  static void* real = realFunction(&Dispatcher::registerLibrary, "c10::Dispatcher::registerLibrary");
  Row row{"library"};
  row.op = field(ns);
  row.debug = field(debug);
  long long elapsed = 0;
  auto handle = timedCall<RegistrationHandleRAII>(real, elapsed, this, std::move(ns), std::move(debug));
  write(row, elapsed);
  return handle;
}

// A name with neither schema nor kernel (Library::impl before its def, pybind-side names).
RegistrationHandleRAII Dispatcher::registerName(OperatorName op_name) {
  static void* real = realFunction(&Dispatcher::registerName, "c10::Dispatcher::registerName");
  Row row{"name"};
  row.op = field(op_name.name);
  row.overload = field(op_name.overload_name);
  long long ns = 0;
  auto handle = timedCall<RegistrationHandleRAII>(real, ns, this, std::move(op_name));
  write(row, ns);
  return handle;
}

}  // namespace c10
