# shellcheck shell=bash
# ci/lib/nightly_engine.sh -- fuzzing engines for ci/nightly.sh (source it, don't run it).
#
# ci/nightly.sh only talks to an engine through these calls; the engine is picked by
# `--engine NAME` (engine_select NAME), and each call runs engine_<NAME>_<verb>:
#
#   engine_build BUILD_DIR LOG
#       after the preset in BUILD_DIR (a libFuzzer build) is built: build what the engine
#       fuzzes with, if that is something else.
#   engine_fuzz BIN SECONDS SEED ARTIFACT_PREFIX LOG TIMELINE EXTRA_FLAGS_NAME CORPUS_DIR...
#       fuzz for SECONDS from CORPUS_DIR... (the first one is the writable new-units folder);
#       BIN is the libFuzzer binary of the preset; EXTRA_FLAGS_NAME names an array of
#       libFuzzer flags (from fuzz/options/<target>.options and the dictionary). Failure inputs
#       go to ARTIFACT_PREFIX<kind>-<sha1>. Returns the engine's exit code (libFuzzer: 0 clean,
#       1 sanitizer report, 77 deadly signal/leak/oom, 70 timeout; harness-notes B5).
#   engine_artifacts LOG
#       the failure inputs one engine_fuzz run wrote (paths, one per line).
#   engine_restart_after_failure LOG
#       true if a restart after that failed run can find more (it got past its seeds, and
#       the engine stops at the first failure).
#   engine_merge BIN OUT_DIR LOG INPUT_DIR...
#       adds to OUT_DIR the inputs of INPUT_DIR... that add coverage (minimised set).
#   engine_minimize BIN INPUT OUTPUT SECONDS LOG
#       writes a smaller input that still fails to OUTPUT (returns non-zero if it could not).
#   engine_rerun_cmd BIN FILE
#       prints (NUL-separated) the command that runs FILE once, for stack.txt and repro.sh.
#
# Engines: libfuzzer, and aflpp (AFL++ fuzzes; its inputs are merged, re-run and minimised
# with the libFuzzer binaries of the same presets, which share the harness and sanitizers).
#
# Every call inherits the sanitizer environment of sanitizer_builds/env.sh from the caller.

NIGHTLY_ENGINES=(libfuzzer aflpp)
NIGHTLY_FUZZ_TIMEOUT=25      # -timeout (seconds per input), OSS-Fuzz's FUZZER_ARGS
NIGHTLY_RSS_LIMIT_MB=2560    # -rss_limit_mb, OSS-Fuzz's FUZZER_ARGS
_nightly_engine=""
_nightly_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

engine_select() {
  local e
  for e in "${NIGHTLY_ENGINES[@]}"; do
    if [[ "$1" == "$e" ]]; then
      _nightly_engine="$1"
      return 0
    fi
  done
  echo "unknown engine '$1' (available: ${NIGHTLY_ENGINES[*]})" >&2
  return 1
}

engine_build()      { "engine_${_nightly_engine}_build" "$@"; }
engine_fuzz()       { "engine_${_nightly_engine}_fuzz" "$@"; }
engine_artifacts()  { "engine_${_nightly_engine}_artifacts" "$@"; }
engine_restart_after_failure() { "engine_${_nightly_engine}_restart_after_failure" "$@"; }
engine_merge()      { "engine_${_nightly_engine}_merge" "$@"; }
engine_minimize()   { "engine_${_nightly_engine}_minimize" "$@"; }
engine_rerun_cmd()  { "engine_${_nightly_engine}_rerun_cmd" "$@"; }

