#!/usr/bin/env bash
# ci/coverage.sh -- coverage of dispatch/ by the fuzz corpora and the test suites, per flavour.
#
#   ci/coverage.sh [--presets full-coverage,mobile-coverage] [--jobs N] [--no-tests]
#                  [--input-root DIR]... [--timeout S]
#
# For each coverage preset (clang-14 source-based coverage, -O0, no sanitizer):
#   1. configure and build build/<preset>;
#   2. replay every input of fuzz/corpus/<target>/ and fuzz/regressions/<target>/ through the
#      target's replay binary, one process per target and folder, with LLVM_PROFILE_FILE per
#      process and DISPATCH_TABLE_CELLS (table-cell recorder, fuzz/harness/cell_recorder.h);
#   3. the unit tests and the property suite (ctest -L 'unit|property'; ctest gives each test
#      LLVM_PROFILE_FILE=build/<preset>/profraw/%4m.profraw, sanitizer_builds/testing.cmake);
#   4. llvm-profdata merge, then llvm-cov report / export / show over dispatch/ only (tests,
#      properties, fuzz harness and system headers are ignored).
# Then ci/lib/coverage_summary.py writes summary.{md,txt,json} (lines, branches, functions,
# regions per flavour) and ci/lib/coverage_cells.py writes cells.{md,html,json} (which table
# cells, fallback slots and index -1 paths the corpora reached, per flavour).
#
#   --presets a,b     coverage presets (default full-coverage,mobile-coverage)
#   --jobs N          build and ctest parallelism (default 2)
#   --no-tests        corpora only (skip step 3)
#   --input-root DIR  also replay DIR/<target>/ (repeatable; e.g. build/nightly/latest/corpus)
#   --timeout S       limit per replay process and per test (default 1800)
#
# Output: build/coverage/: summary.md (+ .txt, .json), cells.md (+ .html, .json),
# html/<preset>/index.html (llvm-cov, line and branch counts), <preset>/ (profiles, merged
# profdata, cell records, timings.tsv), logs/. Exit code 0 when every step worked, 1 when a
# replay, test or tool failed (the reports are still written for what ran), 2 for bad arguments.
set -euo pipefail
shopt -s nullglob

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"

presets_csv="full-coverage,mobile-coverage"
jobs=2
run_tests=1
input_roots=()
step_timeout=1800
usage_error() { echo "ci/coverage.sh: $*" >&2; exit 2; }
while (($# > 0)); do
  case "$1" in
    --presets) presets_csv="${2:?--presets needs a list}"; shift 2 ;;
    --presets=*) presets_csv="${1#*=}"; shift ;;
    --jobs|-j) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --no-tests) run_tests=0; shift ;;
    --input-root) input_roots+=("${2:?--input-root needs a folder}"); shift 2 ;;
    --input-root=*) input_roots+=("${1#*=}"); shift ;;
    --timeout) step_timeout="${2:?--timeout needs seconds}"; shift 2 ;;
    --timeout=*) step_timeout="${1#*=}"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1' (try --help)" ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs must be a positive number"
