# shellcheck shell=bash
# ci/lib/canary_layers.sh -- source it (from ci/canaries.sh). One function per detection layer;
# each runs one target of a built canary tree and appends ONE row to $CANARY_ROWS:
#
#   canary  flavour  setup  layer  target  result  detail  seconds  how
#
#   result   caught | escaped | luck (fuzz: caught in fewer than 4 of 5 seeds) | error
#   detail   fuzz: "k/5 seeds"; others: ctest's status of the test ("ctest: Failed", "exit 0")
#   seconds  time to detection (fuzz: median over the catching seeds), or the time spent
#   how      ci/lib/canary_classify.sh's reading of the output ("-" when escaped)
#
# Needs: CANARY_ROWS, CANARY_LOGS (a folder), CANARY_JOBS, repo root as cwd, and
# sanitizer_builds/env.sh sourced (fuzz runs use its ASAN_OPTIONS etc.; ctest sets its own).

# The 60 s rule: a fuzzer must catch a canary within 60 s in at least 4 of 5 seeds.
CANARY_FUZZ_SECONDS=60
CANARY_FUZZ_SEEDS=5
CANARY_FUZZ_NEEDED=4

# _canary_since T0 -> seconds since T0 (date +%s.%N), one decimal
_canary_since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", t1 - t0 }'; }

# _canary_row CANARY FLAVOUR SETUP LAYER TARGET RESULT DETAIL SECONDS HOW
_canary_row() { local IFS=$'\t'; echo "$*" >> "$CANARY_ROWS"; }

# _canary_ctest DIR REGEX LOG TIMEOUT -> exit code of ctest; wall seconds in _canary_secs
_canary_ctest() {
  local dir="$1" regex="$2" log="$3" timeout="$4" t0 rc
  t0="$(date +%s.%N)"
  set +e
  nice ctest --test-dir "$dir" -R "$regex" --no-tests=error --output-on-failure \
    --timeout "$timeout" > "$log" 2>&1
  rc=$?
  set -e
  _canary_secs="$(_canary_since "$t0")"
  return "$rc"
}

# canary_run_ctest CANARY FLAVOUR SETUP LAYER TARGET DIR REGEX TIMEOUT
# unit, property and corpus layers: the target's own ctest entries (sanitizer env included).
canary_run_ctest() {
  local c="$1" f="$2" s="$3" layer="$4" t="$5" dir="$6" regex="$7" timeout="$8" rc=0 status
  local log="$CANARY_LOGS/$c-$f-$s/$layer-$t.log"
  mkdir -p "${log%/*}"
  _canary_ctest "$dir" "$regex" "$log" "$timeout" || rc=$?
  if ((rc == 0)); then
    _canary_row "$c" "$f" "$s" "$layer" "$t" escaped "exit 0" "$_canary_secs" "-"
  elif grep -q 'No tests were found\|Not Run\|Could not find executable' "$log"; then
    _canary_row "$c" "$f" "$s" "$layer" "$t" error "not built" "$_canary_secs" "test missing: see $log"
  else
    # ctest's own status of the test(s): Failed, Timeout, Exception, ...
    status="$(sed -n 's/.*Test *#[0-9]*: .*\*\*\*\([A-Za-z]*\).*/\1/p' "$log" | sort -u | paste -sd+)"
    _canary_row "$c" "$f" "$s" "$layer" "$t" caught "ctest: ${status:-exit $rc}" "$_canary_secs" "$(canary_classify "$log")"
  fi
}

# _canary_fuzz_flags TARGET -> libFuzzer flags from fuzz/options/<target>.options ([libfuzzer]
# key = value lines; dict names a file in fuzz/dictionaries/).
_canary_fuzz_flags() {
  local t="$1" line key value
  [[ -f "fuzz/options/$t.options" ]] || return 0
  while IFS= read -r line; do
    [[ "$line" =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*([^[:space:]]+) ]] || continue
    key="${BASH_REMATCH[1]}" value="${BASH_REMATCH[2]}"
    [[ "$key" == dict ]] && value="$PWD/fuzz/dictionaries/$value"
    printf -- '-%s=%s\n' "$key" "$value"
  done < "fuzz/options/$t.options"
}

# _canary_fuzz_seed BIN TARGET SEED WORK -> writes WORK/seed<S>.{log,rc,secs}
_canary_fuzz_seed() {
  local bin="$1" t="$2" seed="$3" work="$4" t0 rc flags
  local scratch="$work/seed$seed"
  rm -rf "$scratch"
  mkdir -p "$scratch/corpus" "$scratch/artifacts"
  mapfile -t flags < <(_canary_fuzz_flags "$t")
  t0="$(date +%s.%N)"
  set +e
  # New units go to a scratch corpus; the committed one (second folder) is only read.
  nice "$bin" -seed="$seed" -max_total_time="$CANARY_FUZZ_SECONDS" "${flags[@]}" \
    -rss_limit_mb=2048 -artifact_prefix="$scratch/artifacts/" \
    "$scratch/corpus" "$PWD/fuzz/corpus/$t" > "$work/seed$seed.log" 2>&1
  rc=$?
  set -e
  echo "$rc" > "$work/seed$seed.rc"
  _canary_since "$t0" > "$work/seed$seed.secs"
  rm -rf "$scratch/corpus"  # thousands of files per seed; the log and artifacts stay
}

# canary_run_fuzz CANARY FLAVOUR SETUP TARGET BIN: seeds 1..5 from the committed corpus,
# CANARY_JOBS at a time.
canary_run_fuzz() {
  local c="$1" f="$2" s="$3" t="$4" bin="$5" seed caught=0 how="" result secs
  local work="$CANARY_LOGS/$c-$f-$s/fuzz-$t"
  mkdir -p "$work"
  if [[ ! -x "$bin" ]]; then
    _canary_row "$c" "$f" "$s" fuzz "$t" error "not built" 0 "missing $bin"
    return
  fi
  for seed in $(seq 1 "$CANARY_FUZZ_SEEDS"); do
    while (($(jobs -rp | wc -l) >= CANARY_JOBS)); do wait -n || true; done
    _canary_fuzz_seed "$bin" "$t" "$seed" "$work" &
  done
  wait
  local times=()
  for seed in $(seq 1 "$CANARY_FUZZ_SEEDS"); do
    if [[ "$(cat "$work/seed$seed.rc")" != 0 ]]; then
      caught=$((caught + 1))
      times+=("$(cat "$work/seed$seed.secs")")
      [[ -n "$how" ]] || how="$(canary_classify "$work/seed$seed.log")"
    fi
  done
  if ((caught == 0)); then
    result=escaped secs="$CANARY_FUZZ_SECONDS" how="-"
  else
    secs="$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    if ((caught >= CANARY_FUZZ_NEEDED)); then result=caught; else result=luck; fi
  fi
  _canary_row "$c" "$f" "$s" fuzz "$t" "$result" "$caught/$CANARY_FUZZ_SEEDS seeds" "$secs" "$how"
}
