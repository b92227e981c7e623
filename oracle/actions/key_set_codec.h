#pragma once
// Private to oracle/actions: the byte layout of key-set actions' fields (after the kind byte), read
// with FuzzedDataProvider and written with FdpWriter. action_codec.cpp dispatches to it.

#include <fuzzer/FuzzedDataProvider.h>

#include "oracle/actions/action.h"
#include "oracle/actions/fdp_writer.h"

namespace dispatch::oracle {

KeySetRecipe consumeKeySetRecipe(FuzzedDataProvider& in);
void writeKeySetRecipe(FdpWriter& out, const KeySetRecipe& recipe);

// The fields of a key-set action of kind a.kind (already set).
void consumeKeySetFields(FuzzedDataProvider& in, Action& a);
void writeKeySetFields(FdpWriter& out, const Action& a);

}  // namespace dispatch::oracle
