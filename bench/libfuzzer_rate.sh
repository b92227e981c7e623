# shellcheck shell=bash
# Sourced by bench/fuzz_throughput.sh and bench/fuzz_floor.sh (needs ROOT, TMP and SECONDS_EACH
# set, and bench/fuzz_options.sh sourced before it).
# libfuzzer_rate BIN TARGET [OPTIONS_DIR] [SEEDS_DIR] [FLAG...]: libFuzzer's
# "exec/s (exec per CPU-s)" of binary BIN run for SECONDS_EACH with target TARGET's .options
# flags (from OPTIONS_DIR, default this tree's fuzz/options), then the FLAGs (which win over
# them), from the seeds in SEEDS_DIR (default fuzz/corpus/TARGET). New inputs go to a scratch
# folder: seeds are never written. A run that exits with an error, reports a bug or prints no
# statistics gives "failed (...)", never a number.
libfuzzer_rate() {
  local bin=$1 target=$2 options=${3:-} seeds=${4:-$ROOT/fuzz/corpus/$2} work rc=0
  shift $(($# < 4 ? $# : 4))
  work=$(mktemp -d "$TMP/run.XXXXXX")
  mkdir -p "$work/corpus" "$work/artifacts"
  # shellcheck disable=SC2046
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$bin" $(option_flags "$target" ${options:+"$options"}) "$@" \
    -max_total_time="$SECONDS_EACH" -seed=1 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1 || rc=$?
  local rate runs
  rate=$(awk '/stat::average_exec_per_sec:/ {print $2}' "$work/log")
  runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$work/log")
  if [[ $rc != 0 || -z $rate || -z $runs ]] ||
     grep -q -e 'DISPATCH FUZZ BUG' -e '^==[0-9]*==ERROR' -e 'runtime error:' -e 'ERROR: libFuzzer' "$work/log"; then
    echo "failed (exit $rc: $(grep -m1 -e 'DISPATCH FUZZ BUG' -e 'ERROR' -e 'runtime error:' "$work/log" | cut -c1-60))"
  else
    awk -v r="$rate" -v n="$runs" '{ c = $1 + $2 } END { printf "%d (%.0f/CPU-s)", r, (c > 0 ? n / c : 0) }' "$work/cpu"
  fi
}
