#!/usr/bin/env bash
# ci/test.sh -- THE test command (see README.md).
#
#   ci/test.sh [--presets a,b,c] [--fresh] [--no-setup]
#
# Runs ci/setup.sh, then `cmake --workflow --preset <p>` (configure, build,
# test; see CMakePresets.json) for each preset in turn, and prints a summary
# table. Exits non-zero if setup or any preset fails.
#
#   --presets a,b,c   workflow presets to run (default: the quick pre-merge set
#                     full-asan-ubsan,mobile-asan-ubsan,full-release)
#   --fresh           reconfigure from scratch (cmake --workflow --fresh)
#   --no-setup        skip ci/setup.sh (packages known to be present)
#
# Logs: build/ci-logs/<preset>.log; JUnit: build/<preset>/junit.xml.
set -euo pipefail
shopt -s lastpipe

cd "$(dirname "${BASH_SOURCE[0]}")/.."

presets_csv="full-asan-ubsan,mobile-asan-ubsan,full-release"
fresh=()
run_setup=1
while (($# > 0)); do
  case "$1" in
    --presets) presets_csv="${2:?--presets needs a comma-separated list}"; shift 2 ;;
    --presets=*) presets_csv="${1#--presets=}"; shift ;;
    --fresh) fresh=(--fresh); shift ;;
    --no-setup) run_setup=0; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
IFS=',' read -r -a presets <<< "$presets_csv"
if ((${#presets[@]} == 0)); then
  echo "ci/test.sh: no presets given" >&2
  exit 2
fi

say() { printf '==> [ci/test.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

if ((run_setup)); then
  say "ci/setup.sh"
  bash ci/setup.sh
fi

mkdir -p build/ci-logs
declare -A result build_s test_s tests_pass tests_fail
total_pass=0
total_fail=0
any_failed=0
t_all="$EPOCHSECONDS"

i=0
for p in "${presets[@]}"; do
  i=$((i + 1))
  log="build/ci-logs/$p.log"
  say "($i/${#presets[@]}) cmake --workflow --preset $p ${fresh[*]}  (log: $log)"
  t0="$EPOCHSECONDS"
  t_test=""
  n_pass=""
  n_fail=""
  set +e
  cmake --workflow --preset "$p" "${fresh[@]}" 2>&1 | tee "$log" | while IFS= read -r line; do
    printf '%s\n' "$line"
    case "$line" in
      *"Executing workflow step"*"test preset"*)
        t_test="$EPOCHSECONDS"
        say "$p: configure+build done in $((t_test - t0))s, testing" ;;
    esac
    if [[ "$line" =~ ^[0-9]+%\ tests\ passed,\ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
      n_fail="${BASH_REMATCH[1]}"
      n_pass=$((BASH_REMATCH[2] - BASH_REMATCH[1]))
    fi
  done
  rc="${PIPESTATUS[0]}"
  set -e
  t1="$EPOCHSECONDS"

  if [[ -n "$t_test" ]]; then
    build_s[$p]=$((t_test - t0))
    test_s[$p]=$((t1 - t_test))
  else
    build_s[$p]=$((t1 - t0))
    test_s[$p]="-"
  fi
  tests_pass[$p]="${n_pass:--}"
  tests_fail[$p]="${n_fail:--}"
  total_pass=$((total_pass + ${n_pass:-0}))
  total_fail=$((total_fail + ${n_fail:-0}))
  if ((rc == 0)); then
    result[$p]="passed"
  else
    result[$p]="FAILED(rc=$rc)"
    any_failed=1
  fi
  say "$p: ${result[$p]} (configure+build ${build_s[$p]}s, test ${test_s[$p]}s)"
done

echo
echo "ci/test.sh summary ($((EPOCHSECONDS - t_all))s total)"
printf '%-22s %-14s %10s %8s %8s %8s\n' preset result "build(s)" "test(s)" passed failed
for p in "${presets[@]}"; do
  printf '%-22s %-14s %10s %8s %8s %8s\n' "$p" "${result[$p]}" "${build_s[$p]}" "${test_s[$p]}" \
    "${tests_pass[$p]}" "${tests_fail[$p]}"
done
echo
if ((any_failed)); then
  echo "ci/test.sh: FAILED (see the logs in build/ci-logs/)"
fi
echo "tests: ${total_pass} passed, ${total_fail} failed"
exit "$any_failed"
