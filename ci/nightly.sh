#!/usr/bin/env bash
# ci/nightly.sh -- THE main job: the fuzz campaign (see README.md).
#
#   ci/nightly.sh [--budget SECONDS] [--jobs N] [--targets a,b] [--engine libfuzzer|aflpp]
#                 [--no-property]
#
# Builds the presets full-fuzz and mobile-fuzz, fuzzes every target x flavour from the
# committed corpus (fuzz/corpus/, fuzz/regressions/, fuzz/options/, fuzz/dictionaries/),
# runs the property suite with large case counts under full-asan-ubsan, then merges new
# coverage into a corpus ready to commit, minimises and buckets every failure by
# dispatcher state, and writes report.md + report.html. With no arguments: a short run.
#
#   --budget SECONDS  wall-clock seconds (default 300): 3/4 fuzzing, split over the
#                     target x flavour campaigns, 1/4 the large property run (all of it
#                     fuzzing with --no-property). Builds, corpus merge, triage and the
#                     property calibration come on top. Property cases scale with it
#                     (max_success 2000 at 300 s, fitted per test into its share).
#   --jobs N          parallel fuzzer processes and build jobs (default: nproc)
#   --targets a,b     only these fuzz targets (default: every one the build lists)
#   --engine NAME     fuzzing engine: libfuzzer (default) or aflpp. aflpp: AFL++ (afl-fuzz)
#                     fuzzes the same targets x flavours from the same corpora, built a
#                     second time with afl-clang-fast++ and AFL++'s driver into
#                     build/nightly-aflpp/<preset>/ (fuzz/oss_fuzz_build.sh; same sanitizers).
#                     Its crashes and hangs become artifacts like libFuzzer's; merge, triage,
#                     minimisation and repro.sh use the libFuzzer builds, so the report and
#                     the failure buckets look the same. Runs do not restart after a failure
#                     (afl-fuzz keeps going); cov in the report is AFL++'s edges_found.
#   --no-property     skip the property suite
#
# Output: build/nightly/<UTC time>/ (and build/nightly/latest): report.md, report.html,
# corpus/<target>/, failures/<bucket>/, artifacts/, logs/. Exit code 0 only if no
# failure bucket exists and every step worked; 2 for bad arguments.
#
# Hidden options (for checking the harness, never for the real nightly):
#   --canary NAME     build every preset into build/<preset>-canary-NAME/ from the tree with
#                     ci/canaries/NAME.patch applied (a planted bug; ci/canaries.sh --tree NAME)
#   --presets a,b     fuzz presets to use (default full-fuzz,mobile-fuzz)
#   --property-preset P   preset of the property suite (default full-asan-ubsan)
set -euo pipefail
shopt -s nullglob

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=ci/lib/nightly_engine.sh
source ci/lib/nightly_engine.sh

budget=300
jobs="$(nproc)"
targets_csv=""
engine="libfuzzer"
canary=""
presets_csv="full-fuzz,mobile-fuzz"
property_preset="full-asan-ubsan"
run_property=1
usage_error() { echo "ci/nightly.sh: $*" >&2; exit 2; }
while (($# > 0)); do
  case "$1" in
    --budget) budget="${2:?--budget needs seconds}"; shift 2 ;;
    --budget=*) budget="${1#*=}"; shift ;;
    --jobs|-j) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --targets) targets_csv="${targets_csv:+$targets_csv,}${2:?--targets needs names}"; shift 2 ;;
    --targets=*) targets_csv="${targets_csv:+$targets_csv,}${1#*=}"; shift ;;
    --engine) engine="${2:?--engine needs a name}"; shift 2 ;;
    --engine=*) engine="${1#*=}"; shift ;;
    --canary) canary="${2:?--canary needs a name}"; shift 2 ;;
    --canary=*) canary="${1#*=}"; shift ;;
    --presets) presets_csv="${2:?--presets needs a list}"; shift 2 ;;
    --presets=*) presets_csv="${1#*=}"; shift ;;
    --property-preset) property_preset="${2:?--property-preset needs a preset}"; shift 2 ;;
    --no-property) run_property=0; shift ;;
    -h|--help) sed -n '2,/^# Hidden options/{/^# Hidden options/d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1' (try --help)" ;;
  esac
done
if ! [[ "$budget" =~ ^[0-9]+$ ]] || ((budget < 10)); then usage_error "--budget must be a number of seconds >= 10"; fi
if ! [[ "$jobs" =~ ^[0-9]+$ ]] || ((jobs < 1)); then usage_error "--jobs must be a positive number"; fi
engine_select "$engine" || exit 2
if [[ -n "$canary" ]]; then
  [[ "$canary" =~ ^[a-z0-9_]+$ && -f "ci/canaries/$canary.patch" ]] ||
    usage_error "unknown canary '$canary' (the canaries are ci/canaries/*.patch)"
