#include "oracle/actions/library_block.h"

#include <sstream>

#include "oracle/actions/action.h"
#include "oracle/actions/names.h"

namespace dispatch::oracle {

namespace {
constexpr std::string_view kLibraryMacros[] = {"DISPATCH_LIBRARY", "DISPATCH_LIBRARY_IMPL", "DISPATCH_LIBRARY_FRAGMENT"};
constexpr std::string_view kLibraryKindCpp[] = {"Def", "Impl", "Fragment"};
constexpr std::string_view kLibraryBodyCpp[] = {"Nothing", "Def", "ImplTyped", "ImplBoxed", "ImplFallthrough"};
constexpr std::string_view kLibraryKernelText[] = {"", "", "typed kernel", "boxed kernel", "fallthrough"};
}  // namespace

bool isLibraryImpl(LibraryBody body) {
  return body == LibraryBody::ImplTyped || body == LibraryBody::ImplBoxed || body == LibraryBody::ImplFallthrough;
}

std::optional<DispatchKey> libraryKernelKey(const LibraryBlock& block, std::optional<DispatchKey> key) {
  if (block.kind != LibraryKind::Impl || key == DispatchKey::Undefined) return std::nullopt;
  return key;
}

std::optional<std::string> libraryBlockProblem(const LibraryBlock& b, int op) {
  if (static_cast<size_t>(b.kind) >= std::size(kLibraryMacros) || b.ns >= kNumLibraryNamespaces ||
      static_cast<size_t>(b.body) >= std::size(kLibraryBodyCpp)) {
    return "a library block with a field out of range";
  }
  if (isLibraryImpl(b.body) && !b.qualified && b.ns != kOwnNamespace) {
    return "a library block impl spells op" + std::to_string(op) + " without its namespace in namespace " +
           std::string(kLibraryNamespaces[b.ns]) + ": that names an operator outside the trace's";
  }
  return std::nullopt;
}

std::string describeLibraryBlock(const LibraryBlock& block, int op, std::optional<DispatchKey> key) {
  if (auto problem = libraryBlockProblem(block, op)) return *problem;
  std::ostringstream out;
  out << kLibraryMacros[static_cast<size_t>(block.kind)] << "(" << kLibraryNamespaces[block.ns];
  if (block.kind == LibraryKind::Impl) out << ", " << keyName(key);
  out << ") {";
  if (block.body == LibraryBody::Def) out << " m.def(" << opSchema(op) << ")";
  if (isLibraryImpl(block.body)) {
    out << " m.impl(\"" << (block.qualified ? opName(op) : "op" + std::to_string(op)) << "\", "
        << kLibraryKernelText[static_cast<size_t>(block.body)] << ")";
  }
  out << " }";
  return out.str();
}

std::string libraryBlockCpp(const LibraryBlock& b) {
  return "{dispatch::oracle::LibraryKind::" + std::string(kLibraryKindCpp[static_cast<size_t>(b.kind)]) + ", " +
         std::to_string(b.ns) + ", dispatch::oracle::LibraryBody::" +
         std::string(kLibraryBodyCpp[static_cast<size_t>(b.body)]) + ", " + (b.qualified ? "true" : "false") + "}";
}

}  // namespace dispatch::oracle
