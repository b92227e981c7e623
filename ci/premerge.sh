#!/usr/bin/env bash
# ci/premerge.sh -- the pre-merge matrix: every flavour x setup preset, every test label.
#
#   ci/premerge.sh [--presets a,b,c] [--labels a,b,c] [--jobs N]
#
# For each preset (CMakePresets.json): `cmake --preset P` (reuses build/P, never --fresh),
# `cmake --build build/P`, then one ctest run per label (`ctest -L ^label$`). A label with no
# test in a preset (`ctest -N -L`) is "n/a", not a pass and not a failure. The pseudo-label
# `canary` runs `ci/canaries.sh --fast` once (if that script exists). Prints a matrix
# summary (preset x label: passed/failed and time) and exits 0 only if everything passed.
#
#   --presets a,b,c   configure presets (default: all ten, full/mobile x
#                     asan-ubsan,tsan,release,coverage,fuzz)
#   --labels a,b,c    labels (default: unit,property,corpus,fuzz-smoke,selfcheck,canary)
#   --jobs N          build and ctest parallelism (default: nproc)
#
# Results: build/premerge-results/
#   <preset>.<label>.xml    ctest JUnit per preset x label (a synthetic failing one for a
#                           configure/build failure: <preset>.build.xml)
#   logs/<preset>.{configure,build}.log, logs/<preset>.<label>.log, logs/canary.log
#   summary.txt             the matrix printed at the end
set -euo pipefail
shopt -s lastpipe

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

all_presets="full-asan-ubsan,mobile-asan-ubsan,full-tsan,mobile-tsan,full-release,mobile-release,full-coverage,mobile-coverage,full-fuzz,mobile-fuzz"
presets_csv="$all_presets"
labels_csv="unit,property,corpus,fuzz-smoke,selfcheck,canary"
jobs="$(nproc 2>/dev/null || echo 2)"
while (($# > 0)); do
  case "$1" in
    --presets) presets_csv="${2:?--presets needs a comma-separated list}"; shift 2 ;;
    --presets=*) presets_csv="${1#--presets=}"; shift ;;
    --labels) labels_csv="${2:?--labels needs a comma-separated list}"; shift 2 ;;
    --labels=*) labels_csv="${1#--labels=}"; shift ;;
    --jobs|-j) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/premerge.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