fi
IFS=',' read -r -a presets <<< "$presets_csv"
targets_csv="${targets_csv// /,}"
IFS=',' read -r -a wanted_targets <<< "$targets_csv"

say() { printf '==> [ci/nightly.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
t_all="$EPOCHSECONDS"

# ---------------------------------------------------------------- run folder
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p build/nightly
name="$stamp"
n=1
while ! mkdir "build/nightly/$name" 2>/dev/null; do
  n=$((n + 1))
  name="$stamp-$n"
done
run="build/nightly/$name"
ln -sfn "$name" build/nightly/latest
mkdir -p "$run"/{logs,state,artifacts,new-units,corpus,failures,triage}
say "run folder $run (budget ${budget}s, jobs $jobs, engine $engine${canary:+, CANARY $canary})"

steps_tsv="$run/state/steps.tsv"
runs_tsv="$run/state/runs.tsv"
: > "$steps_tsv"
: > "$runs_tsv"
broken=0
step_names=()
declare -A step_result step_secs step_detail
# record_step NAME RESULT SECONDS DETAIL  (RESULT: ok | FAILED | skipped | not present | ...)
record_step() {
  step_names+=("$1")
  step_result[$1]="$2"
  step_secs[$1]="$3"
  step_detail[$1]="$4"
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$steps_tsv"
  if [[ "$2" == FAILED* ]]; then broken=1; fi
}

{
  printf 'started\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'budget\t%s\njobs\t%s\nengine\t%s\ncanary\t%s\n' "$budget" "$jobs" "$engine" "${canary:-none}"
  printf 'git\t%s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  printf 'host\t%s (%s cores)\n' "$(hostname)" "$(nproc)"
  printf 'command\t%s\n' "ci/nightly.sh --budget $budget --jobs $jobs${targets_csv:+ --targets $targets_csv} --engine $engine$( ((run_property)) || echo ' --no-property')${canary:+ --canary $canary}$([[ "$presets_csv" == full-fuzz,mobile-fuzz ]] || echo " --presets $presets_csv")"
} > "$run/state/meta.tsv"

# Sanitizer run-time environment for every fuzzer, merge, minimisation and re-run.
# shellcheck source=sanitizer_builds/env.sh
source sanitizer_builds/env.sh
unset DISPATCH_FUZZ_TRACE

build_dir_of() { if [[ -n "$canary" ]]; then echo "build/$1-canary-$canary"; else echo "build/$1"; fi; }
flavour_of() { case "$1" in mobile-*) echo mobile ;; full-*) echo full ;; *) echo "-" ;; esac; }

# configure_preset PRESET LOG: configures build_dir_of(PRESET) unless it is already
# configured (ninja re-runs cmake itself when a CMakeLists.txt changes).
configure_preset() {
  local p="$1" log="$2" dir
  dir="$(build_dir_of "$p")"
  if [[ -f "$dir/build.ninja" && -f "$dir/CMakeCache.txt" ]]; then
    echo "reusing configured $dir" >> "$log"
    return 0
  fi
  if [[ -n "$canary" ]]; then
    local src
    src="$(ci/canaries.sh --tree "$canary" 2>> "$log")" || return 1
    cmake -S "$src" --preset "$p" -B "$PWD/$dir" >> "$log" 2>&1
  else
    cmake --preset "$p" >> "$log" 2>&1
  fi
}

# list_fuzz_targets DIR LOG -> the target names, one per line.
list_fuzz_targets() {
  local dir="$1" log="$2" out line names=""
  if out="$(cmake --build "$dir" --target print_fuzz_targets 2>&1)"; then
    printf '%s\n' "$out" >> "$log"
    while IFS= read -r line; do
      [[ "$line" =~ ^[A-Za-z0-9_-]+([[:space:]]+[A-Za-z0-9_-]+)*$ ]] && names="$line"
    done <<< "$out"
  fi
  if [[ -z "$names" ]]; then
    # Fallback: the list in fuzz/CMakeLists.txt.
    names="$(sed -n 's/^[[:space:]]*set(DISPATCH_FUZZ_TARGETS[[:space:]]\+\([A-Za-z0-9_ -]*\))$/\1/p' fuzz/CMakeLists.txt | head -1)"
    echo "print_fuzz_targets gave nothing; fuzz/CMakeLists.txt lists: $names" >> "$log"
  fi
  for line in $names; do printf '%s\n' "$line"; done
}

