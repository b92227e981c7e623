#pragma once
// Private to oracle/src: the text of key-set actions (action.cpp hands them over), and the C++
// spellings both kinds of action share.

#include <cstdint>
#include <string>
#include <string_view>

#include "oracle/action.h"

namespace dispatch::oracle {

std::string describeKeySetAction(const Action& a);
std::string keySetActionToCpp(const Action& a);

std::string keyCpp(DispatchKey key);  // DispatchKey::CPU, or static_cast<DispatchKey>(N)
std::string rawCpp(uint64_t raw);     // 0x1fu
std::string_view cppName(ActionKind kind);

}  // namespace dispatch::oracle