[[ "$step_timeout" =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout must be a positive number"
IFS=',' read -r -a presets <<< "$presets_csv"
for p in "${presets[@]}"; do
  grep -q "\"name\": \"$p\"" CMakePresets.json || usage_error "no preset '$p' in CMakePresets.json"
done
for r in "${input_roots[@]}"; do [[ -d "$r" ]] || usage_error "--input-root $r is not a folder"; done

out="$repo/build/coverage"
mkdir -p "$out/logs"
failed=0
say() { printf '==> [ci/coverage.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# Runs "$@" at low priority, logs it, records "<step>\t<seconds>\t<ok|failed>" in timings.tsv.
step() {
  local preset="$1" name="$2" log="$3"; shift 3
  local start=$SECONDS status=ok
  if ! nice -n 10 "$@" >>"$log" 2>&1; then status=failed; failed=1; fi
  printf '%s\t%s\t%s\n' "$name" "$((SECONDS - start))" "$status" >>"$out/$preset/timings.tsv"
  say "$preset: $name: $status ($((SECONDS - start)) s)"
  [[ "$status" == ok ]]
}
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }
# `step ... "${write_to[@]}" FILE cmd args...` runs cmd with its output in FILE.
write_to=(bash -c '"${@:2}" > "$1"' _)
# llvm-cov's object arguments: the first binary, then -object for each further one.
object_args() { printf '%s\n' "$1"; shift; for o in "$@"; do printf -- '-object\n%s\n' "$o"; done; }

# dispatch/include and dispatch/src only: everything else of the repository, and system headers.
ignore_regex="^/usr/|^$(printf '%s' "$repo" | sed 's/[.[\*^$()+?{|]/\\&/g')/(dispatch/tests|properties|fuzz|bench|sanitizer_builds|build)/"

for preset in "${presets[@]}"; do
  build="$repo/build/$preset"
  data="$out/$preset"
  rm -rf "$data" "$out/html/$preset" "$build/profraw"
  mkdir -p "$data/profraw" "$data/cells"
  : >"$data/timings.tsv"
  log="$out/logs/$preset.log"
  : >"$log"
  total_start=$SECONDS

  step "$preset" build "$log" bash -c "cmake --preset '$preset' && cmake --build --preset '$preset' -j '$jobs'" ||
    continue
  [[ "$(cache_value "$build" DISPATCH_COVERAGE)" == ON ]] || { say "$preset is not a coverage build"; failed=1; continue; }
  profdata_tool="$(cache_value "$build" DISPATCH_LLVM_PROFDATA)"
  cov_tool="$(cache_value "$build" DISPATCH_LLVM_COV)"

  # 2. The corpora: one process per target and folder, so a failing folder names itself.
  objects=()
  for src in fuzz/*_fuzzer.cpp; do
    target="$(basename "$src" .cpp)"
    binary="$build/fuzz/$target"
    [[ -x "$binary" ]] || { say "$preset: $target was not built"; failed=1; continue; }
    objects+=("$binary")
    for root in fuzz/corpus fuzz/regressions "${input_roots[@]}"; do
      dir="$root/$target"
      [[ -d "$dir" ]] || continue
      kind="$(basename "$root")"
      LLVM_PROFILE_FILE="$data/profraw/$target.$kind.%p.profraw" \
      DISPATCH_TABLE_CELLS="$data/cells/$target.jsonl" \
        step "$preset" "replay $target $dir ($(find "$dir" -type f | wc -l) inputs)" "$log" \
          timeout "$step_timeout" "$binary" "$dir" || true
    done
  done

  mapfile -t corpus_object_args < <(object_args "${objects[@]}")

  # 3. Unit tests and properties (ctest sets their LLVM_PROFILE_FILE itself).
  if ((run_tests)); then
    step "$preset" "ctest unit+property" "$log" \
      ctest --test-dir "$build" -L '^(unit|property)$' -j "$jobs" --timeout "$step_timeout" \
        --output-on-failure --output-junit "$data/junit.xml" || true
    while IFS= read -r exe; do objects+=("$exe"); done < <(
      ctest --test-dir "$build" -L '^(unit|property)$' --show-only=json-v1 |
        python3 -c 'import json, sys
for t in json.load(sys.stdin)["tests"]:
    print(t["command"][0])' | sort -u)
  fi

  # 4. Merge and report.
  profiles=("$data"/profraw/*.profraw "$build"/profraw/*.profraw)
  if ((${#profiles[@]} == 0)); then say "$preset: no profiles written"; failed=1; continue; fi
  step "$preset" "llvm-profdata merge (${#profiles[@]} profiles)" "$log" \
    "$profdata_tool" merge -sparse -o "$data/merged.profdata" "${profiles[@]}" || continue
  cov_args=(-instr-profile="$data/merged.profdata" -ignore-filename-regex="$ignore_regex")
  mapfile -t all_object_args < <(object_args "${objects[@]}")
  step "$preset" "llvm-cov report" "$log" "${write_to[@]}" "$data/report.txt" \
    "$cov_tool" report -show-branch-summary "${cov_args[@]}" "${all_object_args[@]}" || true
  step "$preset" "llvm-cov export" "$log" "${write_to[@]}" "$data/export.json" \
    "$cov_tool" export "${cov_args[@]}" "${all_object_args[@]}" || true
  step "$preset" "llvm-cov show (html)" "$log" \
    "$cov_tool" show -format=html -output-dir="$out/html/$preset" -show-branches=count \
      -show-line-counts-or-regions -show-expansions "${cov_args[@]}" "${all_object_args[@]}" || true
  # What the corpora alone reach (summary.md shows it next to the total).
  corpus_profiles=("$data"/profraw/*.profraw)
  if ((${#corpus_profiles[@]})) &&
     step "$preset" "corpora only: llvm-profdata merge" "$log" \
       "$profdata_tool" merge -sparse -o "$data/corpus.profdata" "${corpus_profiles[@]}"; then
    step "$preset" "corpora only: llvm-cov export" "$log" "${write_to[@]}" "$data/corpus-export.json" \
      "$cov_tool" export -summary-only -instr-profile="$data/corpus.profdata" \
        -ignore-filename-regex="$ignore_regex" "${corpus_object_args[@]}" || true
  fi
  printf 'total\t%s\t-\n' "$((SECONDS - total_start))" >>"$data/timings.tsv"
done

say "writing summary and table-cell reports"
python3 ci/lib/coverage_summary.py --out "$out" "${presets[@]}" || failed=1
# Each flavour's cells from its own preset's replay: <flavour>-coverage records layout <flavour>.
flavour_args=()
for preset in "${presets[@]}"; do flavour_args+=(--flavour "${preset%%-*}=$out/$preset/cells"); done
python3 ci/lib/coverage_cells.py --out "$out" "${flavour_args[@]}" || failed=1
say "report: $out/summary.md, $out/cells.md, $out/html/<preset>/index.html"
exit "$failed"