# ---------------------------------------------------------------- 1. builds
declare -A preset_ok preset_targets
all_targets=()
for p in "${presets[@]}"; do
  dir="$(build_dir_of "$p")"
  log="$run/logs/build-$p.log"
  t0="$EPOCHSECONDS"
  say "build $p in $dir (log: $log)"
  if ! configure_preset "$p" "$log"; then
    record_step "build $p" "FAILED" "$((EPOCHSECONDS - t0))" "configure failed, see logs/build-$p.log"
    say "build $p: configure FAILED"
    tail -n 20 "$log" | sed 's/^/    /'
    continue
  fi
  mapfile -t listed < <(list_fuzz_targets "$dir" "$log")
  chosen=()
  if ((${#wanted_targets[@]} > 0)); then
    for t in "${wanted_targets[@]}"; do
      [[ -z "$t" ]] && continue
      if [[ " ${listed[*]} " == *" $t "* ]]; then
        chosen+=("$t")
      else
        usage_error "unknown fuzz target '$t' (the build lists: ${listed[*]})"
      fi
    done
  else
    chosen=("${listed[@]}")
  fi
  if ((${#chosen[@]} == 0)); then
    record_step "build $p" "FAILED" "$((EPOCHSECONDS - t0))" "no fuzz targets listed"
    continue
  fi
  rc=0
  cmake --build "$dir" -j "$jobs" --target "${chosen[@]}" -- -k 0 >> "$log" 2>&1 || rc=$?
  built=()
  failed_targets=()
  if ((rc == 0)); then
    built=("${chosen[@]}")
  else
    # Which ones broke? (a quick no-op for those that built)
    for t in "${chosen[@]}"; do
      if cmake --build "$dir" --target "$t" >> "$log" 2>&1; then built+=("$t"); else failed_targets+=("$t"); fi
    done
  fi
  secs="$((EPOCHSECONDS - t0))"
  if ((${#failed_targets[@]} > 0)); then
    record_step "build $p" "FAILED" "$secs" "built: ${built[*]:-none}; failed: ${failed_targets[*]}"
    say "build $p: FAILED for ${failed_targets[*]} (${secs}s)"
    grep -E 'error|FAILED' "$log" | head -n 20 | sed 's/^/    /' || true
  else
    record_step "build $p" "ok" "$secs" "${built[*]}"
    say "build $p: ok (${secs}s): ${built[*]}"
  fi
  # What the engine fuzzes with, when that is not this libFuzzer build (AFL++).
  if ((${#built[@]} > 0)) && [[ "$engine" != libfuzzer ]]; then
    t0="$EPOCHSECONDS"
    if engine_build "$dir" "$log"; then
      record_step "build $p ($engine)" "ok" "$((EPOCHSECONDS - t0))" "$engine build of ${built[*]}"
    else
      record_step "build $p ($engine)" "FAILED" "$((EPOCHSECONDS - t0))" "see logs/build-$p.log"
      say "build $p ($engine): FAILED"
      tail -n 20 "$log" | sed 's/^/    /'
      built=()
    fi
  fi
  if ((${#built[@]} > 0)); then
    preset_ok[$p]=1
    preset_targets[$p]="${built[*]}"
    for t in "${built[@]}"; do
      [[ " ${all_targets[*]} " == *" $t "* ]] || all_targets+=("$t")
    done
  fi
done

# ---------------------------------------------------------------- 2. fuzzing
campaigns=()
for p in "${presets[@]}"; do
  [[ -n "${preset_ok[$p]:-}" ]] || continue
  for t in ${preset_targets[$p]}; do campaigns+=("$p $t"); done
done
ncamp="${#campaigns[@]}"
for c in "${campaigns[@]}"; do printf '%s\t%s\n' "${c% *}" "${c#* }"; done > "$run/state/plan.tsv"
max_runs_per_worker=5

# fuzz_worker PRESET TARGET WORKER SECONDS: one worker slot of a campaign. After a failure
# libFuzzer stops; the worker restarts it (new seed, same new-units folder) while time is
# left, so one campaign can find more than one bug -- unless the same artifact comes back
# (a crashing seed), or after max_runs_per_worker runs.
fuzz_worker() {
  local p="$1" t="$2" w="$3" seconds="$4"
  local bin newdir artdir logdir t0 r=0 rc remaining seed log timeline left secs artifacts seen=""
  bin="$(build_dir_of "$p")/fuzz/$t"
  newdir="$run/new-units/$p/$t"
  artdir="$run/artifacts/$p/$t"
  logdir="$run/logs/fuzz/$p/$t"
  mkdir -p "$newdir" "$artdir" "$logdir"
  local corpora=("$newdir")
  [[ -d "fuzz/corpus/$t" ]] && corpora+=("fuzz/corpus/$t")
  [[ -d "fuzz/regressions/$t" ]] && corpora+=("fuzz/regressions/$t")
  local extra=()
  # shellcheck disable=SC2034  # passed to engine_fuzz by name
  mapfile -t extra < <(engine_options_flags "fuzz/options/$t.options" "fuzz/dictionaries/$t.dict")
  t0="$EPOCHSECONDS"
  while :; do
    r=$((r + 1))
    remaining=$((seconds - (EPOCHSECONDS - t0)))
    if ((r > 1 && remaining < 5)); then break; fi
    ((remaining < 1)) && remaining=1
    seed=$(((t0 * 7919 + w * 104729 + r * 1299709 + RANDOM) % 2147483647 + 1))
    log="$logdir/w$w-r$r.log"
    timeline="$logdir/w$w-r$r.timeline.tsv"
    secs="$EPOCHSECONDS"
    rc=0
    engine_fuzz "$bin" "$remaining" "$seed" "$artdir/" "$log" "$timeline" extra "${corpora[@]}" || rc=$?
    secs=$((EPOCHSECONDS - secs))
    artifacts="$(engine_artifacts "$log" | grep -v '/slow-unit-' | tr '\n' ' ' || true)"
    artifacts="${artifacts% }"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$t" "$w" "$r" "$seed" "$rc" "$secs" \
      "$log" "$timeline" "$artifacts" >> "$runs_tsv"
    # shellcheck disable=SC2086  # a list of paths without spaces
    say "fuzz $p/$t worker $w run $r: exit $rc after ${secs}s${artifacts:+ -> $(basename -a $artifacts | tr '\n' ' ')}"
    ((rc == 0)) && break
    [[ -z "$artifacts" ]] && break      # failed without an artifact: broken, not a finding
    engine_restart_after_failure "$log" || break
    for left in $artifacts; do
      [[ " $seen " == *" $(basename "$left") "* ]] && return 0
      seen+=" $(basename "$left")"
    done
    ((r >= max_runs_per_worker)) && break
  done
  return 0
}

# The budget: a quarter for the large property run (when on), the rest for fuzzing.
prop_secs=0
if ((run_property)); then
  prop_secs=$((budget / 4))
fi
fuzz_budget=$((budget - prop_secs))
fuzz_secs=0
if ((ncamp == 0)); then
  record_step "fuzz" "FAILED" 0 "nothing to fuzz (no preset built)"
else
  # Worker slots: every campaign gets at least one; spare slots go to the first campaigns.
  # More campaigns than slots: run them in waves and split the budget over the waves.
  declare -A workers
  if ((jobs >= ncamp)); then
    waves=1
    for i in "${!campaigns[@]}"; do
      workers[$i]=$((jobs / ncamp + (i < jobs % ncamp ? 1 : 0)))
    done
  else
    waves=$(((ncamp + jobs - 1) / jobs))
    for i in "${!campaigns[@]}"; do workers[$i]=1; done
  fi
  # A libFuzzer run takes 5-7 s more than -max_total_time (start-up, final stats, the leak
  # check at exit); keep the waves inside the budget.
  per_run=$((fuzz_budget / waves - 7))
  ((per_run < 5)) && per_run=5
  say "fuzz: $ncamp campaigns (${all_targets[*]} x ${presets[*]}), ${fuzz_budget}s: $jobs slots, $waves wave(s) of ${per_run}s"
  tasks=()
  for i in "${!campaigns[@]}"; do
    for ((w = 1; w <= workers[$i]; w++)); do tasks+=("${campaigns[$i]} $w"); done
  done
  t0="$EPOCHSECONDS"
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
  running=0
  for task in "${tasks[@]}"; do
    read -r p t w <<< "$task"
    if ((running >= jobs)); then
      wait -n || true
      running=$((running - 1))
    fi
    fuzz_worker "$p" "$t" "$w" "$per_run" &
    pids+=("$!")
    running=$((running + 1))
  done
  wait || true
  trap - EXIT
  fuzz_secs=$((EPOCHSECONDS - t0))
  n_art="$(find "$run/artifacts" -type f ! -name 'slow-unit-*' | wc -l)"
  # A run that failed without leaving an artifact is broken (binary missing, bad flag in an
  # options file, killed), not a finding.
  broken_runs="$(awk -F'\t' '$6 != 0 && $10 == "" { printf "%s%s/%s w%s r%s (exit %s)", sep, $1, $2, $3, $4, $6; sep = ", " }' "$runs_tsv")"
  if [[ -n "$broken_runs" ]]; then
    record_step "fuzz" "FAILED" "$fuzz_secs" "runs that failed without an artifact: $broken_runs (see logs/fuzz/)"
  else
    record_step "fuzz" "ok" "$fuzz_secs" "$ncamp campaigns, ${#tasks[@]} workers x ${per_run}s, $n_art failure artifacts"
  fi
  say "fuzz: done in ${fuzz_secs}s, $n_art failure artifacts"
fi

# ---------------------------------------------------------------- 3. corpus merge
corpus_tsv="$run/state/corpus.tsv"
: > "$corpus_tsv"
t0="$EPOCHSECONDS"
merge_failed=()
for t in "${all_targets[@]}"; do
  out="$run/corpus/$t"
  mkdir -p "$out"
  inputs=()
  new_units=0
  for d in "$run"/new-units/*/"$t"; do
    c="$(find "$d" -type f | wc -l)"
    new_units=$((new_units + c))
    ((c > 0)) && inputs+=("$d")
  done
  committed=0
  if [[ -d "fuzz/corpus/$t" ]]; then
    committed="$(find "fuzz/corpus/$t" -type f | wc -l)"
    ((committed > 0)) && inputs+=("fuzz/corpus/$t")
  fi
  status="ok"
  if ((${#inputs[@]} > 0)); then
    # Merge with every flavour's binary in turn: the second adds what only its build covers.
    for p in "${presets[@]}"; do
      [[ " ${preset_targets[$p]:-} " == *" $t "* ]] || continue
      if ! engine_merge "$(build_dir_of "$p")/fuzz/$t" "$out" "$run/logs/merge-$t-$p.log" "${inputs[@]}"; then
        status="FAILED"
        merge_failed+=("$t/$p")
      fi
    done
  fi
  merged="$(find "$out" -type f | wc -l)"
  printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$committed" "$new_units" "$merged" "$status" >> "$corpus_tsv"
  say "merge $t: committed $committed + $new_units new units -> $merged after -merge=1 ($status)"
done
if ((${#merge_failed[@]} > 0)); then
  record_step "corpus merge" "FAILED" "$((EPOCHSECONDS - t0))" "merge failed for ${merge_failed[*]} (logs/merge-*.log)"
else
  record_step "corpus merge" "ok" "$((EPOCHSECONDS - t0))" "${#all_targets[@]} targets -> $run/corpus/"
fi

# ---------------------------------------------------------------- 4. triage
# Every artifact is re-run once with DISPATCH_FUZZ_TRACE=1 and classified; artifacts with
# the same bucket key share one failures/<bucket>/ folder, whose representative (the
# smallest input) is minimised, decoded and re-run for the symbolized stack.
t0="$EPOCHSECONDS"
declare -A bucket_members bucket_rep bucket_rep_size
bucket_ids=()
minimize_secs=$((budget / 4))
((minimize_secs < 20)) && minimize_secs=20
((minimize_secs > 120)) && minimize_secs=120

# rerun BIN FILE OUT: runs FILE once with the sanitizer env + DISPATCH_FUZZ_TRACE=1, writes
# a header and the whole output to OUT.
rerun() {
  local bin="$1" file="$2" out="$3" cmd=() rc=0
  mapfile -d '' -t cmd < <(engine_rerun_cmd "$bin" "$file")
  {
    echo "# re-run of $file"
    echo "# command: DISPATCH_FUZZ_TRACE=1 ${cmd[*]}"
    echo "# environment: sanitizer_builds/env.sh (ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS)"
    echo
  } > "$out"
  DISPATCH_FUZZ_TRACE=1 timeout --kill-after=10 $((NIGHTLY_FUZZ_TIMEOUT + 60)) "${cmd[@]}" >> "$out" 2>&1 || rc=$?
  printf '\n# exit code %s\n' "$rc" >> "$out"
}

kind_of_artifact() {
  case "$(basename "$1")" in
    leak-*) echo leak ;; timeout-*) echo timeout ;; oom-*) echo oom ;; *) echo crash ;;
  esac
}

n_artifacts=0
for art in "$run"/artifacts/*/*/*; do
  [[ -f "$art" ]] || continue
  base="$(basename "$art")"
  case "$base" in slow-unit-*|minimized-from-*) continue ;; esac
  t="$(basename "$(dirname "$art")")"
  p="$(basename "$(dirname "$(dirname "$art")")")"
  bin="$(build_dir_of "$p")/fuzz/$t"
  tdir="$run/triage/$p/$t"
  mkdir -p "$tdir"
  rerun "$bin" "$art" "$tdir/$base.rerun.txt"
  logs=("$run"/logs/fuzz/"$p"/"$t"/w*-r*.log)
  log_args=()
  for l in "${logs[@]}"; do log_args+=(--report-from-log "$l"); done
  id="$(python3 ci/lib/nightly_triage.py classify --report "$tdir/$base.rerun.txt" "${log_args[@]}" \
        --artifact "$art" --artifact-kind "$(kind_of_artifact "$art")" \
        --preset-flavour "$(flavour_of "$p")" --preset "$p" --target "$t" --out "$tdir/$base.json")"
  n_artifacts=$((n_artifacts + 1))
  size="$(stat -c %s "$art")"
  if [[ -z "${bucket_members[$id]:-}" ]]; then
    bucket_ids+=("$id")
    bucket_rep[$id]="$art"
    bucket_rep_size[$id]="$size"
  elif ((size < bucket_rep_size[$id])); then
    bucket_rep[$id]="$art"
    bucket_rep_size[$id]="$size"
  fi
  bucket_members[$id]+="$tdir/$base.json "
done

for id in "${bucket_ids[@]}"; do
  art="${bucket_rep[$id]}"
  base="$(basename "$art")"
  t="$(basename "$(dirname "$art")")"
  p="$(basename "$(dirname "$(dirname "$art")")")"
  bin="$(build_dir_of "$p")/fuzz/$t"
  fdir="$run/failures/$id"
  mkdir -p "$fdir"
  cp "$art" "$fdir/input"
  kind="$(kind_of_artifact "$art")"
  rep_json="$run/triage/$p/$t/$base.json"
  reproduced="$(python3 ci/lib/nightly_triage.py field "$rep_json" reproduced)"
  notes=()
  flav="$(flavour_of "$p")"
  # classify_file FILE OUT_JSON -> bucket id of a re-run's output
  classify_file() {
    python3 ci/lib/nightly_triage.py classify --report "$1" --artifact-kind "$kind" \
      --preset-flavour "$flav" --preset "$p" --target "$t" --out "$2"
  }
  how=""
  stack_done=0   # stack.txt already holds the re-run of the final minimized file
  if [[ "$kind" == crash || "$kind" == leak ]] && [[ "$reproduced" == true ]]; then
    say "triage $id: minimising $base (${bucket_rep_size[$id]} bytes, up to ${minimize_secs}s)"
    if engine_minimize "$bin" "$fdir/input" "$fdir/minimized" "$minimize_secs" "$fdir/minimize.log"; then
      rerun "$bin" "$fdir/minimized" "$fdir/stack.txt"
      min_id="$(classify_file "$fdir/stack.txt" "$fdir/minimized.classification.json")"
      if [[ "$min_id" == "$id" ]]; then
        how="libFuzzer -minimize_crash"
        stack_done=1
      else
        # libFuzzer's minimiser checks only the sanitizer's DEDUP_TOKEN, the same for every
        # abort() (harness reports, library assertions): it drifts to other bugs
        # (harness-notes (c)3). Shrink again, keeping the bucket.
        notes+=("libFuzzer -minimize_crash drifted to bucket $min_id; used the bucket-preserving ddmin instead")
      fi
    else
      notes+=("libFuzzer -minimize_crash produced nothing; used the bucket-preserving ddmin")
    fi
    if [[ -z "$how" ]]; then
      mapfile -d '' -t dd_cmd < <(engine_rerun_cmd "$bin" "@@")
      if python3 ci/lib/nightly_triage.py ddmin --input "$fdir/input" --output "$fdir/minimized" \
           --bucket "$id" --seconds "$minimize_secs" --artifact-kind "$kind" --preset-flavour "$flav" \
           -- "${dd_cmd[@]}" >> "$fdir/minimize.log" 2>&1; then
        how="bucket-preserving ddmin"
      else
        notes+=("ddmin could not reproduce the bucket; minimized = input")
      fi
    fi
  elif [[ "$reproduced" != true ]]; then
    notes+=("the input did not fail again when re-run; not minimised")
  else
    notes+=("$kind: kept the original input (not minimised)")
  fi
  if [[ -n "$how" ]]; then
    ((stack_done)) || rerun "$bin" "$fdir/minimized" "$fdir/stack.txt"
  else
    # minimized = input: the triage re-run of that very file is its stack (a timeout re-run
    # costs -timeout seconds; no need to pay twice).
    cp "$fdir/input" "$fdir/minimized"
    { echo "# minimized is a copy of input: $art"; cat "$run/triage/$p/$t/$base.rerun.txt"; } > "$fdir/stack.txt"
  fi
  min_id="$(classify_file "$fdir/stack.txt" "$fdir/minimized.classification.json")"
  if [[ -n "$how" && "$min_id" != "$id" ]]; then
    notes+=("the minimized input landed in bucket $min_id on its final re-run; minimized = input")
    how=""
    cp "$fdir/input" "$fdir/minimized"
    rerun "$bin" "$fdir/minimized" "$fdir/stack.txt"
  fi
  if [[ "$reproduced" != true ]]; then
    {
      echo
      echo "# The input did not fail again. The report printed while fuzzing:"
      python3 - "$rep_json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1])).get("fuzz_log_report", ""))
PY
    } >> "$fdir/stack.txt"
  fi
  "$bin" --print "$fdir/minimized" > "$fdir/trace.txt" 2>&1 || true
  mapfile -d '' -t raw_cmd < <(engine_rerun_cmd "$bin" "$fdir/minimized")
  {
    echo '#!/usr/bin/env bash'
    echo "# Reproduce failure bucket $id"
    echo "#   key: $(python3 ci/lib/nightly_triage.py field "$rep_json" key_string)"
    echo "#   found by $t in $(build_dir_of "$p") (ci/nightly.sh run $name)"
    echo "# The one-line repro (ci/repro.sh picks the preset and the sanitizer env):"
    echo "#   ci/repro.sh $fdir/minimized"
    echo "# The raw command line, from the repository root:"
    echo "#   source sanitizer_builds/env.sh && DISPATCH_FUZZ_TRACE=1 ${raw_cmd[*]}"
    echo 'set -euo pipefail'
    # shellcheck disable=SC2016  # expands when repro.sh runs
    echo 'cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.."  # build/nightly/<run>/failures/<bucket>/ -> repository'
    echo "if [[ -x ci/repro.sh ]]; then exec ci/repro.sh $fdir/minimized; fi"
    echo "source sanitizer_builds/env.sh && DISPATCH_FUZZ_TRACE=1 exec ${raw_cmd[*]}"
  } > "$fdir/repro.sh"
  chmod +x "$fdir/repro.sh"
  others=()
  for j in ${bucket_members[$id]}; do [[ "$j" == "$rep_json" ]] || others+=("$j"); done
  python3 ci/lib/nightly_triage.py bucket-json --first "$rep_json" --classification "${others[@]}" \
    --out "$fdir/bucket.json" \
    --set "bucket_id=$id" --set "preset=$p" --set "target=$t" --set "build_dir=$(build_dir_of "$p")" \
    --set "input_size=$(stat -c %s "$fdir/input")" --set "minimized_size=$(stat -c %s "$fdir/minimized")" \
    --set "minimized_by=${how:-not minimised}" --set "repro=ci/repro.sh $fdir/minimized" \
    --set "raw_command=source sanitizer_builds/env.sh && DISPATCH_FUZZ_TRACE=1 ${raw_cmd[*]}" \
    --notes "${notes[@]}"
  say "failure $id: $(python3 ci/lib/nightly_triage.py field "$fdir/bucket.json" key_string) ($(stat -c %s "$fdir/input") -> $(stat -c %s "$fdir/minimized") bytes)"
done
n_buckets="${#bucket_ids[@]}"
if ((n_buckets > 0)); then
  record_step "triage" "FAILURES" "$((EPOCHSECONDS - t0))" "$n_artifacts artifacts -> $n_buckets buckets (failures/)"
else
  record_step "triage" "ok" "$((EPOCHSECONDS - t0))" "$n_artifacts artifacts"
fi

# ---------------------------------------------------------------- 5. property suite
# RapidCheck properties (ctest label `property`) under the property preset, with case counts
# scaled by the budget (2000 at 300 s) and fitted per test into prop_secs: a calibration
# run (1 and 25 cases) gives each test's start-up time and time per case
# (ci/lib/nightly_property.py).
property_json="$run/state/property.json"
property_tsv="$run/state/property.tsv"
: > "$property_tsv"
if ((run_property)); then
  t0="$EPOCHSECONDS"
  pdir="$(build_dir_of "$property_preset")"
  plog="$run/logs/property.log"
  max_success=$((2000 * budget / 300))
  ((max_success < 100)) && max_success=100
  say "property suite: $property_preset in $pdir, up to max_success=$max_success in ${prop_secs}s (log: $plog)"
  presult=""
  pdetail=""
  reproduce=""
  if ! configure_preset "$property_preset" "$plog"; then
    presult="FAILED"
    pdetail="configure failed"
  else
    ntests="$(ctest --test-dir "$pdir" -N -L property 2>>"$plog" | sed -n 's/^Total Tests: \([0-9]\+\)$/\1/p')"
    if [[ "${ntests:-0}" == 0 ]]; then
      presult="not present"
      pdetail="no test has the label property yet"
    else
      mapfile -t ptargets < <(ctest --test-dir "$pdir" -N -L property --show-only=json-v1 2>>"$plog" |
        python3 -c 'import json,sys,os
# ctest names no command for an executable not built yet; dispatch_add_test names the
# executable after the test.
for t in json.load(sys.stdin).get("tests", []):
    cmd = t.get("command") or []
    print(os.path.basename(cmd[0]) if cmd else t["name"])' | sort -u)
      say "property suite: building ${#ptargets[@]} test executables (${ptargets[*]})"
      if ! cmake --build "$pdir" -j "$jobs" --target "${ptargets[@]}" >> "$plog" 2>&1; then
        presult="FAILED"
        pdetail="build failed (logs/property.log)"
      else
        say "property suite: running $ntests tests"
        rc=0
        pdetail="$(python3 ci/lib/nightly_property.py --build-dir "$pdir" --target-cases "$max_success" \
          --seconds "$prop_secs" --jobs "$jobs" --log-dir "$run/logs/property" --out "$property_json" \
          2>>"$plog")" || rc=$?
        case "$rc" in
          0) presult="ok" ;;
          3) presult="ok (slow)" ;;
          *) presult="FAILED" ;;
        esac
        echo "$pdetail" >> "$plog"
        reproduce="$(cat "$run"/logs/property/*.log 2>/dev/null | grep -o 'RC_PARAMS="reproduce=[^"]*"' | sort -u | tr '\n' ' ' || true)"
      fi
    fi
  fi
  printf 'result\t%s\ndetail\t%s\nmax_success\t%s\nseconds\t%s\npreset\t%s\nbuild_dir\t%s\nreproduce\t%s\n' \
    "$presult" "$pdetail" "$max_success" "$prop_secs" "$property_preset" "$pdir" "${reproduce% }" > "$property_tsv"
  record_step "property suite" "$presult" "$((EPOCHSECONDS - t0))" "$pdetail${reproduce:+; $reproduce}"
  say "property suite: $presult ($pdetail)"
else
  printf 'result\tskipped\ndetail\t--no-property\n' > "$property_tsv"
  record_step "property suite" "skipped" 0 "--no-property"
fi

# ---------------------------------------------------------------- 6. report
printf 'finished\t%s\nseconds\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$((EPOCHSECONDS - t_all))" >> "$run/state/meta.tsv"
if ! python3 ci/lib/nightly_report.py --run "$run" --repo "$repo" > "$run/logs/report.log" 2>&1; then
  record_step "report" "FAILED" 0 "see logs/report.log"
  cat "$run/logs/report.log" >&2
fi

# ---------------------------------------------------------------- summary
echo
echo "ci/nightly.sh summary ($((EPOCHSECONDS - t_all))s total, fuzzing ${fuzz_secs}s; run $run)"
printf '%-30s %-12s %8s  %s\n' step result "time(s)" detail
for s in "${step_names[@]}"; do
  printf '%-30s %-12s %8s  %s\n' "$s" "${step_result[$s]}" "${step_secs[$s]}" "${step_detail[$s]}"
done
if [[ -s "$run/state/campaigns.tsv" ]]; then
  echo
  printf '%-32s %5s %10s %8s %9s %11s %8s\n' "campaign (preset/target)" runs execs "exec/s" cov "corpus" failures
  while IFS=$'\t' read -r c nruns execs eps cov corp nfail; do
    printf '%-32s %5s %10s %8s %9s %11s %8s\n' "$c" "$nruns" "$execs" "$eps" "$cov" "$corp" "$nfail"
  done < "$run/state/campaigns.tsv"
fi
echo
if ((n_buckets > 0)); then
  echo "failures: $n_buckets unique (bucket key: kind | action | dispatch key | flavour)"
  for id in "${bucket_ids[@]}"; do
    printf '  %s\n      %s\n      repro: ci/repro.sh %s/failures/%s/minimized\n' "$id" \
      "$(python3 ci/lib/nightly_triage.py field "$run/failures/$id/bucket.json" key_string)" "$run" "$id"
  done
else
  echo "failures: none"
fi
while IFS=$'\t' read -r t committed new_units merged status; do
  if ((new_units > 0)) || ((merged != committed)); then
    echo "corpus $t: $committed committed, $merged after merge; to commit it:"
    echo "    rm -rf fuzz/corpus/$t && mkdir -p fuzz/corpus && cp -r $run/corpus/$t fuzz/corpus/$t"
  fi
done < "$corpus_tsv"
[[ -n "$canary" ]] && echo "(CANARY build $canary: do not commit this corpus)"
echo
echo "report: $run/report.html"
echo "        $run/report.md"
status=0
((n_buckets > 0)) && status=1
((broken)) && status=1
if ((status)); then
  echo "ci/nightly.sh: FAILED ($n_buckets failure buckets$( ((broken)) && echo ', broken steps: see the table'))"
fi
exit "$status"
