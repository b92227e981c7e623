#pragma once
// Everything a user of the dispatcher needs.

#include "dispatch/dispatch_key.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/flavours.h"
#include "dispatch/key_sets.h"
#include "dispatch/library.h"
#include "dispatch/local_dispatch_key_set.h"
#include "dispatch/tensor.h"
#include "dispatch/value.h"
