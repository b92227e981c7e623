#include "dispatch/dispatch_key_set.h"

#include <ostream>
#include <sstream>

namespace dispatch {

std::string toString(DispatchKeySet ks) {
  std::ostringstream out;
  out << ks;
  return out.str();
}

std::ostream& operator<<(std::ostream& out, DispatchKeySet ks) {
  out << "DispatchKeySet(";
  bool first = true;
  for (DispatchKey k : ks) {
    if (!first) out << ", ";
    out << k;
    first = false;
  }
  return out << ")";
}

}  // namespace dispatch