# engine_options_flags OPTIONS_FILE DICT_FILE -> prints one engine flag per line.
# OPTIONS_FILE is OSS-Fuzz's <target>.options (INI; the [libfuzzer] section, `name = value`);
# a relative `dict = x.dict` is taken from fuzz/dictionaries/. DICT_FILE is used when the
# options name no dictionary. Missing files are fine.
engine_options_flags() {
  local file="$1" dict="$2" section="" line name value have_dict=0
  if [[ -f "$file" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do
      line="${line%%[#;]*}"
      line="${line#"${line%%[![:space:]]*}"}"
      line="${line%"${line##*[![:space:]]}"}"
      [[ -z "$line" ]] && continue
      if [[ "$line" =~ ^\[(.*)\]$ ]]; then
        section="${BASH_REMATCH[1]}"
        continue
      fi
      [[ "$section" == "libfuzzer" ]] || continue
      if [[ "$line" =~ ^([A-Za-z_]+)[[:space:]]*=[[:space:]]*(.*)$ ]]; then
        name="${BASH_REMATCH[1]}"
        value="${BASH_REMATCH[2]}"
        if [[ "$name" == "dict" ]]; then
          have_dict=1
          [[ "$value" == /* ]] || value="$(dirname "$dict")/$value"
        fi
        printf -- '-%s=%s\n' "$name" "$value"
      fi
    done < "$file"
  fi
  if ((!have_dict)) && [[ -f "$dict" ]]; then
    printf -- '-dict=%s\n' "$dict"
  fi
}

# ---------------------------------------------------------------- libFuzzer

engine_libfuzzer_build() { return 0; }

engine_libfuzzer_artifacts() { sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1"; }

# A failure before INITED is in the seeds: it comes back on every restart.
engine_libfuzzer_restart_after_failure() { grep -qE '^#[0-9]+[[:space:]]+INITED ' "$1"; }

engine_libfuzzer_fuzz() {
  local bin="$1" seconds="$2" seed="$3" prefix="$4" log="$5" timeline="$6"
  local -n _extra="$7"
  shift 7
  # Defaults first, then the target's options (which may override them), then the flags
  # this job owns.
  python3 "$_nightly_lib_dir/nightly_run.py" --log "$log" --timeline "$timeline" \
    --kill-after "$((seconds + NIGHTLY_FUZZ_TIMEOUT + 60))" -- \
    "$bin" -timeout="$NIGHTLY_FUZZ_TIMEOUT" -rss_limit_mb="$NIGHTLY_RSS_LIMIT_MB" \
    "${_extra[@]}" \
    -max_total_time="$seconds" -seed="$seed" -print_final_stats=1 \
    -artifact_prefix="$prefix" "$@"
}

engine_libfuzzer_merge() {
  local bin="$1" out="$2" log="$3"
  shift 3
  # -merge=1 runs in a child and restarts it after a crashing input, so one bad input
  # never loses the merge; the control file lets it resume.
  local rc=0
  timeout --kill-after=10 1800 "$bin" -merge=1 -timeout="$NIGHTLY_FUZZ_TIMEOUT" \
    -rss_limit_mb="$NIGHTLY_RSS_LIMIT_MB" -merge_control_file="$out.merge-control" \
    "$out" "$@" > "$log" 2>&1 || rc=$?
  rm -f "$out.merge-control"
  return "$rc"
}

engine_libfuzzer_minimize() {
  local bin="$1" input="$2" output="$3" seconds="$4" log="$5"
  # -minimize_crash=1 keeps shrinking while the input still crashes; -runs bounds each
  # step, -max_total_time the whole loop. dedup_token_length=3 (asan.options) lets it check
  # that the crash stays the same one. The outer timeout is a backstop.
  env -u DISPATCH_FUZZ_TRACE timeout --kill-after=10 "$((seconds + 30))" \
    "$bin" -minimize_crash=1 -runs=100000 -max_total_time="$seconds" \
    -timeout="$NIGHTLY_FUZZ_TIMEOUT" -rss_limit_mb="$NIGHTLY_RSS_LIMIT_MB" \
    -exact_artifact_path="$output" "$input" > "$log" 2>&1 || true
  [[ -s "$output" ]]
}

engine_libfuzzer_rerun_cmd() {
  printf '%s\0' "$1" -timeout="$NIGHTLY_FUZZ_TIMEOUT" -rss_limit_mb="$NIGHTLY_RSS_LIMIT_MB" "$2"
}

# ---------------------------------------------------------------- AFL++
# afl-fuzz runs a second build of each preset: the same sources, flavour and canary, built by
# fuzz/oss_fuzz_build.sh with afl-clang-fast++ and AFL++'s libFuzzer-compatible driver, into
# build/nightly-aflpp/<preset build dir>/. Sanitizers as in the fuzz presets: ASan, UBSan
# (undefined + array-bounds) and the library assertions (the build script adds those).
NIGHTLY_AFLPP_ROOT="build/nightly-aflpp"
NIGHTLY_AFLPP_CXXFLAGS="-O1 -g -fno-omit-frame-pointer -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address,undefined,array-bounds -fno-sanitize-recover=all"
NIGHTLY_AFLPP_DRIVER="/usr/lib/afl/libAFLDriver.a"

_aflpp_dir_of() { echo "$NIGHTLY_AFLPP_ROOT/$(basename "$1")"; }

engine_aflpp_build() {
  local dir="$1" log="$2" adir value src args=()
  adir="$(_aflpp_dir_of "$dir")"
  command -v afl-fuzz > /dev/null && [[ -f "$NIGHTLY_AFLPP_DRIVER" ]] || {
    echo "AFL++ not installed (afl-fuzz, $NIGHTLY_AFLPP_DRIVER): ci/setup.sh" >> "$log"
    return 1
  }
  value="$(sed -n "s/^DISPATCH_FLAVOUR:[A-Z]*=//p" "$dir/CMakeCache.txt")"
  [[ -n "$value" ]] && args+=("-DDISPATCH_FLAVOUR=$value")
  # The tree's own sources: a canary tree is a patched copy (ci/canaries.sh --tree).
  src="$(sed -n "s/^CMAKE_HOME_DIRECTORY:INTERNAL=//p" "$dir/CMakeCache.txt")"
  echo "AFL++ build of $dir into $adir (${args[*]})" >> "$log"
  mkdir -p "$adir"
  CC=afl-clang-fast CXX=afl-clang-fast++ CFLAGS="$NIGHTLY_AFLPP_CXXFLAGS" CXXFLAGS="$NIGHTLY_AFLPP_CXXFLAGS" \
    LIB_FUZZING_ENGINE="$NIGHTLY_AFLPP_DRIVER" WORK="$adir" OUT="$adir/out" AFL_QUIET=1 \
    CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}" CMAKE_BUILD_PARALLEL_LEVEL="${jobs:-2}" \
    "${src:-.}/fuzz/oss_fuzz_build.sh" "${args[@]}" >> "$log" 2>&1
}

engine_aflpp_fuzz() {
  local bin="$1" seconds="$2" seed="$3" prefix="$4" log="$5" timeline="$6"
  local -n _extra="$7"
  shift 7
  local t abin flag dict="" max_len="" timeout_s="$NIGHTLY_FUZZ_TIMEOUT"
  t="$(basename "$bin")"
  abin="$(_aflpp_dir_of "$(dirname "$(dirname "$bin")")")/out/$t"
  # The libFuzzer flags of the target's options that AFL++ has an equivalent for.
  for flag in "${_extra[@]}"; do
    case "$flag" in
      -dict=*) dict="${flag#-dict=}" ;;
      -max_len=*) max_len="${flag#-max_len=}" ;;
      -timeout=*) timeout_s="${flag#-timeout=}" ;;
    esac
  done
  python3 "$_nightly_lib_dir/nightly_aflpp.py" --bin "$abin" --seconds "$seconds" --seed "$seed" \
    --artifact-prefix "$prefix" --log "$log" --timeline "$timeline" --work "${log%.log}.afl" \
    ${dict:+--dict "$dict"} ${max_len:+--max-len "$max_len"} --timeout-ms "$((timeout_s * 1000))" \
    -- "$@"
}

engine_aflpp_artifacts() { sed -n 's/^aflpp: artifact \(.*\)$/\1/p' "$1"; }

# afl-fuzz keeps fuzzing after a failure until its time is up: a restart would only repeat it.
engine_aflpp_restart_after_failure() { return 1; }

engine_aflpp_merge() { engine_libfuzzer_merge "$@"; }
engine_aflpp_minimize() { engine_libfuzzer_minimize "$@"; }
engine_aflpp_rerun_cmd() { engine_libfuzzer_rerun_cmd "$@"; }
