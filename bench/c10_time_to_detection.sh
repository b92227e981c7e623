#!/usr/bin/env bash
# bench/c10_time_to_detection.sh [--seeds 1,2,3] [--budget SECONDS] [--oracle model|model-free]
#   [--build DIR] [--out FILE] [--preload SO] [--corpora] -- how soon c10_registration_fuzzer finds a known
# upstream bug of c10 from an EMPTY corpus (or, with --corpora, from the committed corpora the c10
# nightly starts from: registration_fuzzer's corpus and regressions), one run per seed, known bugs
# NOT skipped. Run it against the release to measure
# (ci/c10.sh --libtorch 2.14 bench/c10_time_to_detection.sh); --build defaults to that release's
# tree (build/full-c10[-RELEASE]). Prints one markdown row per seed:
#   | libtorch | oracle | seed | verdict | seconds | CPU s | executions |
# (CPU s: the fuzzer's user + system time; a run that shares its core gets less than its seconds.)
# The verdict is "found <bug id>" only when the fuzzer stopped on a report that matches that
# bug's signature (fuzz/c10/known_upstream.signatures); a run that ends without a report is
# "not found within the budget", a report that matches no signature is "unclassified" and any
# other stop (a crash of the harness, no statistics) is "error": none of those is a find.
# --preload SO loads a shared object into the fuzzer (LD_PRELOAD: a fix of c10 interposed,
# fuzz/c10/fixes/), so the same seeds show whether the fix holds. --out FILE also writes the table there, under a line saying when, on which commit and
# libtorch, and the load average before and after (the seconds depend on it; executions less).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seeds="1,2,3" budget=600 oracle="" build="" out="" preload="" corpora=()
while (($# > 0)); do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --oracle) oracle="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --preload) preload="$(realpath "$2")"; shift 2 ;;
    --corpora) corpora=("$ROOT/fuzz/corpus/registration_fuzzer" "$ROOT/fuzz/regressions/registration_fuzzer"); shift ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "c10_time_to_detection: unknown argument $1" >&2; exit 2 ;;
  esac
done
release="${DISPATCH_LIBTORCH_RELEASE:-1.13}"
[[ -n "$build" ]] || { build="$ROOT/build/full-c10"; [[ "$release" == 1.13 ]] || build="$build-$release"; }
fuzzer="$build/fuzz/c10_registration_fuzzer"
[[ -x "$fuzzer" ]] || { echo "c10_time_to_detection: no $fuzzer (build the c10 preset of libtorch $release)" >&2; exit 1; }
source "$ROOT/sanitizer_builds/env.sh"
# The fuzz target's own default (c10_sut/c10_oracle.h): the model against 1.x, else model-free.
[[ -n "$oracle" ]] || { oracle=model-free; [[ "$release" != 1.* ]] || oracle=model; }
export DISPATCH_C10_ORACLE="$oracle"
unset DISPATCH_C10_KNOWN_UPSTREAM   # every known bug counts as a find here

work="$(mktemp -d "${TMPDIR:-/tmp}/c10-ttd.XXXXXX")"
trap 'rm -rf "$work"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")
{
  echo "| libtorch | oracle | seed | verdict | seconds | CPU s | executions |"
  echo "|---|---|---|---|---:|---:|---:|"
} | tee "$work/table"
IFS=',' read -r -a seed_list <<< "$seeds"
for seed in "${seed_list[@]}"; do
  run="$work/seed-$seed"
  mkdir -p "$run/corpus" "$run/artifacts"
  start=$(date +%s.%N)
  rc=0
  TIMEFORMAT='%U %S'
  { time ${preload:+env LD_PRELOAD="$preload"} "$fuzzer" -seed="$seed" -max_total_time="$budget" -max_len=640 -timeout=60 \
      -rss_limit_mb=4096 -dict="$ROOT/fuzz/dictionaries/registration_fuzzer.dict" -print_final_stats=1 \
      -artifact_prefix="$run/artifacts/" "$run/corpus" "${corpora[@]}" > "$run/log" 2>&1 || rc=$?; } 2> "$run/cpu"
  cpu=$(awk 'NF == 2 { printf "%.1f", $1 + $2 }' "$run/cpu")
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  executions=$(awk '/stat::number_of_executed_units:/ {print $2}' "$run/log" | tail -n1)
  if grep -q "DISPATCH FUZZ BUG" "$run/log"; then
    bug=$(PYTHONPATH="$ROOT/ci" python3 -c 'import sys; from dispatch_ci import c10_known; print(c10_known.known_bug(open(sys.argv[1], errors="replace").read()) or "")' "$run/log")
    verdict=${bug:+found $bug}
    verdict=${verdict:-unclassified: $(grep -m1 -A1 "DISPATCH FUZZ BUG" "$run/log" | tail -n1 | cut -c1-80)}
  elif [[ $rc == 0 && -n "$executions" ]]; then
    verdict="not found within ${budget} s"
  else
    verdict="error (exit $rc: $(grep -m1 -e ERROR -e 'runtime error' "$run/log" | cut -c1-60))"
  fi
  echo "| $release | $oracle | $seed | $verdict | $seconds | ${cpu:-?} | ${executions:-?} |" | tee -a "$work/table"
done
if [[ -n "$out" ]]; then
  libtorch=$(dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null || echo "?")
  {
    echo "Written by bench/c10_time_to_detection.sh --seeds $seeds --budget $budget --oracle $oracle${preload:+ --preload ${preload#"$ROOT"/}}${corpora[0]:+ --corpora}, $started,"
    echo "commit $commit, libtorch-dev $libtorch, load average $load_before"
    echo "before and $(cut -d' ' -f1-3 /proc/loadavg) after, on $(nproc) cores shared with other work."
    echo
    cat "$work/table"
  } > "$out"
fi
