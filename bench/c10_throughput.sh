#!/usr/bin/env bash
# bench/c10_throughput.sh --before REV [--runs N] [--inputs N] [--out FILE] -- the c10 target's
# executions a second over the committed corpora (registration_fuzzer's corpus and regressions:
# the same 1,437 inputs for both sides, or the first N by name with --inputs N, for a REV slow
# enough that a whole replay takes too long), REV's build beside this checkout's, side by side in one run. Run it
# against the release to measure: ci/c10.sh --libtorch 2.14 bench/c10_throughput.sh --before d461590
#
# Each side is c10_registration_fuzzer of the release's fuzz preset (ASan, UBSan, libFuzzer: the
# build a c10 night runs), REV's built from a git worktree under build/c10-throughput/. Each run
# is libFuzzer's seed replay (-runs=0) over the corpora, known bugs skipped as in a night, one
# process on one core; runs alternate A B A B. Prints, per side, the inputs/s of every run and
# their median, and the ratio of the medians; --out writes the table under a line saying when,
# on which commits and libtorch, and the load average before and after.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
before="" runs=3 out="" first=0
while (($# > 0)); do
  case "$1" in
    --before) before="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --inputs) first="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "c10_throughput: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$before" ]] || { echo "c10_throughput: --before REV is required" >&2; exit 2; }
release="${DISPATCH_LIBTORCH_RELEASE:-1.13}"
preset="full-c10"; [[ "$release" == 1.13 ]] || preset="full-c10-$release"
before_sha=$(git -C "$ROOT" rev-parse --short "$before")
after_sha=$(git -C "$ROOT" rev-parse --short HEAD)

# REV's tree: a worktree of its own, configured and built as the preset builds this checkout.
work="$ROOT/build/c10-throughput"
src="$work/$before_sha"
if [[ ! -d "$src" ]]; then
  mkdir -p "$work"
  git -C "$ROOT" worktree add --detach "$src" "$before_sha" >/dev/null
fi
for tree in "$src" "$ROOT"; do
  (cd "$tree" && cmake --preset "$preset" >/dev/null && cmake --build "build/$preset" --target c10_registration_fuzzer >/dev/null) \
    || { echo "c10_throughput: the build of $tree failed" >&2; exit 1; }
done
corpora=("$ROOT/fuzz/corpus/registration_fuzzer" "$ROOT/fuzz/regressions/registration_fuzzer")
empty="$(mktemp -d "${TMPDIR:-/tmp}/c10-throughput.XXXXXX")"
trap 'rm -rf "$empty"' EXIT
if ((first > 0)); then
  mkdir "$empty/inputs"
  find "${corpora[@]}" -type f | sort | awk -v n="$first" 'NR <= n' | xargs -r cp -t "$empty/inputs"
  corpora=("$empty/inputs")
fi
inputs=$(find "${corpora[@]}" -type f | wc -l)
((inputs > 0)) || { echo "c10_throughput: no committed inputs" >&2; exit 1; }

source "$ROOT/sanitizer_builds/env.sh"
export DISPATCH_C10_KNOWN_UPSTREAM="$ROOT/fuzz/c10/known_upstream.signatures"

# One seed replay: inputs/s, or nothing when it did not run every input (never a figure then).
rate() {
  local fuzzer="$1" log="$empty/log" start end
  start=$(date +%s.%N)
  if ! taskset -c 0 "$fuzzer" -runs=0 -max_len=640 -timeout=60 "$empty/units" "${corpora[@]}" > "$log" 2>&1; then
    echo "c10_throughput: $fuzzer failed; its log:" >&2; tail -20 "$log" >&2; return 1
  fi
  end=$(date +%s.%N)
  local ran
  ran=$(sed -n 's/^#\([0-9]*\).*INITED.*/\1/p' "$log" | tail -1)
  [[ -n "$ran" ]] || { echo "c10_throughput: no INITED line in $fuzzer's log" >&2; return 1; }
  awk -v n="$ran" -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", n / (e - s) }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)
a=() b=()
for ((i = 0; i < runs; ++i)); do
  rm -rf "$empty/units"; mkdir "$empty/units"
  a+=("$(rate "$src/build/$preset/fuzz/c10_registration_fuzzer")")
  rm -rf "$empty/units"; mkdir "$empty/units"
  b+=("$(rate "$ROOT/build/$preset/fuzz/c10_registration_fuzzer")")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ma=$(printf '%s\n' "${a[@]}" | median)
mb=$(printf '%s\n' "${b[@]}" | median)
table="$(
  echo "| c10_registration_fuzzer, libtorch $release | inputs/s over $inputs committed inputs, each run | median |"
  echo "|---|---|---:|"
  echo "| before ($before_sha) | ${a[*]} | $ma |"
  echo "| after ($after_sha) | ${b[*]} | $mb |"
  awk -v a="$ma" -v b="$mb" 'BEGIN { printf "| after / before | | %.1fx |\n", b / a }'
)"
echo "$table"
if [[ -n "$out" ]]; then
  mkdir -p "$(dirname "$out")"
  {
    echo "Written by bench/c10_throughput.sh --before $before --runs $runs --inputs $first on $started: commits $before_sha and"
    echo "$after_sha, libtorch $release ($preset), one core each (taskset -c 0), runs alternating; load average"
    echo "$load_before before, $load_after after."
    echo
    echo "$table"
  } > "$out"
fi
