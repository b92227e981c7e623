#!/usr/bin/env bash
# bench/workloads/record.sh --libtorch RELEASE -- records every registration libtorch RELEASE
# makes while it loads, in call order, as bench/workloads/libtorch-RELEASE-startup.tsv.gz.
#
# Builds recorder/registration_recorder.cpp (an LD_PRELOAD shim wrapping c10::Dispatcher's
# register* members) and recorder/load_libtorch.cpp (a program that links libtorch and reports
# what c10 holds after the load) against that release, in its chroot for the newer ones
# (fuzz/c10/fixes/chroot.sh), under build/workloads/RELEASE/, then runs the program with the shim
# preloaded. The file starts with '#' lines (release, package, command, c10's own counts after
# the load), then the column names, then one row per registration. Format: bench/workloads/README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$repo/fuzz/c10/fixes/chroot.sh"

release=""
if [[ "${1:-}" == "--libtorch" ]]; then release="${2:?--libtorch needs a release}"; shift 2; fi
[[ -n "$release" && $# -eq 0 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

out="build/workloads/$release"
mkdir -p "$repo/$out"
cd "$repo"
# The shim names no library: the program links libtorch, and the shim's references to c10
# resolve against it (a shim linking libtorch itself aborts in LLVM's option registry when
# preloaded into such a program; fuzz/c10/fixes/build.sh).
in_libtorch_chroot "$repo" "$release" nice -n 19 g++ "${LIBTORCH_CXXFLAGS[@]}" -fPIC -shared \
  bench/workloads/recorder/registration_recorder.cpp -o "$out/registration_recorder.so"
in_libtorch_chroot "$repo" "$release" nice -n 19 g++ "${LIBTORCH_CXXFLAGS[@]}" \
  bench/workloads/recorder/load_libtorch.cpp -o "$out/load_libtorch" "${LIBTORCH_LIBS[@]}"

# A wrapper replaces libtorch's member only if it has the very symbol libtorch exports.
ours="$(nm -D --defined-only "$out/registration_recorder.so" | awk '$3 ~ /^_ZN3c1010Dispatcher/ {print $3}' | sort)"
theirs="$(in_libtorch_chroot "$repo" "$release" nm -D --defined-only /usr/lib/x86_64-linux-gnu/libtorch_cpu.so |
  awk '{print $3}' | sort)"
missing="$(comm -23 <(echo "$ours") <(echo "$theirs"))"
[[ -z "$missing" && -n "$ours" ]] || { echo "record.sh: libtorch $release does not export what the recorder defines: ${missing:-(the recorder defines nothing)}" >&2; exit 1; }

package="$(in_libtorch_chroot "$repo" "$release" dpkg-query -W -f='${Version}' libtorch-dev)"
rows="$out/registrations.tsv"
rm -f "$rows"
in_libtorch_chroot "$repo" "$release" env DISPATCH_RECORD_REGISTRATIONS="$rows" \
  LD_PRELOAD="$repo/$out/registration_recorder.so" "$out/load_libtorch" > "$out/after_load.tsv"
[[ -s "$rows" ]] || { echo "record.sh: the recorder wrote nothing to $rows" >&2; exit 1; }

target="bench/workloads/libtorch-$release-startup.tsv.gz"
{
  echo "# libtorch $release (Debian libtorch-dev $package): every c10::Dispatcher registerDef/registerImpl/registerFallback/registerLibrary/registerName call made while the library loads, in call order"
  echo "# recorded by: bench/workloads/record.sh --libtorch $release (LD_PRELOAD bench/workloads/recorder/registration_recorder.cpp into bench/workloads/recorder/load_libtorch.cpp)"
  echo "# real_call_ns: steady_clock time of the real c10 call on the recording machine, one run"
  sed 's/^/# /' "$out/after_load.tsv"
  cat "$rows"
} | gzip -n -9 > "$target"
echo "$target: $(($(wc -l < "$rows") - 1)) registrations"
