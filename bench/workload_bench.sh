#!/usr/bin/env bash
# bench/workload_bench.sh -- PyTorch's start-up registrations, ours beside c10 (issue 35; the
# section `workload` of bench/run.sh). For each recorded release (bench/workloads/*.tsv.gz):
#   ours, every flavour of the release build's workload_replay: the replay loop's time (best and
#     median of WORKLOAD_RUNS runs, in-process), its instructions (callgrind, between the replay
#     loop's CALLGRIND_START/STOP), the heap the dispatcher keeps and its peak (operator new counted);
#   c10: the recorder's own timing of the real calls (real_call_ns, one run when recorded), the
#     instructions inside c10::Dispatcher::register* during the load and the heap growth in those
#     calls (bench/workload_c10.sh); anything not measurable is printed as "not measured" and why.
# Then the goal line: ours <= c10 in instructions, full flavour. bench/workload_table.py prints the
# table and writes build/bench/workload.json; unless --quick, that file is kept as
# bench/results/workload/<date>-<commit>.json.
#
#   bench/workload_bench.sh [--quick]     --quick: 1 run, full and mobile only, no c10 callgrind
# Environment: BENCH_BUILD_DIR (default build/full-release), WORKLOAD_RUNS (default 5).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
case "${1:-}" in
  --quick) QUICK=1 ;;
  -h|--help) sed -n '2,/^set -/{/^set -/d; s/^# \{0,1\}//; p}' "$0"; exit 0 ;;
  "") ;;
  *) sed -n '2,/^set -/{/^set -/d; s/^# \{0,1\}//; p}' "$0" >&2; exit 2 ;;
esac
REL=${BENCH_BUILD_DIR:-$ROOT/build/full-release}
REPLAY=$REL/bench/workload_replay
RUNS=${WORKLOAD_RUNS:-5}
[[ $QUICK == 1 ]] && RUNS=1
if [[ ! -x $REPLAY ]]; then
  echo "bench/workload_bench.sh: $REPLAY missing (cmake --build $REL --target workload_replay)" >&2
  exit 1
fi
TMP=$(mktemp -d -t dispatch-workload.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

releases=()
for recording in "$ROOT"/bench/workloads/libtorch-*-startup.tsv.gz; do
  [[ -e $recording ]] || { echo "bench/workload_bench.sh: no recordings in bench/workloads/" >&2; exit 1; }
  release=$(basename "$recording" | sed -E 's/^libtorch-(.*)-startup\.tsv\.gz$/\1/')
  releases+=("$release")
  dir=$TMP/$release
  mkdir -p "$dir"
  zcat "$recording" | sed -n 's/^# c10_after_load\t//p' | tr '\t' ' ' >"$dir/c10_after_load.txt"
  nice -n 19 "$REPLAY" --measure "$RUNS" "$recording" >"$dir/ours.txt" 2>"$dir/ours.err" ||
    { echo "workload_replay --measure failed on $recording:"; cat "$dir/ours.err"; exit 1; }
  : >"$dir/ours_instructions.txt"
  for flavour in $(sed -E 's/^flavour=([^ ]*) .*/\1/' "$dir/ours.txt"); do
    [[ $QUICK == 1 && $flavour != full && $flavour != mobile ]] && continue
    if ! command -v valgrind >/dev/null; then
      echo "flavour=$flavour not_measured=valgrind is not installed" >>"$dir/ours_instructions.txt"
      continue
    fi
    if nice -n 19 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/cg.$flavour.out" \
        "$REPLAY" --callgrind "$flavour" "$recording" >/dev/null 2>"$dir/cg.err"; then
      echo "flavour=$flavour instructions=$(awk '/^totals:/ {print $2}' "$dir/cg.$flavour.out")" \
        >>"$dir/ours_instructions.txt"
    else
      echo "flavour=$flavour not_measured=callgrind failed: $(tail -n 1 "$dir/cg.err" | tr '=' ':')" \
        >>"$dir/ours_instructions.txt"
    fi
  done
  if [[ $QUICK == 1 ]]; then
    echo "release=$release instructions_not_measured=--quick skips c10 (callgrind of the load: minutes)" \
      "heap_not_measured=--quick skips c10" >"$dir/c10.txt"
  elif ! "$ROOT/bench/workload_c10.sh" --libtorch "$release" >"$dir/c10.txt" 2>"$dir/c10.err"; then
    echo "release=$release instructions_not_measured=bench/workload_c10.sh failed: $(tail -n 1 "$dir/c10.err" | tr '=' ':')" \
      >"$dir/c10.txt"
  fi
done

RESULTS_JSON=$ROOT/build/bench/workload.json
mkdir -p "$(dirname "$RESULTS_JSON")"
python3 "$ROOT/bench/workload_table.py" --dir "$TMP" --runs "$RUNS" --out "$RESULTS_JSON" \
  --commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  --command "bench/workload_bench.sh${1:+ $1}" \
  --compiler "$(grep -m1 CMAKE_CXX_COMPILER: "$REL/CMakeCache.txt" | cut -d= -f2) $(grep -m1 'CMAKE_CXX_FLAGS_RELEASE:' "$REL/CMakeCache.txt" | cut -d= -f2)" \
  "${releases[@]}" || exit 1
if [[ $QUICK == 0 ]]; then
  # A folder of its own: bench/results/*.json are bench/run.sh's dispatch results (bench_tables.py).
  kept=$ROOT/bench/results/workload/$(date -u +%Y-%m-%dT%H%MZ)-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown).json
  mkdir -p "$(dirname "$kept")"
  cp "$RESULTS_JSON" "$kept"
  echo "Kept as ${kept#"$ROOT"/}"
  PYTHONPATH=$ROOT/ci python3 -m dispatch_ci.workload_tables record || exit 1
fi
