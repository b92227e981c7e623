#!/usr/bin/env bash
# The harness throughput table: every fuzz target x flavour, executions per second starting from
# the committed corpus (fuzz/corpus/<target>), FUZZ_SECONDS each (default 30):
#   libFuzzer  build/<flavour>-fuzz/fuzz/<target>: ASan + UBSan + hardened + libFuzzer, one
#              process, -print_final_stats=1 (stat::average_exec_per_sec);
#   release    build/<flavour>-release/fuzz/<target>: the replay main with the same checks at -O2,
#              the corpus replayed over and over for the same time (inputs/s);
#   before     only with THROUGHPUT_BEFORE_DIR=<dir> holding older libFuzzer binaries of the full
#              flavour (same names): run right before the current one, so the ratio compares
#              like with like on a shared machine.
# Each row shows the 1-minute load average when it started. A missing build is a cell saying
# so, never a number.
#
#   bench/fuzz_throughput.sh              (bench/run.sh calls it for its last section)
#   FUZZ_SECONDS=20 THROUGHPUT_BEFORE_DIR=build/before bench/fuzz_throughput.sh
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-30}
BEFORE=${THROUGHPUT_BEFORE_DIR:-}
TARGETS="registration_fuzzer fallback_fuzzer boxed_call_fuzzer keyset_fuzzer table_index_fuzzer"
TMP=$(mktemp -d -t dispatch-throughput.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}

# libFuzzer exec/s of binary $1 on target $2's corpus (a scratch copy: seeds are never written).
libfuzzer_rate() {
  local bin=$1 target=$2 work
  work=$(mktemp -d "$TMP/run.XXXXXX")
  mkdir -p "$work/corpus" "$work/artifacts"
  "$bin" -max_total_time="$SECONDS_EACH" -seed=1 -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
    "$ROOT/fuzz/corpus/$target" >"$work/log" 2>&1
  local rate
  rate=$(awk '/stat::average_exec_per_sec:/ {print $2}' "$work/log")
  if [[ -z $rate ]] || grep -q -e 'DISPATCH FUZZ BUG' -e '^==[0-9]*==ERROR' "$work/log"; then
    echo "failed ($(grep -m1 -e 'DISPATCH FUZZ BUG' -e 'ERROR' "$work/log" | cut -c1-60))"
  else
    echo "$rate"
  fi
}

# Replay-main inputs/s of binary $1: the corpus of target $2 again and again for SECONDS_EACH.
replay_rate() {
  local bin=$1 target=$2 inputs=0 start now line n
  start=$(date +%s.%N)
  while :; do
    line=$("$bin" "$ROOT/fuzz/corpus/$target" 2>&1 | grep -m1 '^Executed ') || { echo "failed"; return; }
    n=$(sed -E 's/Executed ([0-9]+) inputs.*/\1/' <<<"$line")
    inputs=$((inputs + n))
    now=$(date +%s.%N)
    if awk -v s="$start" -v n="$now" -v t="$SECONDS_EACH" 'BEGIN { exit !(n - s >= t) }'; then break; fi
  done
  awk -v i="$inputs" -v s="$start" -v n="$now" 'BEGIN { printf "%.0f", i / (n - s) }'
}

load() { cut -d' ' -f1 /proc/loadavg; }

echo "| fuzz target | flavour | libFuzzer exec/s (fuzz preset) | before exec/s | after/before | release inputs/s | load |"
echo "|---|---|---:|---:|---:|---:|---:|"
for target in $TARGETS; do
  for flavour in full mobile; do
    row_load=$(load)
    before="-"; ratio="-"
    if [[ -n $BEFORE && $flavour == full ]]; then
      if [[ -x $BEFORE/$target ]]; then before=$(libfuzzer_rate "$BEFORE/$target" "$target")
      else before="(no $BEFORE/$target)"; fi
    fi
    fuzz_bin=$ROOT/build/$flavour-fuzz/fuzz/$target
    if [[ -x $fuzz_bin ]]; then after=$(libfuzzer_rate "$fuzz_bin" "$target")
    else after="(no build/$flavour-fuzz)"; fi
    if [[ $before =~ ^[0-9]+$ && $after =~ ^[0-9]+$ && $before -gt 0 ]]; then
      ratio=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.1fx", a / b }')
    fi
    release_bin=$ROOT/build/$flavour-release/fuzz/$target
    if [[ -x $release_bin ]]; then release=$(replay_rate "$release_bin" "$target")
    else release="(no build/$flavour-release)"; fi
    echo "| $target | $flavour | $after | $before | $ratio | $release | $row_load |"
  done
done
echo
echo "Each cell: ${SECONDS_EACH} s from fuzz/corpus/<target>. Both flavours run in every binary (the"
echo "trace targets check each input on a full and a mobile dispatcher); the flavour column is the"
echo "preset's DISPATCH_FLAVOUR (build/<flavour>-fuzz, build/<flavour>-release)."
