#pragma once
// Private to oracle/actions: the text and C++ of declared-schema actions (action.cpp hands them over).

#include <string>
#include <vector>

namespace dispatch::oracle {

// Declared, not included: action.cpp includes this header, and action.h is its own.
struct Action;

// True for the actions only declared-schema traces make, or that carry their fields.
bool isDeclaredAction(const Action& a);
std::string describeDeclaredAction(const Action& a, const std::vector<std::string>& op_labels);
std::string declaredActionToCpp(const Action& a);

}  // namespace dispatch::oracle
