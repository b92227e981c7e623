#!/usr/bin/env bash
# bench/workload_c10.sh --libtorch RELEASE -- c10's side of the start-up workload table
# (bench/workload_bench.sh), measured in build/workloads/RELEASE/load_libtorch (the program
# bench/workloads/record.sh builds), on this machine for 1.13 and inside the release's chroot for
# the newer ones (fuzz/c10/fixes/chroot.sh):
#   instructions  executed inside c10::Dispatcher's registerDef, registerImpl, registerFallback,
#                 registerLibrary and registerName while libtorch loads (callgrind collecting only
#                 inside those members, --toggle-collect; the recorder not loaded), and the calls
#                 into them callgrind saw;
#   heap          the real calls' net heap growth as the recorder counts it (mallinfo2 around each).
# Prints one line: `release=R instructions=N calls=C heap_bytes=B heap_calls=H`, where a figure
# that could not be measured is `<name>_not_measured=<reason>` instead (a reason holds no '=').
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
source "$repo/fuzz/c10/fixes/chroot.sh"

release=""
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then sed -n '2,/^set -/{/^set -/d; s/^# \{0,1\}//; p}' "$0"; exit 0; fi
if [[ "${1:-}" == "--libtorch" ]]; then release="${2:?--libtorch needs a release}"; shift 2; fi
[[ -n "$release" && $# -eq 0 ]] || { sed -n '2,/^set -/{/^set -/d; s/^# \{0,1\}//; p}' "$0" >&2; exit 2; }

# The last line of a log, as one field value (no newlines, no '=').
last_line() { tail -n 1 "$1" | tr '\n=' ' :'; }

cd "$repo"
program="build/workloads/$release/load_libtorch"
[[ -x "$program" ]] || { echo "release=$release instructions_not_measured=no $program (bench/workloads/record.sh --libtorch $release builds it)"; exit 0; }
out="build/workload-c10/$release"
mkdir -p "$out"
figures="release=$release"

# --- instructions. libtorch's libhwy calibrates a timer with RDTSCP at load, which valgrind
# rejects here (bench/torch_valgrind_shim.cpp replaces that calibration).
toggles=()
for member in registerDef registerImpl registerFallback registerLibrary registerName; do
  toggles+=("--toggle-collect=c10::Dispatcher::$member*")
done
rm -f "$out/callgrind.out"
if ! in_libtorch_chroot "$repo" "$release" nice -n 19 g++ -O2 -fPIC -shared bench/torch_valgrind_shim.cpp \
    -o "$out/valgrind_shim.so" 2>"$out/shim.err"; then
  figures+=" instructions_not_measured=the valgrind shim does not build: $(last_line "$out/shim.err")"
elif ! in_libtorch_chroot "$repo" "$release" env LD_PRELOAD="$repo/$out/valgrind_shim.so" nice -n 19 \
    valgrind --tool=callgrind --collect-atstart=no "${toggles[@]}" --callgrind-out-file="$out/callgrind.out" \
    "$program" >"$out/load_libtorch.out" 2>"$out/valgrind.err"; then
  figures+=" instructions_not_measured=callgrind of $program failed: $(last_line "$out/valgrind.err")"
else
  instructions="$(awk '/^totals:/ {print $2}' "$out/callgrind.out")"
  # The calls into the toggled members: the caller lines ("< caller (Nx)") above each one's line.
  calls="$(callgrind_annotate --threshold=100 --inclusive=yes --tree=caller "$out/callgrind.out" 2>/dev/null |
    python3 -c '
import re, sys
calls = callers = 0
for line in sys.stdin:
    if not line.strip(): callers = 0
    elif "< " in line and (m := re.search(r"\(([0-9,]+)x\)", line)): callers += int(m[1].replace(",", ""))
    elif re.search(r"\* .*c10::Dispatcher::register(Def|Impl|Fallback|Library|Name)\(", line): calls += callers
print(calls)')"
  if [[ "$instructions" =~ ^[0-9]+$ && "$instructions" -gt 0 && "$calls" -gt 0 ]]; then
    figures+=" instructions=$instructions calls=$calls"
  else
    figures+=" instructions_not_measured=callgrind collected nothing inside c10::Dispatcher::register*"
  fi
fi

# --- heap: the recorder, rebuilt here (the committed recording is not touched).
if ! in_libtorch_chroot "$repo" "$release" nice -n 19 g++ "${LIBTORCH_CXXFLAGS[@]}" -fPIC -shared \
    bench/workloads/recorder/registration_recorder.cpp -o "$out/registration_recorder.so" 2>"$out/recorder.err"; then
  figures+=" heap_not_measured=the recorder does not build: $(last_line "$out/recorder.err")"
elif ! in_libtorch_chroot "$repo" "$release" env DISPATCH_RECORD_REGISTRATIONS="$repo/$out/rows.tsv" \
    LD_PRELOAD="$repo/$out/registration_recorder.so" "$program" >/dev/null 2>"$out/recorder.err"; then
  figures+=" heap_not_measured=the recorded load failed: $(last_line "$out/recorder.err")"
else
  line="$(grep -m1 'heap growth in the real calls' "$out/recorder.err" || true)"
  heap="$(sed -nE 's/.*heap growth in the real calls: (-?[0-9]+) bytes.*/\1/p' <<<"$line")"
  heap_calls="$(sed -nE 's/.*: ([0-9]+) registrations written.*/\1/p' <<<"$line")"
  if [[ -n "$heap" && -n "$heap_calls" ]]; then
    figures+=" heap_bytes=$heap heap_calls=$heap_calls"
  else
    figures+=" heap_not_measured=the recorder reported no heap figure: $(last_line "$out/recorder.err")"
  fi
fi
echo "$figures"
