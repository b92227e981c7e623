#!/usr/bin/env bash
# ci/repro.sh -- from a failing fuzz input to understanding, in one command.
#
#   ci/repro.sh [options] <artifact>
#
# <artifact> is a failing input file, e.g.
#   build/nightly/<run>/artifacts/<preset>/<target>/crash-<sha1>   (preset and target from the path)
#   build/<preset>/fuzz/smoke/<target>/artifacts/crash-<sha1>      (that build tree is used)
#   fuzz/regressions/<target>/<sha1>                               (target from the path)
# or a bucket folder build/nightly/<run>/failures/<id>/ (its bucket.json names the input,
# preset and target). When the path names no target, every fuzz target is tried until one fails.
#
# Steps: builds the target in the matching preset (default full-asan-ubsan, whose binaries
# use the replay main), reruns the input under the sanitizers (sanitizer_builds/env.sh) with
# DISPATCH_FUZZ_TRACE=1 and a symbolized stack trace, prints the decoded action sequence
# (`<target> --print`), then writes
#   fuzz/regressions/<target>/<sha1 of the input>          a copy of the input
#   fuzz/regression_tests/<target>_<sha1:12>_test.cpp      a GoogleTest replaying it (the Action
#                                                          list spelt out for trace targets)
#   fuzz/regression_tests/CMakeLists.txt                   its dispatch_add_test() line
# and builds and runs that test in the same build tree (it must fail while the bug is in).
#
#   --preset P        preset to build and run (default: from the path, else full-asan-ubsan)
#   --target T        fuzz target (default: from the path, else try each)
#   --canary NAME     plant canary NAME: uses build/<preset>-canary-<NAME> (configured on first
#                     use from the tree with ci/canaries/NAME.patch applied: ci/canaries.sh --tree)
#   --build-dir DIR   use this build tree (configured from --preset if it does not exist)
#   --no-write        only reproduce and print; write nothing
#   --force-write     write the test and the input even if the input does not fail
#   --jobs N          build parallelism (default: nproc)
#
# Exit code: 0 reproduced (and written), 3 the input did not fail, 2 usage, 1 other errors.
# Logs: build/repro/<sha1:12>-<build tree>/{run.log,print.txt,cpp.txt,test-run.log}.
set -euo pipefail

start_dir="$PWD"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

preset=""
target=""
canary=""
build_dir=""
write=1
force_write=0
jobs="$(nproc 2>/dev/null || echo 2)"
artifact=""
src_preset="" src_target="" src_how="the path"
while (($# > 0)); do
  case "$1" in
    --preset) preset="${2:?--preset needs a name}"; shift 2 ;;
    --preset=*) preset="${1#--preset=}"; shift ;;
    --target) target="${2:?--target needs a name}"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    --canary) canary="${2:?--canary needs a name}"; shift 2 ;;
    --canary=*) canary="${1#--canary=}"; shift ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    --build-dir=*) build_dir="${1#--build-dir=}"; shift ;;
    --no-write) write=0; shift ;;
    --force-write) force_write=1; shift ;;
    --jobs|-j) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ci/repro.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *)
      if [[ -n "$artifact" ]]; then echo "ci/repro.sh: one artifact at a time ('$artifact', '$1')" >&2; exit 2; fi
      artifact="$1"; shift ;;
  esac
done
if [[ -z "$artifact" ]]; then
  echo "usage: ci/repro.sh [options] <artifact>   (try --help)" >&2
  exit 2
fi

