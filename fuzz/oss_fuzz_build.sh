#!/bin/bash -eu
# fuzz/oss_fuzz_build.sh -- builds the fuzz targets under the OSS-Fuzz / ClusterFuzzLite
# build contract (.clusterfuzzlite/build.sh calls it; ci/ossfuzz_check.sh and the AFL++
# engine of ci/nightly.sh reuse it).
#
#   CXX=... CXXFLAGS=... LIB_FUZZING_ENGINE=... WORK=dir OUT=dir fuzz/oss_fuzz_build.sh [CMAKE_ARG...]
#
# Everything about the toolchain comes from the environment: the compiler from $CXX, its
# flags (sanitizers, coverage instrumentation) from $CXXFLAGS, the engine from
# $LIB_FUZZING_ENGINE. Nothing here names a sanitizer or an engine. The project adds
# DISPATCH_HARDENED (standard-library assertions: without them an overflow into the next
# member of the same object goes unseen; README "Why the harness matters").
# Extra arguments go to the CMake configure step (the nightly passes -DDISPATCH_FLAVOUR=...).
#
# Writes to $OUT, for every fuzz target <name>:
#   <name>                   the binary (our libraries linked in statically)
#   <name>_seed_corpus.zip   fuzz/corpus/<name>/ + fuzz/regressions/<name>/
#   <name>.dict              fuzz/dictionaries/<name>.dict
#   <name>.options           fuzz/options/<name>.options
# Intermediate files go to $WORK/dispatch-build. Parallelism: $CMAKE_BUILD_PARALLEL_LEVEL
# (default: every core). DISPATCH_OSS_FUZZ_CONFIGURE_ONLY=1 stops after the configure step (the
# test command's cheap check of this contract: ci/ossfuzz_check.sh --configure-only).

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${CXX:?CXX must name the C++ compiler}"
: "${LIB_FUZZING_ENGINE:?LIB_FUZZING_ENGINE must name the fuzzing engine link flags}"
: "${OUT:?OUT must name the output folder}"
: "${WORK:?WORK must name a scratch folder}"
build="$WORK/dispatch-build"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

# Static libraries only: the runner image has none of our build products.
cmake -S "$src" -B "$build" \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" \
  -DBUILD_SHARED_LIBS=OFF \
  -DDISPATCH_OSS_FUZZ=ON \
  -DDISPATCH_HARDENED=ON \
  -DDISPATCH_FUZZ_ENGINE_FLAGS="$LIB_FUZZING_ENGINE" \
  "$@"
if [[ "${DISPATCH_OSS_FUZZ_CONFIGURE_ONLY:-0}" == 1 ]]; then
  echo "oss_fuzz_build.sh: configured $build (DISPATCH_OSS_FUZZ_CONFIGURE_ONLY=1: not built)"
  exit 0
fi

mapfile -t targets < "$build/fuzz/fuzz_targets.txt"
if ((${#targets[@]} == 0)); then
  echo "oss_fuzz_build.sh: $build/fuzz/fuzz_targets.txt names no fuzz target" >&2
  exit 1
fi
cmake --build "$build" --target "${targets[@]}"

mkdir -p "$OUT"
for name in "${targets[@]}"; do
  cp "$build/fuzz/$name" "$OUT/$name"
  seeds=()
  for dir in "$src/fuzz/corpus/$name" "$src/fuzz/regressions/$name"; do
    [[ -d "$dir" ]] && seeds+=("$dir")
  done
  rm -f "$OUT/${name}_seed_corpus.zip"
  if ((${#seeds[@]} > 0)); then
    # -j: flat, as the runner unpacks it into one corpus folder; names are content hashes.
    find "${seeds[@]}" -type f -print0 | xargs -0 -r zip -q -j "$OUT/${name}_seed_corpus.zip"
  fi
  for kind in dictionaries:dict options:options; do
    file="$src/fuzz/${kind%%:*}/$name.${kind#*:}"
    [[ -f "$file" ]] && cp "$file" "$OUT/$name.${kind#*:}"
  done
done
echo "oss_fuzz_build.sh: ${#targets[@]} fuzz targets in $OUT: ${targets[*]}"
