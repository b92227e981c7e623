#!/usr/bin/env bash
# fuzz/c10/fixes/build.sh --libtorch RELEASE [FIX...] -- builds the stale-table fixes (fixes.tsv;
# all of them by default) against libtorch RELEASE, inside its chroot (chroot.sh), as
# build/c10-fixes/RELEASE/<fix>.so. Load one with LD_PRELOAD into anything that uses libtorch, e.g.
#   ci/c10.sh --libtorch 2.14 env LD_PRELOAD=$PWD/build/c10-fixes/2.14/stale-table.so COMMAND
# and also as <fix>.linked-by-host.so, which names no library: for a program linked to libtorch
# itself (the c10 fuzz target: bench/c10_time_to_detection.sh --preload), where preloading one
# that pulls libtorch in first aborts ("LLVM ERROR: inconsistency in registered CommandLine
# options").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
source "$here/chroot.sh"

# --inside: already in the release's chroot (the c10 ctest): run g++ directly.
run=(in_libtorch_chroot "$repo")
if [[ "${1:-}" == "--inside" ]]; then run=(run_here); shift; fi
run_here() { shift; (cd "$repo" && "$@"); }
release=""
if [[ "${1:-}" == "--libtorch" ]]; then release="${2:?--libtorch needs a release}"; shift 2; fi
[[ -n "$release" ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

declare -A flags
while IFS=$'\t' read -r id fix_flags _; do flags[$id]="$fix_flags"; done < <(grep -v '^#' "$here/fixes.tsv")
# shellcheck disable=SC2046  # one word per fix id
(($# > 0)) || set -- $(grep -v '^#' "$here/fixes.tsv" | cut -f1)
for id in "$@"; do
  [[ -n "${flags[$id]:-}" ]] || { echo "build.sh: unknown fix $id (fixes.tsv: ${!flags[*]})" >&2; exit 2; }
done

out="build/c10-fixes/$release"
mkdir -p "$repo/$out"
for id in "$@"; do
  # The fix links libtorch: a program that dlopens libtorch (python) must find what the fix
  # calls while libtorch's initialisers run, before the dlopen makes libtorch global.
  # shellcheck disable=SC2086  # the flags are words
  "${run[@]}" "$release" g++ "${LIBTORCH_CXXFLAGS[@]}" -fPIC -shared ${flags[$id]} \
    fuzz/c10/fixes/stale_table.cpp -o "$out/$id.so" "${LIBTORCH_LIBS[@]}"
  # shellcheck disable=SC2086
  "${run[@]}" "$release" g++ "${LIBTORCH_CXXFLAGS[@]}" -fPIC -shared ${flags[$id]} \
    fuzz/c10/fixes/stale_table.cpp -o "$out/$id.linked-by-host.so"
  echo "$out/$id.so $out/$id.linked-by-host.so"
done
