#!/usr/bin/env bash
# ci/replay.sh -- replay every committed fuzz input under every preset, fast.
#
#   ci/replay.sh [--presets a,b,c] [--targets a,b] [--jobs N] [--timeout S] [--input-timeout S]
#                [--input-root DIR]... [--canary NAME]
#
# For each preset: `cmake --preset P` (reuses build/P), builds ONLY the fuzz targets
# (`print_fuzz_targets` names them), and runs each target once over its directories
# fuzz/corpus/<target>/ and fuzz/regressions/<target>/ under the sanitizer environment
# (sanitizer_builds/env.sh): replay binaries take the directories directly, libFuzzer
# binaries (fuzz presets) as `-runs=0 <scratch> <dirs>`. Reports inputs/s per target x preset.
# A failing input is named (from the replay main's "Running: <file>" line, or from
# libFuzzer's crash-/leak-/timeout-<sha1> artifact); the rest of the inputs are then replayed
# without it, so one run names every failing file. Exits non-zero on any failure.
#
#   --presets a,b,c   presets (default: every configure preset in CMakePresets.json; all
#                     of them build the targets, with libFuzzer or with the replay main)
#   --targets a,b     only these fuzz targets (default: all that print_fuzz_targets names)
#   --jobs N          build parallelism (default: nproc)
#   --timeout S       wall-clock limit per binary run (default 900)
#   --input-timeout S limit per input (default 25, libFuzzer's -timeout in the nightly): the
#                     replay main is killed when no new "Running:" line came for S seconds,
#                     and the input that was running is reported as hanging
#   --input-root DIR  replay DIR/<target>/ instead of fuzz/corpus/ and fuzz/regressions/
#                     (repeatable; e.g. build/nightly/latest/corpus for a merged corpus)
#   --canary NAME     replay against build/<preset>-canary-NAME (configured with
#                     the tree with ci/canaries/NAME.patch applied, as ci/nightly.sh --canary does):
#                     does the committed corpus catch that planted bug? (It should FAIL.)
#
# Logs: build/replay-results/logs/<preset>.<target>.log; failing files: build/replay-results/failures.txt
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

presets_csv=""
targets_csv=""
jobs="$(nproc 2>/dev/null || echo 2)"
run_timeout=900
input_timeout=25
max_failures=10   # per preset x target; more than that is one bug, not ten
input_roots=()
canary=""
while (($# > 0)); do
  case "$1" in
    --presets) presets_csv="${2:?--presets needs a comma-separated list}"; shift 2 ;;
    --presets=*) presets_csv="${1#--presets=}"; shift ;;
    --targets) targets_csv="${2:?--targets needs a comma-separated list}"; shift 2 ;;
    --targets=*) targets_csv="${1#--targets=}"; shift ;;
    --jobs|-j) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    --timeout) run_timeout="${2:?--timeout needs seconds}"; shift 2 ;;
    --timeout=*) run_timeout="${1#--timeout=}"; shift ;;
    --input-timeout) input_timeout="${2:?--input-timeout needs seconds}"; shift 2 ;;
    --input-timeout=*) input_timeout="${1#--input-timeout=}"; shift ;;
    --canary) canary="${2:?--canary needs a name}"; shift 2 ;;
    --canary=*) canary="${1#--canary=}"; shift ;;
    --input-root) input_roots+=("${2:?--input-root needs a folder}"); shift 2 ;;
    --input-root=*) input_roots+=("${1#--input-root=}"); shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/replay.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done

known_presets="$(cmake --list-presets=configure 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')"
if [[ -z "$presets_csv" ]]; then
  presets_csv="$(paste -sd, <<< "$known_presets")"
fi
IFS=',' read -r -a presets <<< "$presets_csv"
for p in "${presets[@]}"; do
  if ! grep -qx -- "$p" <<< "$known_presets"; then
    echo "ci/replay.sh: unknown preset '$p' (known: $(tr '\n' ' ' <<< "$known_presets"))" >&2
    exit 2
  fi
done
if [[ -n "$canary" ]] && ! [[ "$canary" =~ ^[a-z0-9_]+$ && -f "ci/canaries/$canary.patch" ]]; then
  echo "ci/replay.sh: unknown canary '$canary' (the canaries are ci/canaries/*.patch)" >&2
  exit 2
