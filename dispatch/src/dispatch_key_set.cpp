#include "dispatch/dispatch_key_set.h"

#include <ostream>

namespace dispatch {

std::string toString(DispatchKeySet ks) {
  std::string out = "DispatchKeySet(";
  std::string_view sep;
  for (DispatchKey k : ks) {
    out.append(sep).append(toString(k));
    sep = ", ";
  }
  out += ')';
  return out;
}

std::ostream& operator<<(std::ostream& out, DispatchKeySet ks) { return out << toString(ks); }

}  // namespace dispatch