say() { printf '==> [ci/repro.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { printf 'ci/repro.sh: %s\n' "$*" >&2; exit "${2:-1}"; }
section() { printf '\n---------------- %s ----------------\n' "$*"; }

# Paths given relative to where the user stood.
case "$artifact" in /*) ;; *) artifact="$start_dir/$artifact" ;; esac
[[ -e "$artifact" ]] || die "no such file or folder: $artifact" 2
artifact="$(realpath "$artifact")"
if [[ -n "$build_dir" ]]; then
  case "$build_dir" in /*) ;; *) build_dir="$start_dir/$build_dir" ;; esac
  build_dir="$(realpath -m "$build_dir")"
fi

known_presets="$(cmake --list-presets=configure 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')"
known_canaries="$(find ci/canaries -maxdepth 1 -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort)"
# Fuzz targets: the fuzz/<name>.cpp files that define the entry point.
known_targets="$(grep -l 'LLVMFuzzerTestOneInput' fuzz/*.cpp 2>/dev/null | xargs -r -n1 basename | sed 's/\.cpp$//')"
is_in() { grep -qx -- "$1" <<< "$2"; }

[[ -z "$preset" ]] || is_in "$preset" "$known_presets" || die "unknown preset '$preset'" 2
[[ -z "$target" ]] || is_in "$target" "$known_targets" || die "unknown fuzz target '$target' (known: $(tr '\n' ' ' <<< "$known_targets"))" 2
[[ -z "$canary" ]] || is_in "$canary" "$known_canaries" || die "unknown canary '$canary' (known: $(tr '\n' ' ' <<< "$known_canaries"))" 2

# ---------------------------------------------------------------- where does it come from
how_found=""
input="$artifact"
bucket=""
if [[ -d "$artifact" ]]; then
  # A bucket folder of ci/nightly.sh: failures/<id>/{minimized,input,bucket.json,...}.
  bucket="$artifact"
  input=""
  for f in minimized input; do
    if [[ -f "$bucket/$f" ]]; then input="$bucket/$f"; break; fi
  done
  if [[ -z "$input" ]]; then
    input="$(find "$bucket" -maxdepth 2 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' -o -name 'testcase' \) | LC_ALL=C sort | head -n1)"
  fi
elif [[ -f "$(dirname "$artifact")/bucket.json" ]]; then
  bucket="$(dirname "$artifact")"
fi
bucket_build_dir=""
if [[ -n "$bucket" && -f "$bucket/bucket.json" ]]; then
  # bucket.json names the preset, target and build tree that found it (and the original input).
  bucket_artifact=""
  while IFS='=' read -r k v; do
    case "$k" in
      artifact) bucket_artifact="$v" ;;
      preset) src_preset="$v"; src_how="bucket.json" ;;
      target) src_target="$v"; src_how="bucket.json" ;;
      build_dir) bucket_build_dir="$v" ;;
    esac
  done < <(python3 - "$bucket/bucket.json" <<'EOF2'
import json, sys
b = json.load(open(sys.argv[1]))
arts = b.get("artifacts") or [{}]
for key in ("artifact", "preset", "target", "build_dir"):
    val = b.get(key) or arts[0].get(key)
    if isinstance(val, str) and val and "\n" not in val:
        print(f"{key}={val}")
EOF2
)
  if [[ -z "$input" && -n "$bucket_artifact" ]]; then
    [[ "$bucket_artifact" == /* ]] || bucket_artifact="$root/$bucket_artifact"
    [[ -f "$bucket_artifact" ]] && input="$bucket_artifact"
  fi
  if [[ -n "$bucket_build_dir" ]]; then
    [[ "$bucket_build_dir" == /* ]] || bucket_build_dir="$root/$bucket_build_dir"
  fi
fi
if [[ -n "$bucket" ]]; then
  [[ -n "$input" && -f "$input" ]] || die "bucket folder $bucket: no minimized, input or crash-* file, and no bucket.json naming an existing input" 2
  how_found="bucket $(realpath --relative-to="$root" "$bucket")"
fi
input="$(realpath "$input")"
rel_input="$(realpath --relative-to="$root" "$input")"

# Path components name the preset (or <preset>-canary-<name>) and the target.
IFS='/' read -r -a parts <<< "$rel_input"
for c in "${parts[@]}"; do
  if [[ -z "$src_preset" ]] && is_in "$c" "$known_presets"; then src_preset="$c"; fi
  if [[ -z "$src_target" ]] && is_in "$c" "$known_targets"; then src_target="$c"; fi
  if [[ -z "$src_preset" && "$c" =~ ^(.+)-canary-(.+)$ ]] && is_in "${BASH_REMATCH[1]}" "$known_presets" \
     && is_in "${BASH_REMATCH[2]}" "$known_canaries"; then
    src_preset="${BASH_REMATCH[1]}"
    [[ -z "$canary" ]] && canary="${BASH_REMATCH[2]}"
  fi
done
# Inside a ci/nightly.sh run folder: a canary run says so in state/meta.tsv.
d="$(dirname "$input")"
while [[ "$d" != / && "$d" != "$root" ]]; do
  if [[ -f "$d/state/meta.tsv" ]]; then
    run_canary="$(awk -F'\t' '$1 == "canary" { print $2 }' "$d/state/meta.tsv")"
    if [[ -z "$canary" && -n "$run_canary" && "$run_canary" != none ]] && is_in "$run_canary" "$known_canaries"; then
      canary="$run_canary"
      src_how="the path and $(realpath --relative-to="$root" "$d")/state/meta.tsv"
    fi
    break
  fi
  d="$(dirname "$d")"
done
# Inside a build tree (e.g. build/<preset>/fuzz/smoke/<target>/artifacts/): use that tree.
tree_dir=""
d="$(dirname "$input")"
while [[ "$d" != / && "$d" != "$root" ]]; do
  if [[ -f "$d/CMakeCache.txt" ]]; then tree_dir="$d"; break; fi
  d="$(dirname "$d")"
done

[[ -z "$preset" ]] && preset="${src_preset:-full-asan-ubsan}"
[[ -z "$target" ]] && target="$src_target"
if [[ -z "$build_dir" ]]; then
  if [[ -n "$canary" ]]; then
    build_dir="$root/build/$preset-canary-$canary"
  elif [[ -n "$bucket_build_dir" && "$preset" == "${src_preset:-}" ]]; then
    build_dir="$bucket_build_dir"
  elif [[ -n "$tree_dir" ]] && [[ -z "$src_preset" || "$(basename "$tree_dir")" == "$src_preset" ]]; then
    build_dir="$tree_dir"
  else
    build_dir="$root/build/$preset"
  fi
fi
rel_build="$(realpath -m --relative-to="$root" "$build_dir")"

sha1="$(sha1sum < "$input" | cut -d' ' -f1)"
short="${sha1:0:12}"
size="$(stat -c %s "$input")"
logdir="$root/build/repro/$short-$(basename "$build_dir")"
mkdir -p "$logdir"

say "input: $rel_input ($size bytes, sha1 $sha1)${how_found:+, from $how_found}"
say "target: ${target:-unknown (will try each)}; preset: $preset${src_preset:+ (from $src_how)}; build tree: $rel_build${canary:+ (canary $canary)}"

# ---------------------------------------------------------------- configure + build
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cfg=(cmake --preset "$preset" -B "$build_dir")
  [[ -n "$canary" ]] && cfg=(cmake -S "$(ci/canaries.sh --tree "$canary")" --preset "$preset" -B "$build_dir")
  say "configuring a new build tree: ${cfg[*]}"
  "${cfg[@]}" > "$logdir/configure.log" 2>&1 || { tail -n 30 "$logdir/configure.log"; die "configure failed (log: $logdir/configure.log)"; }
else
  # An existing tree: re-run its configure (picks up new sources); keep its cache (canary and all).
  if [[ "$build_dir" == "$root/build/$preset" ]]; then
    cfg=(cmake --preset "$preset")
  else
    cfg=(cmake "$build_dir")  # its cache knows its source (a canary tree: a patched copy)
  fi
  "${cfg[@]}" > "$logdir/configure.log" 2>&1 || { tail -n 30 "$logdir/configure.log"; die "configure failed: ${cfg[*]} (log: $logdir/configure.log)"; }
fi
tree_src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
tree_canary=none
[[ "$tree_src" == */build/canary-work/*/src ]] && tree_canary="$(basename "$(dirname "$tree_src")")"
tree_flavour="$(sed -n 's/^DISPATCH_FLAVOUR:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
tree_fuzz="$(sed -n 's/^DISPATCH_FUZZ:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
if [[ "$tree_canary" != none && -n "$tree_canary" ]]; then
  say "NOTE: $rel_build is a CANARY build (ci/canaries/$tree_canary.patch): the library has a planted bug"
fi

if [[ -n "$target" ]]; then
  candidates=("$target")
else
  cmake --build "$build_dir" --target print_fuzz_targets > "$logdir/targets.log" 2>&1 || die "$rel_build builds no fuzz targets"
  read -r -a candidates <<< "$(grep -v '^\[' "$logdir/targets.log" | grep -E '^[A-Za-z0-9_ -]+$' | tail -n1)"
  ((${#candidates[@]} > 0)) || die "print_fuzz_targets named no targets in $rel_build"
fi
say "building ${candidates[*]} in $rel_build"
t0="$EPOCHSECONDS"
if ! cmake --build "$build_dir" -j "$jobs" --target "${candidates[@]}" > "$logdir/build.log" 2>&1; then
  grep -E '^(FAILED:|.*error:)' "$logdir/build.log" | head -n 20 >&2 || true
  die "build failed (log: $logdir/build.log)"
fi
say "built in $((EPOCHSECONDS - t0))s"

# ---------------------------------------------------------------- rerun under the sanitizers
# shellcheck source=sanitizer_builds/env.sh
source sanitizer_builds/env.sh
export DISPATCH_FUZZ_TRACE=1
export LLVM_PROFILE_FILE="$build_dir/profraw/repro-%m.profraw"

run_input() {  # BIN -> runs the input once; output in $logdir/run.log; returns its exit code
  local bin="$1" rc
  local -a cmd=("$bin")
  [[ "$tree_fuzz" == ON ]] && cmd+=(-timeout=25 -rss_limit_mb=2560)
  cmd+=("$input")
  printf '$ %s\n' "${cmd[*]}" > "$logdir/run.log"
  set +e
  timeout -k 10 300 "${cmd[@]}" >> "$logdir/run.log" 2>&1
  rc=$?
  set -e
  return "$rc"
}

rc=0
found=""
for t in "${candidates[@]}"; do
  bin="$build_dir/fuzz/$t"
  [[ -x "$bin" ]] || die "no binary $bin"
  say "running $t on the input (sanitizer env, DISPATCH_FUZZ_TRACE=1)"
  if run_input "$bin"; then
    rc=0
    ((${#candidates[@]} > 1)) && say "$t: no failure"
  else
    rc=$?
    found="$t"
    break
  fi
done
if [[ -z "$found" ]]; then
  if ((${#candidates[@]} > 1)); then
    say "no target fails on this input in $rel_build"
  fi
  target="${target:-${candidates[0]}}"
else
  target="$found"
fi
bin="$build_dir/fuzz/$target"

section "run: $target (exit code $rc) -- full output in ${logdir#"$root"/}/run.log"
cat "$logdir/run.log"

section "decoded input: $target --print $rel_input"
"$bin" --print "$input" > "$logdir/print.txt" 2>&1 || true
cat "$logdir/print.txt"

# ---------------------------------------------------------------- summary
section "summary"
headline="$(grep -m1 -E '^(==[0-9]+==ERROR: |==== DISPATCH FUZZ BUG|.*runtime error: |.*Assertion .* failed|.*assertion .* failed|WARNING: ThreadSanitizer|==[0-9]+== ERROR: libFuzzer|terminate called|.*LeakSanitizer)' "$logdir/run.log" || true)"
detail="$(awk '/^==== DISPATCH FUZZ BUG/ { getline; print; exit }' "$logdir/run.log")"
last_step="$(grep -E '^DISPATCH-STEP ' "$logdir/run.log" | tail -n1 || true)"
# Frames with a source line in this repository (not the replay main or libFuzzer driver).
frames="$(grep -E "^ +#[0-9]+ 0x[0-9a-f]+ in .* $root/[^ ]+\.(cpp|cc|h):[0-9]+" "$logdir/run.log" | grep -v -E 'fuzz_target\.cpp|replay_main\.cpp' | head -n 6 || true)"
unsymbolized="$(grep -cE '^ +#[0-9]+ 0x[0-9a-f]+ +\(' "$logdir/run.log" || true)"
echo "input:      $rel_input ($size bytes)"
echo "target:     $target   build: $rel_build (preset $preset, flavour ${tree_flavour:-?}, canary ${tree_canary:-none}, libFuzzer ${tree_fuzz:-OFF})"
if ((rc == 0)); then
  echo "result:     DID NOT FAIL (exit code 0)"
else
  echo "result:     FAILED (exit code $rc)"
  echo "failure:    ${headline:-"(no sanitizer or harness headline; see the output)"}"
  [[ -n "$detail" ]] && echo "            $detail"
  [[ -n "$last_step" ]] && echo "last step:  $last_step"
  if [[ -n "$frames" ]]; then
    echo "top frames in this project:"
    sed 's/^ */  /' <<< "$frames"
  fi
  if [[ "${unsymbolized:-0}" -gt 0 ]]; then
    echo "WARNING: $unsymbolized stack frames are not symbolized (ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-unset})"
  fi
fi

# verify_test NAME: builds and runs regression test NAME in the build tree (fuzz/CMakeLists.txt
# adds fuzz/regression_tests).
wired=0
grep -qE '^[^#]*add_subdirectory\(\s*regression_tests' fuzz/CMakeLists.txt && wired=1
verify_test() {
  local name="$1" trc rel_log="${logdir#"$root"/}/test-run.log"
  if ((! wired)); then
    say "fuzz/regression_tests is not built: fuzz/CMakeLists.txt needs add_subdirectory(regression_tests)"
    return 0
  fi
  "${cfg[@]}" > "$logdir/reconfigure.log" 2>&1 || true
  say "building and running $name in $rel_build"
  if ! cmake --build "$build_dir" -j "$jobs" --target "$name" > "$logdir/test-build.log" 2>&1; then
    grep -E '^(FAILED:|.*error:)' "$logdir/test-build.log" | head -n 20 || true
    say "WARNING: $name does not build in $rel_build (log: ${logdir#"$root"/}/test-build.log)"
    return 0
  fi
  set +e
  ctest --test-dir "$build_dir" -R "^${name}\$" --output-on-failure > "$logdir/test-run.log" 2>&1
  trc=$?
  set -e
  grep -E '^\[ +(RUN|OK|FAILED) +\]|Failure$|: step [0-9]+ |Test +#|tests passed' "$logdir/test-run.log" | cut -c1-200 | head -n 12 | sed 's/^/    /' || true
  if ((trc != 0 && rc != 0)); then
    say "$name FAILS in $rel_build, as it must while the bug is in (log: $rel_log)"
  elif ((trc == 0 && rc == 0)); then
    say "$name PASSES in $rel_build, like the input (log: $rel_log)"
  elif ((trc == 0)); then
    say "WARNING: $name PASSES in $rel_build although the input fails there (log: $rel_log)"
  else
    say "WARNING: $name FAILS in $rel_build although the input passes there (log: $rel_log)"
  fi
}

if ((rc == 0 && ! force_write)); then
  echo
  echo "The input does not fail in $rel_build, so nothing was written (--force-write writes anyway)."
  if [[ -f "fuzz/regression_tests/${target}_${short}_test.cpp" ]]; then
    verify_test "${target}_${short}_test"
  else
    echo "Try the preset or canary it was found with: --preset <p>, --canary <name>, --build-dir <dir>."
  fi
  exit 3
fi
if ((! write)); then
  echo
  echo "--no-write: nothing written."
  exit 0
fi

# ---------------------------------------------------------------- write the regression
section "regression"
reg_dir="fuzz/regressions/$target"
mkdir -p "$reg_dir"
if [[ -f "$reg_dir/$sha1" ]]; then
  say "input already in $reg_dir/$sha1"
else
  cp "$input" "$reg_dir/$sha1"
  say "wrote $reg_dir/$sha1"
fi
"$bin" --print-cpp "$input" > "$logdir/cpp.txt" 2> "$logdir/cpp.err" || die "$target --print-cpp failed: $(head -c 400 "$logdir/cpp.err")"
failure_args=()
[[ -n "$headline" ]] && failure_args+=(--failure "$(cut -c1-200 <<< "$headline")")
[[ -n "$detail" ]] && failure_args+=(--failure "$(cut -c1-200 <<< "$detail")")
[[ -n "$last_step" ]] && failure_args+=(--failure "$(cut -c1-200 <<< "$last_step")")
((rc == 0)) && failure_args+=(--failure "(none: written with --force-write from an input that passed)")
test_name="$(python3 ci/lib/repro_write_test.py --target "$target" --sha1 "$sha1" --cpp "$logdir/cpp.txt" \
  --tests-dir fuzz/regression_tests \
  --source "$rel_input" \
  --reproduced-with "$rel_build (preset $preset, canary ${tree_canary:-none}), exit code $rc" \
  "${failure_args[@]}")"
say "fuzz/regression_tests/$test_name.cpp and its line in fuzz/regression_tests/CMakeLists.txt are in place"

# ---------------------------------------------------------------- build and run the test here
verify_test "$test_name"

echo
echo "next steps:"
((wired)) || echo "  add add_subdirectory(regression_tests) to fuzz/CMakeLists.txt (once), so every preset builds the tests"
cat <<EOF
  git add $reg_dir/$sha1 fuzz/regression_tests/$test_name.cpp fuzz/regression_tests/CMakeLists.txt
  cmake --build build/<preset> --target $test_name && ctest --test-dir build/<preset> -R '^$test_name\$' --output-on-failure
  (it fails until the bug is fixed; ctest -L corpus replays $reg_dir/ in every preset as well)
EOF