fi
want_targets=()
((${#input_roots[@]} > 0)) || input_roots=(fuzz/corpus fuzz/regressions)
for r in "${input_roots[@]}"; do
  [[ -d "$r" ]] || { echo "ci/replay.sh: --input-root $r is not a folder" >&2; exit 2; }
done
[[ -n "$targets_csv" ]] && IFS=',' read -r -a want_targets <<< "$targets_csv"

say() { printf '==> [ci/replay.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# shellcheck source=sanitizer_builds/env.sh
source sanitizer_builds/env.sh

results="$root/build/replay-results"
mkdir -p "$results/logs"
rm -f "$results"/logs/*.log "$results/failures.txt"
: > "$results/failures.txt"
work="$(mktemp -d "$root/build/replay-results/work.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The input files of one target, in the order the replay main runs them (per directory, sorted).
list_inputs() {
  local t="$1" r
  for r in "${input_roots[@]}"; do
    [[ -d "$r/$t" ]] || continue
    find "$r/$t" -maxdepth 1 -type f ! -name '.*' -print | LC_ALL=C sort
  done
}

# headline LOG -> the first line that says what went wrong
headline() {
  grep -m1 -E '^(==[0-9]+==ERROR: |==== DISPATCH FUZZ BUG|.*runtime error: |.*Assertion .* failed|ThreadSanitizer: |WARNING: ThreadSanitizer|==[0-9]+== ERROR: libFuzzer|terminate called|.*LeakSanitizer)' "$1" \
    | cut -c1-160 || true
}

declare -A row_inputs row_time row_rate row_result
rows=()
any_failed=0
t_all="$EPOCHSECONDS"

# watched LIBFUZZER OUT CMD...: runs CMD (stdout and stderr to OUT) and kills it when it runs
# longer than run_timeout, or (replay main) shows no new "Running:" line for input_timeout
# seconds (libFuzzer enforces -timeout itself). Returns CMD's exit code, 124 when killed.
watched() {
  local lf="$1" out="$2" pid start last count=0 c
  shift 2
  "$@" > "$out" 2>&1 &
  pid=$!
  start="$EPOCHSECONDS"
  last="$start"
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.5
    if ((! lf)); then
      c="$(grep -c '^Running: ' "$out" 2>/dev/null || true)"
      if [[ "$c" != "$count" ]]; then count="$c"; last="$EPOCHSECONDS"; fi
    else
      last="$EPOCHSECONDS"
    fi
    if ((EPOCHSECONDS - start > run_timeout || EPOCHSECONDS - last > input_timeout)); then
      kill -TERM "$pid" 2>/dev/null || true
      sleep 2
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      return 124
    fi
  done
  wait "$pid"
}

# run_target P T BIN LIBFUZZER(0|1): replays every input of T; appends to failures.txt.
run_target() {
  local p="$1" t="$2" bin="$3" libfuzzer="$4"
  local log="$results/logs/$p.$t.log" key="$p $t"
  local -a inputs=() remaining=() args=() failed=() ran=() next=() dirs=()
  local -A resume_map=() done_set=()
  local attempt=0 t0 t1 rc culprit first_time="" first_elapsed what art sha f name n
  local scratch="$work/$p.$t"
  mapfile -t inputs < <(list_inputs "$t")
  rows+=("$key")
  row_inputs[$key]="${#inputs[@]}"
  if ((${#inputs[@]} == 0)); then
    row_time[$key]="-"; row_rate[$key]="-"; row_result[$key]="no inputs"
    say "$p/$t: no inputs in ${input_roots[*]} (/$t)"
    return 0
  fi
  for f in "${input_roots[@]}"; do
    [[ -n "$(find "$f/$t" -maxdepth 1 -type f ! -name '.*' -print -quit 2>/dev/null)" ]] && dirs+=("$f/$t")
  done
  remaining=("${inputs[@]}")
  : > "$log"
  t0="$(date +%s.%N)"
  while :; do
    attempt=$((attempt + 1))
    rm -rf "$scratch"; mkdir -p "$scratch/new" "$scratch/artifacts" "$scratch/in"
    resume_map=()
    if ((attempt == 1)); then
      args=("${dirs[@]}")
    else
      # Replay what is left (without the failing files) from one folder of hard links/copies,
      # named <n>.<basename> so that they keep their order and map back to their source.
      n=0
      for f in "${remaining[@]}"; do
        name="$(printf '%06d' "$n").$(basename "$f")"
        ln "$f" "$scratch/in/$name" 2>/dev/null || cp "$f" "$scratch/in/$name"
        resume_map["$scratch/in/$name"]="$f"
        n=$((n + 1))
      done
      args=("$scratch/in")
    fi
    if ((libfuzzer)); then
      # The scratch folder comes first: libFuzzer writes new units only into the first one,
      # so the source tree is never touched.
      args=(-runs=0 "-timeout=$input_timeout" -rss_limit_mb=2560 "-artifact_prefix=$scratch/artifacts/" "$scratch/new" "${args[@]}")
    fi
    printf '### attempt %d: %s %s\n' "$attempt" "$bin" "${args[*]}" >> "$log"
    set +e
    watched "$libfuzzer" "$scratch/out" "$bin" "${args[@]}"
    rc=$?
    set -e
    cat "$scratch/out" >> "$log"
    [[ -z "$first_time" ]] && first_time="$(date +%s.%N)"
    ((rc == 0)) && break

    # Which input failed?
    culprit=""
    ran=()
    if ((libfuzzer)); then
      art="$(find "$scratch/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | head -n1)"
      if [[ -n "$art" ]]; then
        sha="$(sha1sum < "$art" | cut -d' ' -f1)"
        for f in "${remaining[@]}"; do
          if [[ "$(sha1sum < "$f" | cut -d' ' -f1)" == "$sha" ]]; then culprit="$f"; break; fi
        done
      fi
    else
      mapfile -t ran < <(sed -n 's/^Running: //p' "$scratch/out")
      if ((${#ran[@]} > 0)) && ! grep -q '^Executed [0-9]* inputs' "$scratch/out"; then
        culprit="${ran[-1]}"
        [[ -n "${resume_map[$culprit]:-}" ]] && culprit="${resume_map[$culprit]}"
      fi
    fi
    if [[ -z "$culprit" ]]; then
      # No name in the output (e.g. a leak reported at exit): run the inputs one at a time.
      for f in "${remaining[@]}"; do
        if ! watched "$libfuzzer" "$scratch/one" "$bin" "$f"; then
          culprit="$f"
          { echo "### one by one: $f fails"; cat "$scratch/one"; } >> "$log"
          cp "$scratch/one" "$scratch/out"
          break
        fi
      done
    fi
    if ((rc == 124)); then
      what="hangs (killed: more than ${input_timeout}s on one input, or ${run_timeout}s in all)"
    elif ((libfuzzer)) && [[ "$(basename "${art:-}")" == timeout-* ]]; then
      what="timeout (libFuzzer -timeout=${input_timeout})"
    else
      what="$(headline "$scratch/out")"
    fi
    [[ -z "$what" ]] && what="exit code $rc"
    if [[ -z "$culprit" ]]; then
      printf '%s\t%s\t%s\t%s\n' "$p" "$t" "(input not identified)" "$what" >> "$results/failures.txt"
      failed+=("?")
      say "$p/$t: FAILED (rc=$rc) and no single input reproduces it: $what"
      break
    fi
    failed+=("$culprit")
    printf '%s\t%s\t%s\t%s\n' "$p" "$t" "$culprit" "$what" >> "$results/failures.txt"
    say "$p/$t: FAILED on $culprit: $what"
    # Keep what has not run yet (replay main: everything after the culprit; libFuzzer: all
    # inputs but the failing ones).
    next=()
    done_set=()
    if ((! libfuzzer)); then
      for f in "${ran[@]}"; do done_set["${resume_map[$f]:-$f}"]=1; done
    fi
    for f in "${failed[@]}"; do done_set["$f"]=1; done
    for f in "${remaining[@]}"; do [[ -n "${done_set[$f]:-}" ]] || next+=("$f"); done
    remaining=("${next[@]}")
    if ((${#remaining[@]} == 0)); then break; fi
    if ((${#failed[@]} >= max_failures)); then
      say "$p/$t: $max_failures failing inputs; not replaying the other ${#remaining[@]}"
      break
    fi
  done
  t1="$(date +%s.%N)"
  first_elapsed="$(awk -v a="$t0" -v b="$first_time" 'BEGIN { printf "%.2f", b - a }')"
  row_time[$key]="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
  # Speed of the first pass over the directories (startup included): what CI pays.
  if ((${#failed[@]} == 0)); then
    row_rate[$key]="$(awk -v n="${#inputs[@]}" -v s="$first_elapsed" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
    row_result[$key]="passed"
    say "$p/$t: ${#inputs[@]} inputs passed in ${row_time[$key]}s (${row_rate[$key]} inputs/s)"
  else
    row_rate[$key]="-"
    row_result[$key]="FAILED (${#failed[@]})"
    any_failed=1
  fi
}

i=0
for p in "${presets[@]}"; do
  i=$((i + 1))
  dir="build/$p"
  cfg=(cmake --preset "$p")
  if [[ -n "$canary" ]]; then
    dir="build/$p-canary-$canary"
    canary_src="$(ci/canaries.sh --tree "$canary")" || exit 1
    cfg=(cmake -S "$canary_src" --preset "$p" -B "$PWD/$dir")
  fi
  say "($i/${#presets[@]}) $p: ${cfg[*]}"
  if ! "${cfg[@]}" > "$results/logs/$p.configure.log" 2>&1; then
    tail -n 20 "$results/logs/$p.configure.log"
    say "$p: CONFIGURE FAILED"
    rows+=("$p -"); row_inputs["$p -"]="-"; row_time["$p -"]="-"; row_rate["$p -"]="-"; row_result["$p -"]="CONFIG-FAIL"
    any_failed=1
    continue
  fi
  if ! cmake --build "$dir" --target print_fuzz_targets > "$results/logs/$p.targets.log" 2>&1; then
    say "$p: builds no fuzz targets (no print_fuzz_targets); skipped"
    continue
  fi
  read -r -a targets <<< "$(grep -v '^\[' "$results/logs/$p.targets.log" | grep -E '^[A-Za-z0-9_ -]+$' | tail -n1)"
  if ((${#want_targets[@]} > 0)); then
    sel=()
    for t in "${targets[@]}"; do
      for w in "${want_targets[@]}"; do [[ "$t" == "$w" ]] && sel+=("$t"); done
    done
    targets=("${sel[@]}")
  fi
  if ((${#targets[@]} == 0)); then
    say "$p: no fuzz targets selected; skipped"
    continue
  fi
  export LLVM_PROFILE_FILE="$root/$dir/profraw/replay-%m.profraw"
  libfuzzer=0
  grep -q '^DISPATCH_FUZZ:BOOL=ON' "$dir/CMakeCache.txt" && libfuzzer=1
  kind="replay main"; ((libfuzzer)) && kind="libFuzzer"
  say "$p: building ${targets[*]} ($kind)"
  t0="$EPOCHSECONDS"
  if ! cmake --build "$dir" -j "$jobs" --target "${targets[@]}" > "$results/logs/$p.build.log" 2>&1; then
    grep -E '^(FAILED:|.*error:)' "$results/logs/$p.build.log" | head -n 20 | sed 's/^/    /' || true
    say "$p: BUILD FAILED (log: build/replay-results/logs/$p.build.log)"
    for t in "${targets[@]}"; do
      rows+=("$p $t"); row_inputs["$p $t"]="-"; row_time["$p $t"]="-"; row_rate["$p $t"]="-"; row_result["$p $t"]="BUILD-FAIL"
    done
    any_failed=1
    continue
  fi
  say "$p: built in $((EPOCHSECONDS - t0))s"
  for t in "${targets[@]}"; do
    run_target "$p" "$t" "$dir/fuzz/$t" "$libfuzzer"
  done
done

# Corpus folders without a target are a mistake (a renamed target leaves its seeds unreplayed).
for r in "${input_roots[@]}"; do
  for d in "$r"/*/; do
    [[ -d "$d" ]] || continue
    t="$(basename "$d")"
    if ! printf '%s\n' "${rows[@]}" | grep -q " $t\$"; then
      [[ ${#want_targets[@]} -gt 0 ]] && continue
      say "warning: $r/$t has no fuzz target of that name in any replayed preset"
    fi
  done
done

echo
echo "ci/replay.sh summary ($((EPOCHSECONDS - t_all))s total${canary:+; CANARY builds: $canary})"
printf '%-18s %-22s %8s %9s %10s  %s\n' preset target inputs "time(s)" "inputs/s" result
for r in "${rows[@]}"; do
  printf '%-18s %-22s %8s %9s %10s  %s\n' "${r%% *}" "${r#* }" "${row_inputs[$r]}" "${row_time[$r]}" \
    "${row_rate[$r]}" "${row_result[$r]}"
done
if [[ -s "$results/failures.txt" ]]; then
  echo
  echo "failing inputs (preset, target, file, what; also in build/replay-results/failures.txt):"
  while IFS=$'\t' read -r fp ft ff fw; do
    echo "  FAILED $fp $ft $ff"
    echo "         $fw"
    echo "         reproduce: ci/repro.sh $ff --preset $fp${canary:+ --canary $canary}"
  done < "$results/failures.txt"
fi
echo
if ((any_failed)); then echo "RESULT: FAILED"; else echo "RESULT: passed"; fi
exit "$any_failed"
