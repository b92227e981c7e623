#!/usr/bin/env bash
# ci/ossfuzz_check.sh -- does .clusterfuzzlite/build.sh keep the OSS-Fuzz build contract?
#
#   ci/ossfuzz_check.sh [--envs a,b,...] [--jobs N]
#
# Runs the build script the way OSS-Fuzz's builder would, in OSS-Fuzz-like environments, each
# into a fresh temporary $OUT ($WORK: build/ossfuzz-<env>/, kept between runs), then OSS-Fuzz's
# bad-build check on every fuzz target (ci/lib/ossfuzz_bad_build.sh) and prints the $OUT files
# and the results. Exit code 0 only if every environment built and passed.
#
#   libfuzzer-address    clang-14, OSS-Fuzz's CFLAGS + ASan flags + -fsanitize=fuzzer-no-link,
#                        LIB_FUZZING_ENGINE=-fsanitize=fuzzer
#   libfuzzer-undefined  the same with OSS-Fuzz's UBSan flag list
#   aflpp-address        CC=afl-clang-fast CXX=afl-clang-fast++ (Debian's afl++), ASan,
#                        LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a
#
# Not like OSS-Fuzz: its images add -stdlib=libc++ to CXXFLAGS and link a libFuzzer built
# against that libc++. Debian's libclang_rt.fuzzer is built against libstdc++ (linking it
# with -stdlib=libc++ fails with undefined std::basic_ifstream), so the local check stays on
# libstdc++. ctest: label ossfuzz (a fuzz preset: ctest --test-dir build/full-fuzz -L ossfuzz).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
envs_csv="libfuzzer-address,libfuzzer-undefined,aflpp-address"
jobs=2
while (($# > 0)); do
  case "$1" in
    --envs) envs_csv="${2:?--envs needs names}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/ossfuzz_check.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
IFS=',' read -r -a envs <<< "$envs_csv"

# OSS-Fuzz's flags (infra/base-images: base-clang CFLAGS, base-builder SANITIZER_FLAGS_*).
base_flags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
asan_flags="-fsanitize=address -fsanitize-address-use-after-scope"
# OSS-Fuzz's UBSan list; clang-14 accepts all of it for C++. unsigned-integer-overflow is
# recoverable (a coverage signal only; UBSAN_OPTIONS silence_unsigned_overflow=1).
ubsan_checks="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr"
ubsan_flags="-fsanitize=$ubsan_checks -fno-sanitize-recover=${ubsan_checks/unsigned-integer-overflow,/}"

# env_vars NAME -> the variables of one environment, one NAME=value per line.
env_vars() {
  case "$1" in
    libfuzzer-address|libfuzzer-undefined)
      local san="$asan_flags" sanitizer=address
      if [[ "$1" == *-undefined ]]; then san="$ubsan_flags"; sanitizer=undefined; fi
      printf '%s\n' CC=clang-14 CXX=clang++-14 "CFLAGS=$base_flags $san -fsanitize=fuzzer-no-link" \
        "CXXFLAGS=$base_flags $san -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
        FUZZING_ENGINE=libfuzzer "SANITIZER=$sanitizer" ;;
    aflpp-address)
      printf '%s\n' CC=afl-clang-fast CXX=afl-clang-fast++ "CFLAGS=$base_flags $asan_flags" \
        "CXXFLAGS=$base_flags $asan_flags" LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a \
        FUZZING_ENGINE=aflpp SANITIZER=address AFL_QUIET=1 ;;
    *) return 1 ;;
  esac
}

for e in "${envs[@]}"; do
  env_vars "$e" > /dev/null || { echo "ci/ossfuzz_check.sh: unknown environment '$e'" >&2; exit 2; }
done

say() { printf '==> [ci/ossfuzz_check.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
summary=()
status=0
for e in "${envs[@]}"; do
  work="$repo/build/ossfuzz-$e"
  out="$(mktemp -d "${TMPDIR:-/tmp}/ossfuzz-out-$e.XXXXXX")"
  mkdir -p "$work"
  mapfile -t vars < <(env_vars "$e")
  engine="$(printf '%s\n' "${vars[@]}" | sed -n 's/^FUZZING_ENGINE=//p')"
  sanitizer="$(printf '%s\n' "${vars[@]}" | sed -n 's/^SANITIZER=//p')"
  say "$e: build (WORK=$work, OUT=$out, log $work/build.log)"
  t0="$EPOCHSECONDS"
  # OSS-Fuzz runs build.sh from the Dockerfile's WORKDIR, the repository.
  if ! env "${vars[@]}" SRC="$(dirname "$repo")" WORK="$work" OUT="$out" \
       CMAKE_BUILD_PARALLEL_LEVEL="$jobs" nice bash -eu .clusterfuzzlite/build.sh > "$work/build.log" 2>&1; then
    say "$e: build FAILED"
    tail -n 30 "$work/build.log" | sed 's/^/    /'
    summary+=("$e|build FAILED|$((EPOCHSECONDS - t0))s")
    status=1
    rm -rf "$out"
    continue
  fi
  build_secs=$((EPOCHSECONDS - t0))
  echo
  echo "\$OUT of $e ($out), built in ${build_secs}s:"
  (cd "$out" && find . -maxdepth 1 -type f -printf '%f\t%s\n' | sort |
    awk -F'\t' '{ printf "  %-40s %10d bytes\n", $1, $2 }')
  say "$e: bad-build check ($engine, $sanitizer)"
  t0="$EPOCHSECONDS"
  : > "$results"
  rc=0
  WORK="$work" ci/lib/ossfuzz_bad_build.sh "$engine" "$sanitizer" "$out" "$results" || rc=$?
  check_secs=$((EPOCHSECONDS - t0))
  echo
  printf '  %-22s %-7s %9s %9s %9s %7s %7s %-16s %5s  %s\n' target result "edges" "covered" features \
    __asan __ubsan flavours "s" problems
  while IFS=$'\t' read -r t res edges cov ft asan ubsan flav secs problems; do
    printf '  %-22s %-7s %9s %9s %9s %7s %7s %-16s %5s  %s\n' "$t" "$res" "$edges" "$cov" "$ft" "$asan" \
      "$ubsan" "$flav" "$secs" "$problems"
  done < "$results"
  echo
  if ((rc != 0)); then
    status=1
    summary+=("$e|check FAILED|build ${build_secs}s, check ${check_secs}s")
  else
    summary+=("$e|ok|build ${build_secs}s, check ${check_secs}s, $(wc -l < "$results") targets")
  fi
  rm -rf "$out"
done

echo "ci/ossfuzz_check.sh summary"
for s in "${summary[@]}"; do
  IFS='|' read -r e res detail <<< "$s"
  printf '  %-22s %-14s %s\n' "$e" "$res" "$detail"
done
((status == 0)) || echo "ci/ossfuzz_check.sh: FAILED"
exit "$status"
