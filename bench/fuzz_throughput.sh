#!/usr/bin/env bash
# The harness throughput table: every fuzz target, executions per second starting from the
# committed corpus (fuzz/corpus/<target>), FUZZ_SECONDS each (default 30). Every binary checks
# each input on a dispatcher of every declared flavour (cmake/flavours.list), so one row per
# target covers every flavour; the flavour column names them.
#   libFuzzer  build/full-fuzz/fuzz/<target>: ASan + UBSan + hardened + libFuzzer, one
#              process, -print_final_stats=1 (stat::average_exec_per_sec);
#   release    build/full-release/fuzz/<target>: the replay main with the same checks at -O2,
#              the corpus replayed over and over for the same time (inputs/s), REPLAY_REPEAT
#              (default 10) passes over it per process, so process start-up is not what is timed;
#   before     only with THROUGHPUT_BEFORE_DIR=<dir> holding older libFuzzer binaries of the full
#              flavour (same names): run right before the current one, so the ratio compares
#              like with like on a shared machine; THROUGHPUT_BEFORE_RELEASE_DIR=<dir> likewise
#              for the release replay binaries (the release cell then reads "after (before N)").
#              THROUGHPUT_BEFORE_OPTIONS=<dir> runs the before binaries with the .options files
#              of that folder (the older tree's fuzz/options, its dictionaries/ beside it), so the
#              ratio includes changed libFuzzer flags; by default both use this tree's.
# THROUGHPUT_TARGETS="a b" limits the rows to those targets.
# Every libFuzzer run uses the target's fuzz/options flags (max_len, dict, timeout, ...) from this
# tree (the before binary too, unless THROUGHPUT_BEFORE_OPTIONS names others). Each row shows the 1-minute load
# average when it started; on a shared machine wall-clock exec/s follow the load, so each
# libFuzzer cell also gives executions per CPU-second of the process (user + system time),
# which does not. A missing build, a run that exits with an error or reports a bug, or a replay
# that finds no input is a cell saying so, never a number.
#
#   bench/fuzz_throughput.sh              (bench/run.sh calls it for its last section)
#   FUZZ_SECONDS=20 THROUGHPUT_BEFORE_DIR=build/before bench/fuzz_throughput.sh
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-30}
BEFORE=${THROUGHPUT_BEFORE_DIR:-}
TARGETS=${THROUGHPUT_TARGETS:-registration_fuzzer fallback_fuzzer boxed_call_fuzzer keyset_fuzzer table_index_fuzzer}
BEFORE_RELEASE=${THROUGHPUT_BEFORE_RELEASE_DIR:-}
BEFORE_OPTIONS=${THROUGHPUT_BEFORE_OPTIONS:-}
REPEAT=${REPLAY_REPEAT:-10}
TMP=$(mktemp -d -t dispatch-throughput.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}

# shellcheck source=bench/fuzz_options.sh
source "$ROOT/bench/fuzz_options.sh" || { echo "fuzz_throughput.sh: bench/fuzz_options.sh missing" >&2; exit 1; }
# shellcheck source=bench/libfuzzer_rate.sh
source "$ROOT/bench/libfuzzer_rate.sh" || { echo "fuzz_throughput.sh: bench/libfuzzer_rate.sh missing" >&2; exit 1; }
if [[ -n $BEFORE_OPTIONS && ! -d $BEFORE_OPTIONS ]]; then
  echo "fuzz_throughput.sh: THROUGHPUT_BEFORE_OPTIONS=$BEFORE_OPTIONS is not a folder" >&2; exit 1
fi

# Replay-main inputs/s of binary $1: the corpus of target $2 again and again for SECONDS_EACH,
# REPEAT passes per process.
replay_rate() {
  local bin=$1 target=$2 inputs=0 start now line n dirs=()
  for ((i = 0; i < REPEAT; ++i)); do dirs+=("$ROOT/fuzz/corpus/$target"); done
  start=$(date +%s.%N)
  while :; do
    line=$("$bin" "${dirs[@]}" 2>&1 | grep -m1 '^Executed ') || { echo "failed"; return; }
    n=$(sed -E 's/Executed ([0-9]+) inputs.*/\1/' <<<"$line")
    [[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || { echo "failed (no inputs replayed)"; return; }
    inputs=$((inputs + n))
    now=$(date +%s.%N)
    if awk -v s="$start" -v n="$now" -v t="$SECONDS_EACH" 'BEGIN { exit !(n - s >= t) }'; then break; fi
  done
  awk -v i="$inputs" -v s="$start" -v n="$now" 'BEGIN { printf "%.0f", i / (n - s) }'
}

load() { cut -d' ' -f1 /proc/loadavg; }

echo "| fuzz target | flavour | libFuzzer exec/s (fuzz preset) | before exec/s | after/before (per CPU-s) | release inputs/s | load |"
echo "|---|---|---:|---:|---:|---:|---:|"
FLAVOURS=$(declared_flavours | paste -sd, - | sed 's/,/, /g')
[[ -n $FLAVOURS ]] || { echo "fuzz_throughput.sh: no flavour in cmake/flavours.list" >&2; exit 1; }
flavour=full  # the preset whose binaries are timed (build/full-fuzz, build/full-release)
for target in $TARGETS; do
  row_load=$(load)
  before="-"; ratio="-"
  if [[ -n $BEFORE ]]; then
    if [[ -x $BEFORE/$target ]]; then before=$(libfuzzer_rate "$BEFORE/$target" "$target" "$BEFORE_OPTIONS")
    else before="(no $BEFORE/$target)"; fi
  fi
  fuzz_bin=$ROOT/build/$flavour-fuzz/fuzz/$target
  if [[ -x $fuzz_bin ]]; then after=$(libfuzzer_rate "$fuzz_bin" "$target")
  else after="(no build/$flavour-fuzz/fuzz/$target)"; fi
  # The ratio compares the CPU-normalised rates (the number in parentheses).
  b_cpu=$(sed -nE 's/.*\(([0-9]+)\/CPU-s\)/\1/p' <<<"$before"); a_cpu=$(sed -nE 's/.*\(([0-9]+)\/CPU-s\)/\1/p' <<<"$after")
  if [[ -n $b_cpu && -n $a_cpu && $b_cpu -gt 0 ]]; then
    ratio=$(awk -v a="$a_cpu" -v b="$b_cpu" 'BEGIN { printf "%.1fx", a / b }')
  fi
  release_bin=$ROOT/build/$flavour-release/fuzz/$target
  if [[ -x $release_bin ]]; then release=$(replay_rate "$release_bin" "$target")
  else release="(no build/$flavour-release/fuzz/$target)"; fi
  if [[ -n $BEFORE_RELEASE ]]; then
    if [[ -x $BEFORE_RELEASE/$target ]]; then release="$release (before $(replay_rate "$BEFORE_RELEASE/$target" "$target"))"
    else release="$release (no $BEFORE_RELEASE/$target)"; fi
  fi
  echo "| $target | $FLAVOURS | $after | $before | $ratio | $release | $row_load |"
done
echo
echo "Each cell: ${SECONDS_EACH} s from fuzz/corpus/<target>, binaries of build/full-fuzz and"
echo "build/full-release. Every binary checks each input on a dispatcher of every flavour listed"
echo "(table_index_fuzzer: every layout's table; keyset_fuzzer's key sets are the same in every build)."
