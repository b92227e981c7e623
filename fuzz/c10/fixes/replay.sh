#!/usr/bin/env bash
# fuzz/c10/fixes/replay.sh --libtorch RELEASE -- replays the stale-table repros against libtorch
# RELEASE, without a fix and with each fix of fixes.tsv preloaded, inside the release's chroot.
# --inside (first): already in the chroot; builds the fixes there (the c10 ctest of 2.14 runs so).
#
# Programs: repros/<bug>.cpp (exit 1 while the bug shows), all_invariants.cpp (checkInvariants on
# every operator libtorch registers; must hold everywhere) and regression_test.cpp (must fail
# without a fix and pass with one that fixes every bug). Expected, per program and fix: "shows"
# (exit 1), "fixed" or "holds" (exit 0); any other exit (a crash, a timeout) is an ERROR, never a
# pass.
# Writes build/c10-fixes/RELEASE/replay.tsv (program, fix, exit, expected, verdict) and each run's
# output to build/c10-fixes/RELEASE/replay/<program>.<fix>.txt. Exit 0 iff every verdict is ok.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
source "$here/chroot.sh"

inside=""
[[ "${1:-}" == "--inside" ]] && { inside=1; shift; }
[[ "${1:-}" == "--libtorch" && -n "${2:-}" ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
release="$2"
out="build/c10-fixes/$release"
bugs=()
for f in "$here"/repros/stale-*.cpp; do bugs+=("$(basename "$f" .cpp)"); done

if [[ -z "$inside" ]]; then
  "$here/build.sh" --libtorch "$release" >/dev/null
  DISPATCH_REPLAY_FIXES_BUILT=1 in_libtorch_chroot "$repo" "$release" bash fuzz/c10/fixes/replay.sh --inside --libtorch "$release"
  exit
fi
# Inside the chroot (the c10 ctest comes straight here): the fixes are built here too.
cd "$repo"
[[ -n "${DISPATCH_REPLAY_FIXES_BUILT:-}" ]] || "$here/build.sh" --inside --libtorch "$release" >/dev/null

# Inside the chroot, in the repository.
mkdir -p "$out/replay"
for bug in "${bugs[@]}"; do
  g++ "${LIBTORCH_CXXFLAGS[@]}" "fuzz/c10/fixes/repros/$bug.cpp" -o "$out/$bug" "${LIBTORCH_LIBS[@]}"
done
g++ "${LIBTORCH_CXXFLAGS[@]}" fuzz/c10/fixes/all_invariants.cpp -o "$out/all_invariants" "${LIBTORCH_LIBS[@]}"
g++ "${LIBTORCH_CXXFLAGS[@]}" fuzz/c10/fixes/regression_test.cpp -o "$out/regression_test" \
  "${LIBTORCH_LIBS[@]}" -lgtest -lgtest_main -pthread

declare -A fixes_of
fix_ids=()
while IFS=$'\t' read -r id _ fixed; do fix_ids+=("$id"); fixes_of[$id]=" $fixed "; done < <(grep -v '^#' fuzz/c10/fixes/fixes.tsv)

# expect PROGRAM FIX: "shows", "fixed" or "holds".
expect() {
  local program="$1" fix="$2" bug
  [[ "$program" == all_invariants ]] && { echo holds; return; }
  [[ "$fix" == plain ]] && { echo shows; return; }
  if [[ "$program" == regression_test ]]; then
    for bug in "${bugs[@]}"; do [[ "${fixes_of[$fix]}" == *" $bug "* ]] || { echo shows; return; }; done
    echo fixed
  elif [[ "${fixes_of[$fix]}" == *" $program "* ]]; then echo fixed
  else echo shows
  fi
}

tsv="$out/replay.tsv"
printf 'program\tfix\texit\texpected\tverdict\n' > "$tsv"
failed=0
for program in "${bugs[@]}" all_invariants regression_test; do
  for fix in plain "${fix_ids[@]}"; do
    preload=""
    [[ "$fix" == plain ]] || preload="$PWD/$out/$fix.so"
    [[ -z "$preload" || -f "$preload" ]] || { echo "missing fix $preload" >&2; exit 1; }
    status=0
    LD_PRELOAD="$preload" timeout 300 "$out/$program" > "$out/replay/$program.$fix.txt" 2>&1 || status=$?
    expected="$(expect "$program" "$fix")"
    case "$status/$expected" in
      0/fixed|0/holds|1/shows) verdict=ok ;;
      0/*|1/*) verdict=WRONG; failed=1 ;;
      *) verdict=ERROR; failed=1 ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$program" "$fix" "$status" "$expected" "$verdict" >> "$tsv"
  done
done
awk -F'\t' '{printf "%-48s %-38s %-5s %-9s %s\n", $1, $2, $3, $4, $5}' "$tsv"
exit "$failed"
