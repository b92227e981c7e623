#pragma once
// dispatch::model -- a deliberately simple, obviously-correct REFERENCE MODEL of PyTorch 1.13.1's
// operator dispatcher, used as an oracle by the RapidCheck properties and the libFuzzer targets
// that test the fast re-implementation in dispatch/.
//
// It re-states docs/semantics.md (the spec) independently: it shares
// nothing with dispatch/ but the public enums DispatchKey / BackendComponent and their names
// (dispatch/dispatch_key.h). Key sets are plain sets of functionalities and backends, kernel
// registrations are stacks per key, fallbacks are a map slot -> fallback, the mobile slot map is
// a list, and the precedence of docs/semantics.md §4.4 is written out step by step. The one cache: an
// operator's computed row is kept until that operator's registrations change (then forgotten and
// recomputed from scratch); a fallback change recomputes the entries of the slots it changed in
// every kept row (an entry reads the fallbacks only through its own slot); everything else is recomputed from the
// registrations on every question, so it is slow and order-independent.
//
//   model_key_set.h    keys, KeySet, predefined sets, alias resolution, tableIndex (docs/semantics.md §1-3, 6.2)
//   model_dispatcher.h ModelDispatcher: def/impl/fallback/drop, computedEntry, dumpComputedTable,
//                      call/redispatch (docs/semantics.md §4-6)
//
// Decisions (where the spec leaves room, the model picks the 1.13.1 behaviour the spec
// describes, or the nearest sane definition; properties may rely on each of these):
//
//  D1  A new ModelDispatcher has no fallbacks. registerStartupFallbacks() adds the 1.13 start-up
//      set of docs/semantics.md §5.3 with model-chosen debug names ("<Key>_fallthrough", "<Key>_fallback").
//  D2  Table entries are always the recomputation of docs/semantics.md §4.4 (the spec's deliberate difference
//      from 1.13.1); the stale-entry order-dependence of docs/semantics.md §4.5 is not modelled.
//  D3  KeySet::has(k) is false for keys whose single-key set is empty (Undefined, the 5 aliases,
//      values outside the enum). c10 asserts in debug builds / answers vacuously true.
//  D4  Raw bits 54..63 (functionality values 41..50) are kept as "unknown functionality values":
//      they round-trip through raw and take part in |, &, ^, - and remove(EndOfFunctionalityKeys);
//      runtimeKeys() ignores them; highestFunctionalityKey/highestPriorityTypeId return the
//      literal c10 value static_cast<DispatchKey>(v) (e.g. EndOfFunctionalityKeys); tableIndex is
//      -1 in BOTH flavours (c10 reads out of bounds on full and would switch on a garbage key on
//      mobile). Call masking removes them (the mask is derived from FULL); redispatch keeps them.
//  D5  tableIndex(EndOfFunctionalityKeys) == -1 (c10: undefined behaviour, docs/semantics.md §3.5).
//  D6  impl(): the key must be an alias or a runtime key; Undefined (also spelled CatchAll),
//      building blocks (Dense, ...), placeholders, the sentinel and out-of-range values are
//      InvalidKey. The catch-all is spelled std::nullopt only (torch::dispatch(CatchAll, f) would
//      also mean catch-all in c10). Fallthrough impls are accepted on any such key, aliases
//      included (the entry then has kind Fallthrough and the alias's tag).
//  D7  fallbackDirect(): only runtime keys; Undefined, building blocks, placeholders, the sentinel
//      and out-of-range values are InvalidKey (c10 would register at whatever index they map to).
//  D8  runtimeKeysOfAlias / fallbackLibrary expansion: an alias -> its runtime keys, a runtime key
//      -> itself, Undefined / building block / placeholder / sentinel -> nothing. A library
//      fallback that expands (after skipping index < 0) to nothing succeeds and returns an id
//      owning no slot. Out-of-range values are InvalidKey.
//  D9  Registration ids are 1, 2, 3, ... in order of successful registration, never reused; a
//      failed call consumes no id and changes nothing.
//  D10 An operator exists while it has a live def or impl. Operators with impls but no def
//      ("dangling impls") can be called (the model calls by name; c10's findSchemaOrThrow
//      would refuse them). Only a non-existent operator gives NotFound.
//  D11 computedEntry(op, k) is defined for Undefined and runtime keys; any other k gives
//      {Missing, "", "not a runtime key"}. For an operator that does not exist it computes as for
//      an operator without kernels (fallbacks still apply).
//  D12 Error keys of a call: NotImplemented names highestPriorityTypeId(final) (the placeholder
//      "Unknown" etc. when a per-backend functionality has no backend); when that is Undefined
//      (no functionality at all, e.g. empty or backend bits only) a Missing entry gives the
//      "no tensor arguments" variant with key Undefined. Ambiguous -> AmbiguousAutogradOther
//      with key AutogradOther.
//  D13 Reaching a Fallthrough entry at lookup is NotImplemented "fallthrough kernel called"
//      (c10: internal assert), keyed like D12.
//  D14 The fallthrough mask of a call is judged at getBackendIndex(ARGUMENT set), before TLS
//      (1.13 quirk, docs/semantics.md §4.9 / #141581); no backend -> index 0 (CPU). Plain functionalities use
//      their own entry; keys with index < 0 in the flavour are never masked.
//  D15 A trimmed flavour indexes by highestPriorityTypeId, so a per-backend functionality without
//      backend (type id "Unknown", "AutogradUnknown", ...) is -1 there while full uses the CPU slot.
//  D16 def(op, num_args) records num_args only: impls carry no inferred schema and C++ signatures
//      are not modelled, so schema / signature mismatch errors never occur. Overriding a kernel
//      is not an error (a warning in c10).
//  D17 KeySet::fullAfter follows the literal formula, incl. the Undefined/alias quirk (backends
//      1..13 only, plus PythonDispatcher).
//  D18 Out-of-range DispatchKey values in KeySet::of give the empty set (as c10's constructor).

#include "oracle/model/model_dispatcher.h"
#include "oracle/model/model_key_set.h"
