#!/usr/bin/env bash
# Floors of the fuzz targets' throughput: what an execution costs when parts of it are taken
# away, so a throughput target can be set against what the dispatcher itself costs. Measured as
# bench/fuzz_throughput.sh measures (libFuzzer, fuzz preset of the full flavour: ASan, UBSan,
# hardened; one process; FLOOR_SECONDS each, default 20; executions per CPU-second).
#
# registration_fuzzer, fallback_fuzzer and library_fuzzer, from the committed corpus, in a build
# of a scratch copy of the tree with bench/floors/library_only.patch applied (build/floor-work/src,
# built into build/floor-work/full-fuzz; only that copy has the switches):
#   checks      / every flavour   the target as built (no switch set)
#   no oracle   / every flavour   the dispatcher alone (DISPATCH_FLOOR_ORACLE=off): the same
#                                 registrations, drops, guards and calls, no model of them,
#                                 no comparison, no invariant check
#   checks, no oracle / <flavour> each flavour of cmake/flavours.list on its own
#                                 (DISPATCH_FLOOR_FLAVOUR)
# Every target of build/full-fuzz (as built) from a single 1-byte seed with -max_len=1: the
# fixed cost of an execution (libFuzzer, the sanitizers, an input's fresh dispatchers and
# end-of-input checks) with no action to run.
# A build that fails, a patch that no longer applies, or a run that fails is a cell saying so,
# never a number.
#
#   bench/fuzz_floor.sh                     FLOOR_SECONDS=30 bench/fuzz_floor.sh
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${FLOOR_SECONDS:-20}
WORK=$ROOT/build/floor-work
PATCH=$ROOT/bench/floors/library_only.patch
TRACE_TARGETS="registration_fuzzer fallback_fuzzer library_fuzzer"   # runTraceOnAllFlavours's targets
TMP=$(mktemp -d -t dispatch-floor.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}

# shellcheck source=bench/fuzz_options.sh
source "$ROOT/bench/fuzz_options.sh" || { echo "fuzz_floor.sh: bench/fuzz_options.sh missing" >&2; exit 1; }
# shellcheck source=bench/libfuzzer_rate.sh
source "$ROOT/bench/libfuzzer_rate.sh" || { echo "fuzz_floor.sh: bench/libfuzzer_rate.sh missing" >&2; exit 1; }

FLAVOURS=$(declared_flavours)
[[ -n $FLAVOURS ]] || { echo "fuzz_floor.sh: no flavour in cmake/flavours.list" >&2; exit 1; }

# The patched copy, written as the canary job writes its trees (ci/dispatch_ci/scratch.py: the
# tracked files as they are in the working tree plus the patch, only changed files rewritten, so
# a re-run rebuilds only what changed).
build_patched() {
  PYTHONPATH=$ROOT/ci python3 - "$PATCH" "$WORK/src" >"$TMP/apply.log" 2>&1 <<'PY' || return 1
import sys
from pathlib import Path
from dispatch_ci import scratch
patch, dest = sys.argv[1], Path(sys.argv[2])
scratch.sync(scratch.apply_patch(scratch.read_tree(), Path(patch).read_text(), patch), dest)
PY
  cmake -S "$WORK/src" --preset full-fuzz -B "$WORK/full-fuzz" >"$TMP/configure.log" 2>&1 || return 1
  cmake --build "$WORK/full-fuzz" -j2 --target $TRACE_TARGETS >"$TMP/build.log" 2>&1
}

echo "| fuzz target | flavours | oracle | libFuzzer exec/s (per CPU-s) |"
echo "|---|---|---|---:|"
if build_patched; then
  for target in $TRACE_TARGETS; do
    bin=$WORK/full-fuzz/fuzz/$target
    echo "| $target | every flavour | checks | $(libfuzzer_rate "$bin" "$target") |"
    echo "| $target | every flavour | no oracle | $(DISPATCH_FLOOR_ORACLE=off libfuzzer_rate "$bin" "$target") |"
    for flavour in $FLAVOURS; do
      echo "| $target | $flavour | checks | $(DISPATCH_FLOOR_FLAVOUR=$flavour libfuzzer_rate "$bin" "$target") |"
      echo "| $target | $flavour | no oracle | $(DISPATCH_FLOOR_ORACLE=off DISPATCH_FLOOR_FLAVOUR=$flavour libfuzzer_rate "$bin" "$target") |"
    done
  done
else
  why=$(tail -q -n 3 "$TMP/apply.log" "$TMP/configure.log" "$TMP/build.log" 2>/dev/null | tr '\n' ' ' | cut -c1-160)
  echo "| ${TRACE_TARGETS// /, } | - | - | patched tree did not build or the patch does not apply ($why) |"
fi

mkdir -p "$TMP/one-byte" && printf '\0' >"$TMP/one-byte/seed"
for target in $TRACE_TARGETS boxed_call_fuzzer keyset_fuzzer table_index_fuzzer; do
  bin=$ROOT/build/full-fuzz/fuzz/$target
  if [[ -x $bin ]]; then rate=$(libfuzzer_rate "$bin" "$target" "" "$TMP/one-byte" -max_len=1)
  else rate="(no build/full-fuzz/fuzz/$target)"; fi
  echo "| $target | every flavour | checks, 1-byte inputs | $rate |"
done
echo
echo "Each cell: ${SECONDS_EACH} s, one process, -seed=1, the target's fuzz/options flags."
