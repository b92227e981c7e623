#include "dispatch/function_traits.h"

#include <cstdlib>
#include <memory>
#include <ostream>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define DISPATCH_HAVE_CXXABI 1
#endif

#include "dispatch/errors.h"

namespace dispatch {

namespace {
// Readable type names for mismatch messages; the mangled name if demangling is unavailable.
std::string demangle(const char* mangled) {
#ifdef DISPATCH_HAVE_CXXABI
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  if (status == 0 && out) return out.get();
#endif
  return mangled;
}
}  // namespace

std::string CppSignature::name() const { return demangle(type_.name()); }

std::ostream& operator<<(std::ostream& out, const CppSignature& sig) { return out << sig.name(); }

namespace detail {

void throwTooFewArgs(std::string_view op_name, size_t expected, const Stack& stack) {
  throw BoxedCallError(concat(op_name, ": expected ", expected,
                              " arguments on the stack, but it holds only ", stack.size(),
                              " values: ", stack));
}

void throwArgKindMismatch(std::string_view op_name, size_t index, size_t count, const Value& v,
                          ArgType expected) {
  if (count == 0) {
    throw BoxedCallError(concat(op_name, ": the return value must be ", expected,
                                ", but the kernel returned a Value of kind ", v.tag(), ": ", v));
  }
  throw BoxedCallError(concat(op_name, ": argument ", index, " (of ", count, ") must be ",
                              expected, ", but the stack holds a Value of kind ", v.tag(), ": ",
                              v));
}

void throwReturnMismatch(std::string_view op_name, size_t expected, const Stack& stack) {
  throw BoxedCallError(concat(op_name, ": expected the kernel to leave exactly ", expected,
                              expected == 1 ? " return value" : " return values",
                              " on the stack, but it holds ", stack.size(), ": ", stack));
}

}  // namespace detail
}  // namespace dispatch