IFS=',' read -r -a presets <<< "$presets_csv"
IFS=',' read -r -a labels <<< "$labels_csv"
if ((${#presets[@]} == 0 || ${#labels[@]} == 0)); then
  echo "ci/premerge.sh: no presets or no labels given" >&2
  exit 2
fi
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "ci/premerge.sh: --jobs must be a positive number, not '$jobs'" >&2
  exit 2
fi
known_presets="$(cmake --list-presets=configure 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')"
for p in "${presets[@]}"; do
  if ! grep -qx -- "$p" <<< "$known_presets"; then
    echo "ci/premerge.sh: unknown preset '$p' (known: $(tr '\n' ' ' <<< "$known_presets"))" >&2
    exit 2
  fi
done
run_canary=0
test_labels=()
for l in "${labels[@]}"; do
  if [[ "$l" == canary ]]; then run_canary=1; else test_labels+=("$l"); fi
done

say() { printf '==> [ci/premerge.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

results="$root/build/premerge-results"
mkdir -p "$results/logs"
# Results of an earlier run must not pass for this one's.
rm -f "$results"/*.xml "$results"/logs/*.log "$results/summary.txt"

# junit_single FILE SUITE CASE OK(0|1) MESSAGE LOGFILE -- a one-test JUnit file, for steps
# that are not ctest runs (configure, build, canaries).
junit_single() {
  local file="$1" suite="$2" name="$3" ok="$4" msg="$5" log="$6" body=""
  if ((ok == 0)); then
    body="<failure message=\"$(sed 's/&/\&amp;/g; s/</\&lt;/g; s/"/\&quot;/g' <<< "$msg")\"><![CDATA[$(tail -n 200 "$log" 2>/dev/null | sed 's/]]>/]] >/g')]]></failure>"
  fi
  cat > "$file" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="$suite" tests="1" failures="$((ok == 0 ? 1 : 0))" errors="0" skipped="0">
  <testcase name="$name" classname="$suite">$body</testcase>
</testsuite>
EOF
}

declare -A cell build_cell
any_failed=0
t_all="$EPOCHSECONDS"
total_pass=0
total_fail=0

i=0
for p in "${presets[@]}"; do
  i=$((i + 1))
  dir="build/$p"
  say "($i/${#presets[@]}) $p: cmake --preset $p  (log: build/premerge-results/logs/$p.configure.log)"
  t0="$EPOCHSECONDS"
  if ! cmake --preset "$p" > "$results/logs/$p.configure.log" 2>&1; then
    tail -n 30 "$results/logs/$p.configure.log"
    say "$p: CONFIGURE FAILED"
    build_cell[$p]="CONFIG-FAIL"
    junit_single "$results/$p.build.xml" "$p.build" configure 0 "cmake --preset $p failed" "$results/logs/$p.configure.log"
    for l in "${test_labels[@]}"; do cell[$p.$l]="not run"; done
    any_failed=1
    continue
  fi
  say "$p: cmake --build $dir -j $jobs  (log: build/premerge-results/logs/$p.build.log)"
  : > "$results/logs/$p.build.log"
  for attempt in 1 2; do
    attempt_start="$(wc -l < "$results/logs/$p.build.log")"
    set +e
    # -k 0: build everything that builds, so one broken target still lets the rest be tested.
    cmake --build "$dir" -j "$jobs" -- -k 0 2>&1 | tee -a "$results/logs/$p.build.log" | while IFS= read -r line; do
      # Progress without the noise: every 25th ninja step, and every error.
      if [[ "$line" =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
        if ((BASH_REMATCH[1] > 0 && (BASH_REMATCH[1] % 25 == 0 || BASH_REMATCH[1] == BASH_REMATCH[2]))); then
          printf '    %s build [%s/%s]\n' "$p" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        fi
      elif [[ "$line" == FAILED:* || "$line" == *error:* ]]; then
        printf '    %s\n' "$line"
      fi
    done
    rc="${PIPESTATUS[0]}"
    set -e
    # One retry: a build tree shared with other builders (developer machines) can lose a race
    # on a library being relinked; a real compile error fails twice, and the retry is incremental.
    if ((rc == 0 || attempt == 2)); then break; fi
    say "$p: build failed (rc=$rc); retrying once (incremental)"
  done
  t1="$EPOCHSECONDS"
  if ((rc != 0)); then
    # Still run the tests: those whose executable did not build fail as "Not Run", the
    # others still tell whether the rest works.
    say "$p: BUILD FAILED (rc=$rc, $((t1 - t0))s); failed targets:"
    tail -n "+$((attempt_start + 1))" "$results/logs/$p.build.log" | grep -E '^FAILED: ' | sed 's/^/    /' || true
    build_cell[$p]="FAIL $((t1 - t0))s"
    junit_single "$results/$p.build.xml" "$p.build" build 0 "cmake --build $dir failed (rc=$rc)" "$results/logs/$p.build.log"
    any_failed=1
  else
    build_cell[$p]="ok $((t1 - t0))s"
    junit_single "$results/$p.build.xml" "$p.build" build 1 "" ""
    say "$p: configure+build ok in $((t1 - t0))s"
  fi

  for l in "${test_labels[@]}"; do
    n="$(ctest --test-dir "$dir" -N -L "^${l}\$" 2>/dev/null | sed -n 's/^Total Tests: *\([0-9]*\).*/\1/p')"
    if [[ -z "$n" || "$n" == 0 ]]; then
      cell[$p.$l]="n/a"
      say "$p/$l: n/a (no tests with this label)"
      continue
    fi
    log="$results/logs/$p.$l.log"
    xml="$results/$p.$l.xml"
    say "$p/$l: ctest -L ^$l\$ ($n tests, -j $jobs)  (log: build/premerge-results/logs/$p.$l.log)"
    t0="$EPOCHSECONDS"
    set +e
    ctest --test-dir "$dir" -L "^${l}\$" -j "$jobs" --no-tests=error --output-on-failure \
      --output-junit "$xml" > "$log" 2>&1
    rc=$?
    set -e
    dt=$((EPOCHSECONDS - t0))
    # ctest names every suite "(empty)" and uses the bare test name as class: make both say
    # which cell they come from, so that results from several files do not collide.
    if [[ -f "$xml" ]]; then
      sed -i -e "0,/<testsuite name=\"[^\"]*\"/s//<testsuite name=\"$p.$l\"/" \
             -e "s/classname=\"/classname=\"$p.$l./g" "$xml"
    fi
    n_fail=0
    if [[ "$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1)" =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
      n_fail="${BASH_REMATCH[1]}"
      n="${BASH_REMATCH[2]}"
    elif ((rc != 0)); then
      n_fail="$n"
    fi
    n_pass=$((n - n_fail))
    total_pass=$((total_pass + n_pass))
    total_fail=$((total_fail + n_fail))
    if ((rc == 0)); then
      cell[$p.$l]="pass $n ${dt}s"
      say "$p/$l: passed $n/$n in ${dt}s"
    else
      cell[$p.$l]="FAIL $n_fail/$n ${dt}s"
      any_failed=1
      say "$p/$l: FAILED ($n_fail of $n failed, rc=$rc, ${dt}s); failing tests:"
      sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^\s+[0-9]+ - ' | sed 's/^/    /' || true
      grep -E '^(==[0-9]+==ERROR|SUMMARY: |.*runtime error: |==== DISPATCH FUZZ BUG)' "$log" | head -n 10 | sed 's/^/    /' || true
    fi
  done
done

canary_cell="-"
if ((run_canary)); then
  if [[ -x ci/canaries.sh || -f ci/canaries.sh ]]; then
    say "canary: ci/canaries.sh --fast  (log: build/premerge-results/logs/canary.log)"
    t0="$EPOCHSECONDS"
    set +e
    bash ci/canaries.sh --fast > "$results/logs/canary.log" 2>&1
    rc=$?
    set -e
    dt=$((EPOCHSECONDS - t0))
    if ((rc == 0)); then
      canary_cell="pass ${dt}s"
      junit_single "$results/canary.xml" canary "ci/canaries.sh --fast" 1 "" ""
    else
      canary_cell="FAIL rc=$rc ${dt}s"
      any_failed=1
      tail -n 30 "$results/logs/canary.log" | sed 's/^/    /'
      junit_single "$results/canary.xml" canary "ci/canaries.sh --fast" 0 "ci/canaries.sh --fast exited $rc" "$results/logs/canary.log"
    fi
    say "canary: $canary_cell"
  else
    canary_cell="not present"
    say "canary: not present (no ci/canaries.sh)"
  fi
fi

{
  echo "ci/premerge.sh summary ($((EPOCHSECONDS - t_all))s total, jobs=$jobs)"
  printf '%-18s %-13s' preset build
  for l in "${test_labels[@]}"; do printf ' %-15s' "$l"; done
  echo
  for p in "${presets[@]}"; do
    printf '%-18s %-13s' "$p" "${build_cell[$p]}"
    for l in "${test_labels[@]}"; do printf ' %-15s' "${cell[$p.$l]}"; done
    echo
  done
  if ((run_canary)); then echo "canary: $canary_cell"; fi
  echo "tests: $total_pass passed, $total_fail failed; JUnit + logs: build/premerge-results/"
  if ((any_failed)); then echo "RESULT: FAILED"; else echo "RESULT: passed"; fi
} | tee "$results/summary.txt" | { echo; cat; }
exit "$any_failed"
