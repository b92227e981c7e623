#!/usr/bin/env bash
# Prints the benchmark table of the dispatcher (bench/README.md shows its output).
#
#   bench/run.sh            uses the existing build/full-release (run with --build to (re)build)
#   bench/run.sh --build    cmake --preset full-release && build only the bench targets
#
# Columns: case | ns/op (CPU time, Google Benchmark, one run) | ratio to the direct
# function-pointer call measured in the same run | instructions/op (callgrind, N and 2N calls
# of a fixed-iteration driver, difference / N: stable on a noisy machine) | instruction ratio.
# Then: memory per flavour, libFuzzer execs/s (build/full-fuzz), corpus replay inputs/s
# (build/full-asan-ubsan). Missing builds or tools are skipped with a note.
#
# Environment: BENCH_BUILD_DIR (default build/full-release), BENCH_MIN_TIME (Google Benchmark
# seconds per case, default 0.5), BENCH_FUZZ_SECONDS (default 10), BENCH_SKIP_FUZZ=1.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REL=${BENCH_BUILD_DIR:-$ROOT/build/full-release}
MIN_TIME=${BENCH_MIN_TIME:-0.5}
FUZZ_SECONDS=${BENCH_FUZZ_SECONDS:-10}
TMP=$(mktemp -d /tmp/dispatch-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [[ "${1:-}" == "--build" ]]; then
  (cd "$ROOT" && cmake --preset full-release >/dev/null &&
   cmake --build build/full-release -j2 --target dispatch_bench dispatch_callgrind_driver) || exit 1
fi
BENCH=$REL/bench/dispatch_bench
DRIVER=$REL/bench/dispatch_callgrind_driver
if [[ ! -x $BENCH || ! -x $DRIVER ]]; then
  echo "bench/run.sh: $BENCH or $DRIVER missing; run bench/run.sh --build" >&2
  exit 1
fi

echo "## Machine"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), nproc $(nproc)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- compiler: $(grep -m1 CMAKE_CXX_COMPILER: "$REL/CMakeCache.txt" | cut -d= -f2) $(grep -m1 'CMAKE_CXX_FLAGS_RELEASE:' "$REL/CMakeCache.txt" | cut -d= -f2)"
echo

# --- 1. Google Benchmark, one run: every ratio is taken against the direct call of this run.
"$BENCH" --benchmark_min_time="$MIN_TIME" --benchmark_format=json \
  --benchmark_out="$TMP/gb.json" --benchmark_out_format=json >/dev/null 2>"$TMP/gb.err" ||
  { echo "dispatch_bench failed:"; cat "$TMP/gb.err"; exit 1; }

