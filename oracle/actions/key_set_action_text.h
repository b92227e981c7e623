#pragma once
// Private to oracle/actions: the text of key-set actions (action.cpp hands them over), and the C++
// spellings both kinds of action share.

#include <cstdint>
#include <string>
#include <string_view>

#include "dispatch/dispatch_key.h"

namespace dispatch::oracle {

// Declared, not included: action.cpp includes this header, and action.h is its own.
struct Action;
enum class ActionKind : uint8_t;

std::string describeKeySetAction(const Action& a);
std::string keySetActionToCpp(const Action& a);

std::string keyCpp(DispatchKey key);  // DispatchKey::CPU, or static_cast<DispatchKey>(N)
std::string rawCpp(uint64_t raw);     // 0x1fu
std::string_view cppName(ActionKind kind);

}  // namespace dispatch::oracle
