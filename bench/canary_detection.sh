#!/usr/bin/env bash
# Time to detection of each planted bug (ci/canaries/*.patch) by the fuzz targets its header
# names, started from an EMPTY corpus: what shows exploration, not corpus replay.
#
# For each canary, in the first flavour its header names: ci/canaries.sh --tree NAME writes the
# patched copy of the tree (build/canary-work/NAME/src); it is configured as the canary job
# configures a tree of that flavour (ci/canaries.sh --configure-args: the fuzz preset, and the
# flavour or the drawn random:N:SEED flavours) into build/canary-work/NAME/bench-<flavour>-fuzz
# and only the named targets are built.
# (Every canary's build then sits at the same relative path to its sources, so a compiler cache
# keyed on relative paths reuses the unchanged files across canaries.) Each target then fuzzes from an empty corpus, seeds 1..SEEDS,
# at most BUDGET seconds each, with its fuzz/options file (max_len, dict, timeout). A seed
# catches the canary only if libFuzzer stops with a crash artifact and a detection in the log
# (model disagreement, sanitizer report, hardened-library or library assertion). A timeout, OOM
# or leak is reported as such; a canary no target catches within the budget is reported as not
# caught, never as a number.
#
#   bench/canary_detection.sh [--seeds N] [--budget S] [--canary NAME]...
#   (bench/run.sh --section canaries calls it; --quick there means 1 seed, 20 s)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SEEDS=5; BUDGET=60; ONLY=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --seeds) SEEDS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --canary) ONLY+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d; s/^# \{0,1\}//; p}' "$0"; exit 0 ;;
    *) echo "bench/canary_detection.sh: unknown argument '$1' (--seeds N, --budget S, --canary NAME, --help)" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d -t dispatch-canary-ttd.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}

header() { sed -n "s/^$2: *//p" "$1" | head -1; }

# shellcheck source=bench/fuzz_options.sh
source "$ROOT/bench/fuzz_options.sh"  # option_flags

# One seed: "caught <seconds>", "timeout", "oom", "leak", "crash without a detection" or
# "not caught".
run_seed() {
  local bin=$1 target=$2 seed=$3 work start end
  work=$(mktemp -d "$TMP/seed.XXXXXX"); mkdir -p "$work/corpus"
  start=$(date +%s.%N)
  # shellcheck disable=SC2046
  "$bin" $(option_flags "$target") -seed="$seed" -max_total_time="$BUDGET" -rss_limit_mb=2048 \
    -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1
  end=$(date +%s.%N)
  if grep -q 'ERROR: libFuzzer: timeout' "$work/log"; then echo "timeout"
  elif grep -q -e 'out-of-memory' -e 'ERROR: libFuzzer: out-of-memory' "$work/log"; then echo "oom"
  elif grep -q 'ERROR: LeakSanitizer' "$work/log"; then echo "leak"
  elif ! compgen -G "$work/crash-*" >/dev/null; then echo "not caught"
  elif grep -q -e 'DISPATCH FUZZ BUG' -e 'ERROR: AddressSanitizer' -e 'runtime error:' \
            -e 'Assertion' -e 'InternalError' "$work/log"; then
    awk -v s="$start" -v e="$end" 'BEGIN { printf "caught %.1f\n", e - s }'
  else echo "crash without a detection"
  fi
}

echo "| canary | flavour | fuzz target | caught (seeds) | seconds to detection (median; each seed) |"
echo "|---|---|---|---:|---|"
for patch in "$ROOT"/ci/canaries/*.patch; do
  name=$(basename "$patch" .patch)
  if [[ ${#ONLY[@]} -gt 0 && ! " ${ONLY[*]} " =~ " $name " ]]; then continue; fi
  flavour=$(header "$patch" flavours | cut -d, -f1 | tr -d ' ')
  targets=$(header "$patch" fuzz | tr ',' ' ')
  if [[ -z $targets ]]; then
    echo "| $name | $flavour | (none named) | - | no fuzz target is meant to see it |"
    continue
  fi
  src=$("$ROOT/ci/canaries.sh" --tree "$name" 2>"$TMP/tree.err" | tail -1)
  dir=$(dirname "$src")/bench-${flavour//:/-}-fuzz
  # The canary job's own configuration of a tree of this flavour (declared or random:N:SEED).
  : >"$TMP/cfg.log"; : >"$TMP/build.log"
  mapfile -t configure < <("$ROOT/ci/canaries.sh" --configure-args "$flavour" 2>"$TMP/cfg.log")
  # shellcheck disable=SC2086
  if [[ ! -d $src || ${#configure[@]} -eq 0 ]] || ! cmake -S "$src" "${configure[@]}" -B "$dir" >>"$TMP/cfg.log" 2>&1 ||
     ! cmake --build "$dir" -j2 --target $targets >"$TMP/build.log" 2>&1; then
    echo "| $name | $flavour | $targets | ERROR | the patched tree did not build ($(cat "$TMP/tree.err" "$TMP/cfg.log" "$TMP/build.log" 2>/dev/null | grep -v '^$' | tail -1 | cut -c1-60)) |"
    continue
  fi
  for target in $targets; do
    results=(); times=()
    for seed in $(seq 1 "$SEEDS"); do
      r=$(run_seed "$dir/fuzz/$target" "$target" "$seed")
      results+=("${r/caught /}")
      [[ $r == caught* ]] && times+=("${r#caught }")
    done
    if [[ ${#times[@]} -gt 0 ]]; then
      median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
      cell="$median s; $(IFS=', '; echo "${results[*]}")"
    else
      cell="not caught within $BUDGET s ($(printf '%s\n' "${results[@]}" | sort | uniq -c | awk '{ $1 = $1 "x"; print }' | paste -sd, -))"
    fi
    echo "| $name | $flavour | $target | ${#times[@]}/$SEEDS | $cell |"
  done
done
echo
echo "Empty corpus, seeds 1..$SEEDS, at most $BUDGET s each, the target's fuzz/options flags; one process per seed, run one after another."