# --- 2. callgrind instruction counts.
declare -A INSTR
if command -v valgrind >/dev/null; then
  for c in $("$DRIVER" list); do
    case $c in
      reg_fallback_*) n=4 ;;
      reg_impl_*) n=200 ;;
      keyset_iterate_*) n=2000 ;;
      *) n=20000 ;;
    esac
    totals=()
    for k in 1 2; do
      out=$TMP/cg.$k.out
      valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
        "$DRIVER" "$c" $((n * k)) >/dev/null 2>"$TMP/cg.err" || { totals=(); break; }
      totals+=("$(awk '/^totals:/ {t=$2} END {print t+0}' "$out")")
    done
    if [[ ${#totals[@]} == 2 ]]; then
      INSTR[$c]=$(( (totals[1] - totals[0]) / n ))
    fi
  done
else
  echo "(valgrind not installed: no instruction counts)"
fi
: >"$TMP/instr.txt"
for c in "${!INSTR[@]}"; do echo "$c ${INSTR[$c]}" >>"$TMP/instr.txt"; done
"$DRIVER" memory >"$TMP/memory.txt"

python3 - "$TMP/gb.json" "$TMP/instr.txt" "$TMP/memory.txt" <<'PY'
import json, sys
gb = json.load(open(sys.argv[1]))
instr = dict(l.split() for l in open(sys.argv[2]) if l.strip())
mem = {}
for l in open(sys.argv[3]):
    f, k, v = l.split(); mem[(f, k)] = int(v)
scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
ns = {}; counters = {}
for b in gb["benchmarks"]:
    ns[b["name"]] = b["cpu_time"] * scale[b.get("time_unit", "ns")]
    counters[b["name"]] = b
# (label, Google Benchmark name, callgrind case, per-what)
rows = [("direct call through a function pointer (floor)", "BM_Call_Direct", "call_direct_fnptr")]
for fl in ("full", "mobile"):
    rows += [
        (f"typed unboxed call, {fl}", f"BM_Call_Unboxed/{fl}", f"call_unboxed/{fl}"),
        (f"typed unboxed call + TLS guard (AutoDispatchBelowADInplaceOrView), {fl}",
         f"BM_Call_UnboxedWithGuard/{fl}", f"call_unboxed_guard/{fl}"),
        (f"redispatch chain AutogradCPU->ADInplaceOrView->CPU, {fl}", f"BM_Call_Chain3/{fl}", f"call_chain3/{fl}"),
        (f"boxed call (stack built per call), {fl}", f"BM_Call_Boxed/{fl}", f"call_boxed/{fl}"),
    ]
rows += [
    ("highestPriorityTypeId", "BM_KeySet_HighestPriorityTypeId", "keyset_highest_priority_type_id"),
    ("table index, full", "BM_KeySet_TableIndex/full", "keyset_table_index/full"),
    ("table index, mobile", "BM_KeySet_TableIndex/mobile", "keyset_table_index/mobile"),
    ("iterate FULL (105 keys), per set", "BM_KeySet_IterateFull", "keyset_iterate_full_105_keys"),
]
for fl in ("full", "mobile"):
    for n in (1, 100, 10000):
        rows.append((f"impl + deregistration, {n} ops, {fl}", f"BM_Reg_ImplDeregister/{fl}/{n}",
                     f"reg_impl_dereg_10000ops/{fl}" if n == 10000 else None))
for fl in ("full", "mobile"):
    rows.append((f"fallback registration (SparseCPU), 10000 ops, {fl}", f"BM_Reg_Fallback/{fl}/10000",
                 None))
    rows.append((f"fallback deregistration (SparseCPU), 10000 ops, {fl}",
                 f"BM_Reg_FallbackDeregister/{fl}/10000", None))
    rows.append((f"fallback registration + deregistration, 10000 ops, {fl} (callgrind only)", None,
                 f"reg_fallback_10000ops/{fl}"))
d_ns = ns.get("BM_Call_Direct"); d_in = int(instr.get("call_direct_fnptr", 0)) or None
def fmt_ns(v):
    return "-" if v is None else (f"{v:.2f}" if v < 100 else f"{v:,.0f}")
print("## Results\n")
print("| case | ns/op | ratio to direct | instructions/op | instr. ratio to direct |")
print("|---|---:|---:|---:|---:|")
for label, g, c in rows:
    t = ns.get(g) if g else None
    i = int(instr[c]) if c and c in instr else None
    is_call = g is not None and g.startswith("BM_Call") or (c or "").startswith("call_")
    r = f"{t / d_ns:.2f}x" if (is_call and t and d_ns) else "-"
    ri = f"{i / d_in:.2f}x" if (is_call and i and d_in) else "-"
    print(f"| {label} | {fmt_ns(t)} | {r} | {'-' if i is None else f'{i:,}'} | {ri} |")
print("\n## Memory (bytes)\n")
print("| flavour | sizeof(OperatorEntry) | entry memoryFootprint() (1 def + 1 CPU kernel) | fallback table |")
print("|---|---:|---:|---:|")
for fl in ("full", "mobile"):
    print(f"| {fl} | {mem[(fl,'sizeof_entry')]:,} | {mem[(fl,'entry_footprint')]:,} | {mem[(fl,'fallback_table')]:,} |")
f, m = mem[("full", "sizeof_entry")], mem[("mobile", "sizeof_entry")]
ff, mf = mem[("full", "entry_footprint")], mem[("mobile", "entry_footprint")]
print(f"\nfull/mobile: sizeof {f/m:.2f}x, footprint {ff/mf:.2f}x, fallback table "
      f"{mem[('full','fallback_table')]/mem[('mobile','fallback_table')]:.2f}x")
print("\n## Targets (measured)\n")
def call_line(name, g, c):
    t = ns.get(g); i = instr.get(c)
    s = f"- {name}: " + (f"{t/d_ns:.2f}x direct by time" if t and d_ns else "no time")
    if i and d_in: s += f", {int(i)/d_in:.2f}x by instructions ({int(i)} vs {d_in})"
    return s
print(call_line("unboxed call, full (target <= 2x)", "BM_Call_Unboxed/full", "call_unboxed/full"))
print(call_line("unboxed call, mobile (target <= 2x)", "BM_Call_Unboxed/mobile", "call_unboxed/mobile"))
print(f"- mobile entry at least 8x smaller than full: sizeof {f/m:.2f}x, footprint {ff/mf:.2f}x: "
      + ("met" if min(f/m, ff/mf) >= 8 else "MISSED"))
for fl in ("full", "mobile"):
    t = ns.get(f"BM_Reg_Fallback/{fl}/10000")
    if t is not None:
        print(f"- fallback registration with 10000 ops, {fl}: {t/1e6:.3f} ms per key: "
              + ("met" if t < 1e6 else "MISSED") + " (target < 1 ms)")
print("- fewer instructions than PyTorch's dispatcher: not measured (the libtorch comparison was skipped)")
PY

# --- 4. Harness throughput.
echo
echo "## Harness throughput"
echo
if [[ -n "${BENCH_SKIP_FUZZ:-}" ]]; then
  echo "(skipped: BENCH_SKIP_FUZZ set)"
  exit 0
fi
FUZZ_DIR=$ROOT/build/full-fuzz/fuzz
REPLAY_DIR=$ROOT/build/full-asan-ubsan/fuzz
TARGETS="registration_fuzzer fallback_fuzzer keyset_fuzzer table_index_fuzzer boxed_call_fuzzer"
echo "| fuzz target | libFuzzer execs/s (${FUZZ_SECONDS} s, full-fuzz) | runs | corpus replay inputs/s (full-asan-ubsan) | inputs replayed |"
echo "|---|---:|---:|---:|---:|"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
for t in $TARGETS; do
  seeds=$ROOT/fuzz/corpus/$t
  work=$TMP/fuzz-$t
  mkdir -p "$work/corpus" "$work/artifacts"
  execs="-"; runs="-"
  if [[ -x $FUZZ_DIR/$t ]]; then
    seed_args=()
    [[ -d $seeds ]] && seed_args=("$seeds")
    "$FUZZ_DIR/$t" -max_total_time="$FUZZ_SECONDS" -seed=1 -timeout=20 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "${seed_args[@]}" \
      >"$work/fuzz.log" 2>&1
    execs=$(awk '/stat::average_exec_per_sec:/ {print $2}' "$work/fuzz.log")
    runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$work/fuzz.log")
    [[ -z $execs ]] && execs="failed (see log)"
  else
    execs="(no build/full-fuzz)"
  fi
  replay="-"; count="-"
  if [[ -x $REPLAY_DIR/$t ]]; then
    # The committed seeds when there are any, else the corpus the fuzz run just wrote.
    if [[ -d $seeds ]] && [[ -n $(ls -A "$seeds" 2>/dev/null) ]]; then src=$seeds; else src=$work/corpus; fi
    if [[ -n $(ls -A "$src" 2>/dev/null) ]]; then
      line=$("$REPLAY_DIR/$t" "$src" 2>&1 | grep -m1 '^Executed ')
      count=$(sed -E 's/Executed ([0-9]+) inputs.*/\1/' <<<"$line")
      replay=$(sed -E 's/.*\(([0-9.]+) inputs\/s\).*/\1/' <<<"$line")
      [[ $src == "$work/corpus" ]] && count="$count (fresh corpus)"
      [[ -z $line ]] && replay="failed"
    else
      replay="(no corpus)"
    fi
  else
    replay="(no build/full-asan-ubsan)"
  fi
  echo "| $t | $execs | $runs | $replay | $count |"
done
echo
echo "fuzz/corpus/<target> is used as seeds when it exists; replay uses it, or else the corpus the fuzz run produced."
