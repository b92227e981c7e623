#!/usr/bin/env bash
# bench/upstream_load.sh [--libtorch RELEASE] [--runs N] [--no-callgrind] -- what each stale-table
# fix (fuzz/c10/fixes/fixes.tsv) costs libtorch RELEASE's start-up, against the unfixed library:
# the wall time of a program that loads libtorch and counts its operators (bench/upstream_load.cpp,
# N runs of each configuration, interleaved) and the instructions of libtorch's static
# initialisers, where every operator and kernel is registered (callgrind). Runs inside the
# release's chroot (fuzz/c10/fixes/chroot.sh) and writes the table into docs/upstream/README.md;
# run it with the machine as quiet as you can get (the table records the load average).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/fuzz/c10/fixes/chroot.sh"

release=2.14
args=()
while (($# > 0)); do
  case "$1" in
    --libtorch) release="${2:?--libtorch needs a release}"; shift 2 ;;
    --runs) args+=(--runs "${2:?--runs needs a number}"); shift 2 ;;
    --no-callgrind) args+=(--no-callgrind); shift ;;
    *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done

"$repo/fuzz/c10/fixes/build.sh" --libtorch "$release" >/dev/null
out="build/c10-fixes/$release"
in_libtorch_chroot "$repo" "$release" g++ "${LIBTORCH_CXXFLAGS[@]}" bench/upstream_load.cpp \
  -o "$out/upstream_load" "${LIBTORCH_LIBS[@]}"
in_libtorch_chroot "$repo" "$release" python3 bench/upstream_load.py --release "$release" --dir "$out" "${args[@]}"
