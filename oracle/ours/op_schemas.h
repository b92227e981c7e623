#pragma once
// The fz operators' schemas as the library parses them, once per process: every def of
// operator i registers the same schema.

#include <vector>

#include "dispatch/schema.h"
#include "oracle/actions/action.h"

namespace dispatch::oracle {

inline const FunctionSchema& parsedOpSchema(int op) {
  static const std::vector<FunctionSchema> schemas = [] {
    std::vector<FunctionSchema> parsed;
    for (int i = 0; i < kNumOps; ++i) parsed.push_back(parseSchema(opSchema(i)));
    return parsed;
  }();
  return schemas.at(static_cast<size_t>(op));
}

}  // namespace dispatch::oracle
