#!/usr/bin/env bash
# Prints the benchmark table of the dispatcher (bench/README.md shows its output).
#
#   bench/run.sh            uses the existing build/full-release (run with --build to (re)build)
#   bench/run.sh --build    cmake --preset full-release && build only the bench targets
#   bench/run.sh --torch    also PyTorch's own dispatcher (libtorch-dev): uses build/bench-torch
#                           (full-release + -DDISPATCH_BENCH_TORCH=ON); with --build, configures it
#   Without --torch, the libtorch rows are added whenever build/bench-torch (or the build dir)
#   holds bench/dispatch_torch_bench.
#   The diagnostics rows (trace, recorder, observer: off / idle / on) come from
#   build/bench-diagnostics = full-release + -DDISPATCH_DIAGNOSTICS=ON (configured by --build).
#   Every row is also written to build/bench/results.json ({"run": date, commit, machine, command;
#   "rows": one object per row: case, flavour, ns_per_op, ratio_to_direct, instructions_per_op,
#   bytes; null where not measured}). Unless --quick, that file is then kept as
#   bench/results/<date>-<commit>.json and the tables of bench/README.md and README.md are written
#   from the newest file there (ci/dispatch_ci/bench_tables.py; a ci test checks them).
#
# Columns: case | ns/op (CPU time, Google Benchmark, one run) | ratio to the direct
# function-pointer call measured in the same run | instructions/op (callgrind, N and 2N calls
# of a fixed-iteration driver, difference / N: stable on a noisy machine) | instruction ratio.
# Then: memory per flavour, and the harness throughput table of bench/fuzz_throughput.sh (each
# fuzz target x flavour: libFuzzer exec/s in build/<flavour>-fuzz, replay inputs/s in
# build/<flavour>-release). Missing builds or tools are skipped with a note.
#
# Then the floors of the sequence fuzzers' throughput (bench/fuzz_floor.sh: the dispatcher alone
# without the oracle, each flavour alone, 1-byte inputs), against which the throughput is read.
#
# Last, the canaries' time to detection from an empty corpus (the bug benchmark's canaries,
# bench/bug_benchmark.sh --bugs canary: each planted bug of ci/canaries/ against the fuzz targets
# that can see it, 5 seeds x 60 s).
#
# Then PyTorch's start-up registrations, ours per flavour beside c10 (bench/workload_bench.sh: time,
# instructions, memory, the goal line; section `workload`, not in the default set: its c10 side
# runs libtorch under callgrind, minutes per release).
#
#   bench/run.sh --section throughput[,floors,canaries,dispatch,workload]   only those sections
#                           (default: dispatch,throughput,floors,canaries)
#   bench/run.sh --help     this text
#   bench/run.sh --quick    short runs: 0.1 s per benchmark, 5 s per throughput cell, canaries
#                           with 1 seed x 20 s (figures for a smoke check, not for the README)
#
# Environment: BENCH_BUILD_DIR (default build/full-release), BENCH_MIN_TIME (Google Benchmark
# seconds per case, default 0.5), BENCH_FUZZ_SECONDS (seconds per throughput cell, default 30),
# BENCH_SKIP_FUZZ=1 (no throughput or floor section); THROUGHPUT_BEFORE_DIR and
# THROUGHPUT_BEFORE_RELEASE_DIR (older binaries for the before column, bench/fuzz_throughput.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMMAND="bench/run.sh${*:+ $*}"
BUILD=0; TORCH=0; QUICK=0; SECTIONS=dispatch,throughput,floors,canaries
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) BUILD=1 ;;
    --torch) TORCH=1 ;;
    --quick) QUICK=1 ;;
    --section) SECTIONS=${2:-}; shift ;;
    --section=*) SECTIONS=${1#--section=} ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d; s/^# \{0,1\}//; p}' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$1' (--build, --torch, --quick, --section LIST, --help)" >&2; exit 2 ;;
  esac
  shift
done
for section in ${SECTIONS//,/ }; do
  case $section in
    dispatch|throughput|floors|canaries|workload) ;;
    *) echo "bench/run.sh: unknown section '$section' (dispatch, throughput, floors, canaries, workload)" >&2; exit 2 ;;
  esac
done
want() { [[ ",$SECTIONS," == *",$1,"* ]]; }
TORCH_DIR=$ROOT/build/bench-torch
DIAG_DIR=$ROOT/build/bench-diagnostics
RESULTS_JSON=$ROOT/build/bench/results.json
if [[ $TORCH == 1 ]]; then
  REL=${BENCH_BUILD_DIR:-$TORCH_DIR}
else
  REL=${BENCH_BUILD_DIR:-$ROOT/build/full-release}
fi
MIN_TIME=${BENCH_MIN_TIME:-0.5}
FUZZ_SECONDS=${BENCH_FUZZ_SECONDS:-30}
CANARY_ARGS=(--seeds 5 --minutes 1)
if [[ $QUICK == 1 ]]; then
  MIN_TIME=${BENCH_MIN_TIME:-0.1}; FUZZ_SECONDS=${BENCH_FUZZ_SECONDS:-5}; CANARY_ARGS=(--seeds 1 --minutes 0.34)
fi
TMP=$(mktemp -d -t dispatch-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if want dispatch; then
if [[ $BUILD == 1 && $TORCH == 1 ]]; then
  (cd "$ROOT" && cmake --preset full-release -B "$REL" -DDISPATCH_BENCH_TORCH=ON >/dev/null &&
   cmake --build "$REL" -j2 --target dispatch_bench dispatch_callgrind_driver dispatch_torch_bench \
     dispatch_torch_bench_noprof) ||
    exit 1
elif [[ $BUILD == 1 ]]; then
  (cd "$ROOT" && cmake --preset full-release >/dev/null &&
   cmake --build build/full-release -j2 --target dispatch_bench dispatch_callgrind_driver) || exit 1
fi
if [[ $BUILD == 1 ]]; then
  (cd "$ROOT" && cmake --preset full-release -B "$DIAG_DIR" -DDISPATCH_DIAGNOSTICS=ON >/dev/null &&
   cmake --build "$DIAG_DIR" -j2 --target dispatch_bench dispatch_callgrind_driver) || exit 1
fi
DBENCH=; DDRIVER=
if [[ -x $DIAG_DIR/bench/dispatch_bench && -x $DIAG_DIR/bench/dispatch_callgrind_driver ]]; then
  DBENCH=$DIAG_DIR/bench/dispatch_bench; DDRIVER=$DIAG_DIR/bench/dispatch_callgrind_driver
fi
BENCH=$REL/bench/dispatch_bench
DRIVER=$REL/bench/dispatch_callgrind_driver
if [[ ! -x $BENCH || ! -x $DRIVER ]]; then
  echo "bench/run.sh: $BENCH or $DRIVER missing; run bench/run.sh --build (with --torch: --build --torch)" >&2
  exit 1
fi
TBENCH=
for cand in "$REL/bench/dispatch_torch_bench" "$TORCH_DIR/bench/dispatch_torch_bench"; do
  if [[ -x $cand ]]; then TBENCH=$cand; break; fi
done
# Same source with PYTORCH_DISABLE_PER_OP_PROFILING, and the LD_PRELOAD shim for valgrind.
TBENCH_NOPROF=; TSHIM=
if [[ -n $TBENCH ]]; then
  [[ -x ${TBENCH}_noprof ]] && TBENCH_NOPROF=${TBENCH}_noprof
  [[ -f $(dirname "$TBENCH")/libdispatch_torch_valgrind_shim.so ]] &&
    TSHIM=$(dirname "$TBENCH")/libdispatch_torch_valgrind_shim.so
fi
if [[ $TORCH == 1 && -z $TBENCH ]]; then
  echo "bench/run.sh: dispatch_torch_bench missing; run bench/run.sh --build --torch" >&2
  exit 1
fi

# The run's metadata, printed here and kept in results.json.
export BENCH_RUN_CPU BENCH_RUN_NPROC BENCH_RUN_LOAD BENCH_RUN_DATE BENCH_RUN_COMMIT BENCH_RUN_COMPILER \
  BENCH_RUN_COMMAND=$COMMAND
BENCH_RUN_CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
BENCH_RUN_NPROC=$(nproc)
BENCH_RUN_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
BENCH_RUN_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
BENCH_RUN_COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
BENCH_RUN_COMPILER="$(grep -m1 CMAKE_CXX_COMPILER: "$REL/CMakeCache.txt" | cut -d= -f2) $(grep -m1 'CMAKE_CXX_FLAGS_RELEASE:' "$REL/CMakeCache.txt" | cut -d= -f2)"
echo "## Machine"
echo
echo "- CPU: $BENCH_RUN_CPU, nproc $BENCH_RUN_NPROC"
echo "- load average at start: $BENCH_RUN_LOAD"
echo "- date: $BENCH_RUN_DATE, commit $BENCH_RUN_COMMIT"
echo "- compiler: $BENCH_RUN_COMPILER"
if [[ -n $TBENCH ]]; then
  "$TBENCH" keyset >"$TMP/torch_keyset.txt" 2>"$TMP/torch.err" ||
    { echo "dispatch_torch_bench failed:"; cat "$TMP/torch.err"; exit 1; }
  # The Debian package version (torch/version.h of 1.13.1+dfsg says 1.13.0).
  pkg=$(dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null | sed -E 's/^([0-9.]+).*/\1/')
  [[ -n $pkg ]] && echo "package $pkg" >>"$TMP/torch_keyset.txt"
  echo "- PyTorch: libtorch-dev ${pkg:-?} (TORCH_VERSION $(awk '/^torch / {print $2}' "$TMP/torch_keyset.txt")), $TBENCH; at::empty({1}) has $(grep '^tensor key set' "$TMP/torch_keyset.txt" | cut -d' ' -f4-)"
fi
echo

# --- 1. Google Benchmark, one run: every ratio is taken against the direct call of this run.
"$BENCH" --benchmark_min_time="$MIN_TIME" --benchmark_format=json \
  --benchmark_out="$TMP/gb.json" --benchmark_out_format=json >/dev/null 2>"$TMP/gb.err" ||
  { echo "dispatch_bench failed:"; cat "$TMP/gb.err"; exit 1; }
echo '{"benchmarks": []}' >"$TMP/dgb.json"
if [[ -n $DBENCH ]]; then
  # Its own direct floor, for the ratios of the same run.
  "$DBENCH" --benchmark_min_time="$MIN_TIME" --benchmark_filter='BM_Call_Direct|BM_Hooks' \
    --benchmark_format=json --benchmark_out="$TMP/dgb.json" --benchmark_out_format=json \
    >/dev/null 2>"$TMP/dgb.err" || { echo "dispatch_bench (diagnostics) failed:"; cat "$TMP/dgb.err"; exit 1; }
fi
echo '{"benchmarks": []}' >"$TMP/tgb.json"
if [[ -n $TBENCH ]]; then
  "$TBENCH" --benchmark_min_time="$MIN_TIME" --benchmark_format=json \
    --benchmark_out="$TMP/tgb.json" --benchmark_out_format=json >/dev/null 2>"$TMP/tgb.err" ||
    { echo "dispatch_torch_bench failed:"; cat "$TMP/tgb.err"; exit 1; }
  if [[ -n $TBENCH_NOPROF ]]; then
    "$TBENCH_NOPROF" --benchmark_min_time="$MIN_TIME" --benchmark_format=json \
      --benchmark_out="$TMP/tgb2.json" --benchmark_out_format=json >/dev/null 2>"$TMP/tgb.err" ||
      { echo "dispatch_torch_bench_noprof failed:"; cat "$TMP/tgb.err"; exit 1; }
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); a["benchmarks"]+=json.load(open(sys.argv[2]))["benchmarks"]; json.dump(a,open(sys.argv[1],"w"))' \
      "$TMP/tgb.json" "$TMP/tgb2.json"
  fi
fi

# --- 2. callgrind instruction counts.
declare -A INSTR
if command -v valgrind >/dev/null; then
  # The libtorch cases run the torch binary (same N/2N difference).
  # diag:<case> runs the diagnostics build's driver.
  for c in $("$DRIVER" list) $([[ -n $TBENCH ]] && "$TBENCH" list) \
           $([[ -n $TBENCH_NOPROF ]] && "$TBENCH_NOPROF" list) \
           $([[ -n $DDRIVER ]] && "$DDRIVER" list | grep -E '^(hooks_|call_direct_fnptr$)' | sed 's/^/diag:/'); do
    bin=$DRIVER; preload=${LD_PRELOAD:-}; arg=$c
    case $c in
      torch_noprof_*) bin=$TBENCH_NOPROF ;;
      torch_*) bin=$TBENCH ;;
      diag:*) bin=$DDRIVER; arg=${c#diag:} ;;
    esac
    # libtorch loads libhwy, whose start-up RDTSCP valgrind rejects here: bench/torch_valgrind_shim.cpp.
    [[ $c == torch_* && -n $TSHIM ]] && preload=$TSHIM${preload:+:$preload}
    case $c in
      reg_fallback_*) n=4 ;;
      reg_impl_*) n=200 ;;
      keyset_iterate_*) n=2000 ;;
      *) n=20000 ;;
    esac
    totals=()
    for k in 1 2; do
      out=$TMP/cg.$k.out
      LD_PRELOAD=$preload valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
        "$bin" "$arg" $((n * k)) >/dev/null 2>"$TMP/cg.err" || { totals=(); break; }
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

mkdir -p "$(dirname "$RESULTS_JSON")"
python3 - "$TMP/gb.json" "$TMP/instr.txt" "$TMP/memory.txt" "$TMP/tgb.json" "$TMP/torch_keyset.txt" \
  "$TMP/dgb.json" "$RESULTS_JSON" <<'PY'
import json, os, sys
gb = json.load(open(sys.argv[1]))
dgb = json.load(open(sys.argv[6]))["benchmarks"]
results = []  # build/bench/results.json
gb["benchmarks"] += json.load(open(sys.argv[4]))["benchmarks"]
torch_version = None
if os.path.exists(sys.argv[5]):
    for l in open(sys.argv[5]):
        if l.startswith("torch ") and torch_version is None: torch_version = l.split()[1]
        if l.startswith("package "): torch_version = l.split()[1]
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
def flavour_of(label):
    return "mobile" if "mobile" in label else ("full" if "full" in label else None)
def add_result(label, t, ratio, i, nbytes=None, flavour=None):
    results.append({"case": label, "flavour": flavour or flavour_of(label), "ns_per_op": t,
                    "ratio_to_direct": ratio, "instructions_per_op": i, "bytes": nbytes})
def print_row(label, t, i, dn, di, is_call):
    ratio = t / dn if (is_call and t and dn) else None
    r = f"{ratio:.2f}x" if ratio else "-"
    ri = f"{i / di:.2f}x" if (is_call and i and di) else "-"
    print(f"| {label} | {fmt_ns(t)} | {r} | {'-' if i is None else f'{i:,}'} | {ri} |")
    add_result(label, t, round(ratio, 3) if ratio else None, i)
print("## Results\n")
print("| case | ns/op | ratio to direct | instructions/op | instr. ratio to direct |")
print("|---|---:|---:|---:|---:|")
for label, g, c in rows:
    t = ns.get(g) if g else None
    i = int(instr[c]) if c and c in instr else None
    is_call = g is not None and g.startswith("BM_Call") or (c or "").startswith("call_")
    print_row(label, t, i, d_ns, d_in, is_call)
# Diagnostics: "off" is the typed call of this (release) build; idle/on come from the
# DISPATCH_DIAGNOSTICS=ON build, each against that build's own direct floor.
dns = {b["name"]: b["cpu_time"] * scale[b.get("time_unit", "ns")] for b in dgb}
dd_ns = dns.get("BM_Call_Direct"); dd_in = int(instr.get("diag:call_direct_fnptr", 0)) or None
hook_in = {}
if dgb or any(k.startswith("diag:") for k in instr):
    print("\n## Trace, recorder and observer: off / idle / on (typed unboxed call)\n")
    print("off = compiled out (this release build); idle = compiled in (-DDISPATCH_DIAGNOSTICS=ON), "
          "all off; on = one of them on (trace written to /dev/null, an empty observer). Ratios "
          "against the direct call of the same binary.\n")
    print("| case | ns/op | ratio to direct | instructions/op | instr. ratio to direct |")
    print("|---|---:|---:|---:|---:|")
    for fl in ("full", "mobile"):
        print_row(f"typed unboxed call, {fl}, hooks off (compiled out)", ns.get(f"BM_Call_Unboxed/{fl}"),
                  int(instr[f"call_unboxed/{fl}"]) if f"call_unboxed/{fl}" in instr else None,
                  d_ns, d_in, True)
        for mode in ("idle", "recorder", "trace", "observer"):
            c = f"diag:hooks_{mode}/{fl}"
            i = int(instr[c]) if c in instr else None
            hook_in[(mode, fl)] = i
            what = "hooks idle (compiled in)" if mode == "idle" else f"{mode} on"
            print_row(f"typed unboxed call, {fl}, {what}", dns.get(f"BM_Hooks/{mode}/{fl}"), i,
                      dd_ns, dd_in, True)
print("\n## Memory (bytes)\n")
print("| flavour | sizeof(OperatorEntry) | entry memoryFootprint() (1 def + 1 CPU kernel) | fallback table |")
print("|---|---:|---:|---:|")
for fl in ("full", "mobile"):
    print(f"| {fl} | {mem[(fl,'sizeof_entry')]:,} | {mem[(fl,'entry_footprint')]:,} | {mem[(fl,'fallback_table')]:,} |")
    for key, what in (("sizeof_entry", "sizeof(OperatorEntry)"),
                      ("entry_footprint", "entry memoryFootprint() (1 def + 1 CPU kernel)"),
                      ("fallback_table", "fallback table")):
        add_result(f"{what}, {fl}", None, None, None, mem[(fl, key)], fl)
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
print(f"- mobile entry at least 6x smaller than full (sizeof): {f/m:.2f}x: "
      + ("met" if f / m >= 6 else "MISSED") + f" (footprint with the heap both share: {ff/mf:.2f}x)")
fu, mu = instr.get("call_unboxed/full"), instr.get("call_unboxed/mobile")
if fu and mu:
    print(f"- typed call, full, at most 30 instructions: {fu}: " + ("met" if int(fu) <= 30 else "MISSED"))
    print(f"- typed call, mobile no more than full: {mu} vs {fu}: " + ("met" if int(mu) <= int(fu) else "MISSED"))
for fl in ("full", "mobile"):
    off, idle = instr.get(f"call_unboxed/{fl}"), hook_in.get(("idle", fl))
    if off and idle:
        extra = idle - int(off)
        print(f"- hooks compiled in but idle, {fl}: {idle} vs {off} instructions = {extra:+d} per call "
              "(target <= 2): " + ("met" if extra <= 2 else "MISSED"))
    elif fl == "full":
        print("- hooks compiled in but idle: not measured (no build/bench-diagnostics: bench/run.sh --build)")
for fl in ("full", "mobile"):
    t = ns.get(f"BM_Reg_Fallback/{fl}/10000")
    if t is not None:
        print(f"- fallback registration with 10000 ops, {fl}: {t/1e6:.3f} ms per key: "
              + ("met" if t < 1e6 else "MISSED") + " (target < 1 ms)")
# --- PyTorch's dispatcher (bench/torch_bench.cpp), same environment, its own direct floor.
t_in = {c: int(v) for c, v in instr.items() if c.startswith("torch_")}
if torch_version is None:
    print("- fewer instructions than PyTorch's dispatcher: not measured "
          "(no dispatch_torch_bench: bench/run.sh --build --torch)")
else:
    ours_un = {fl: instr.get(f"call_unboxed/{fl}") for fl in ("full", "mobile")}
    theirs = t_in.get("torch_call_unboxed")
    if theirs and all(ours_un.values()):
        parts = [f"{fl} {int(ours_un[fl])} vs {theirs} instructions/op "
                 f"(ours/theirs {int(ours_un[fl]) / theirs:.2f})" for fl in ("full", "mobile")]
        met = all(int(v) < theirs for v in ours_un.values())
        print(f"- fewer instructions than PyTorch's dispatcher (typed call, libtorch {torch_version}): "
              + ", ".join(parts) + ": " + ("met" if met else "MISSED"))
    else:
        print("- fewer instructions than PyTorch's dispatcher: no instruction counts (valgrind?)")
    print(f"\n## PyTorch's dispatcher (libtorch {torch_version}), same run\n")
    print("Ratios to *its* direct call (same binary); ours/theirs compares the matching row of the "
          "table above with this one.\n")
    print("| case | ns/op | ratio to its direct | instructions/op | instr. ratio to its direct "
          "| ours/theirs instr. (full, mobile) | ours/theirs ns (full, mobile) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    td_ns = ns.get("BM_Torch_Direct"); td_in = t_in.get("torch_call_direct_fnptr")
    trows = [
        ("direct call through a function pointer (floor)", "BM_Torch_Direct", "torch_call_direct_fnptr",
         "BM_Call_Direct", "call_direct_fnptr", False),
        ("typed call (libtorch)", "BM_Torch_Unboxed", "torch_call_unboxed",
         "BM_Call_Unboxed/{fl}", "call_unboxed/{fl}", True),
        ("typed call + TLS guard (at::AutoDispatchBelowADInplaceOrView)", "BM_Torch_UnboxedWithGuard",
         "torch_call_unboxed_guard", "BM_Call_UnboxedWithGuard/{fl}", "call_unboxed_guard/{fl}", True),
        ("redispatch chain AutogradCPU->ADInplaceOrView->CPU", "BM_Torch_Chain3", "torch_call_chain3",
         "BM_Call_Chain3/{fl}", "call_chain3/{fl}", True),
        ("boxed call (stack built per call)", "BM_Torch_Boxed", "torch_call_boxed",
         "BM_Call_Boxed/{fl}", "call_boxed/{fl}", True),
    ]
    if "torch_noprof_call_unboxed" in t_in or "BM_TorchNoProf_Unboxed" in ns:
        trows += [
            ("typed call, PYTORCH_DISABLE_PER_OP_PROFILING", "BM_TorchNoProf_Unboxed",
             "torch_noprof_call_unboxed", "BM_Call_Unboxed/{fl}", "call_unboxed/{fl}", True),
            ("typed call + TLS guard, PYTORCH_DISABLE_PER_OP_PROFILING", "BM_TorchNoProf_UnboxedWithGuard",
             "torch_noprof_call_unboxed_guard", "BM_Call_UnboxedWithGuard/{fl}", "call_unboxed_guard/{fl}", True),
            ("redispatch chain, PYTORCH_DISABLE_PER_OP_PROFILING", "BM_TorchNoProf_Chain3",
             "torch_noprof_call_chain3", "BM_Call_Chain3/{fl}", "call_chain3/{fl}", True),
        ]
    for label, g, c, og, oc, per_fl in trows:
        t = ns.get(g); i = t_in.get(c)
        # Each binary's rows are compared with its own direct floor.
        np = g.startswith("BM_TorchNoProf")
        dn = ns.get("BM_TorchNoProf_Direct") if np else td_ns
        di = t_in.get("torch_noprof_call_direct_fnptr") if np else td_in
        r = f"{t / dn:.2f}x" if t and dn else "-"
        ri = f"{i / di:.2f}x" if i and di else "-"
        fls = ("full", "mobile") if per_fl else ("",)
        oi = [instr.get(oc.format(fl=fl)) for fl in fls]
        on = [ns.get(og.format(fl=fl)) for fl in fls]
        ri_o = ", ".join(f"{int(v) / i:.2f}" if v and i else "-" for v in oi)
        rn_o = ", ".join(f"{v / t:.2f}" if v and t else "-" for v in on)
        print(f"| PyTorch {torch_version} {label} | {fmt_ns(t)} | {r} | "
              f"{'-' if i is None else f'{i:,}'} | {ri} | {ri_o} | {rn_o} |")
        add_result(f"PyTorch {torch_version} {label}", t, round(t / dn, 3) if t and dn else None, i,
                   flavour="pytorch")
run = {"date": os.environ["BENCH_RUN_DATE"], "commit": os.environ["BENCH_RUN_COMMIT"],
       "cpu": os.environ["BENCH_RUN_CPU"], "nproc": int(os.environ["BENCH_RUN_NPROC"]),
       "load_average": os.environ["BENCH_RUN_LOAD"], "compiler": os.environ["BENCH_RUN_COMPILER"],
       "command": os.environ["BENCH_RUN_COMMAND"]}
with open(sys.argv[7], "w") as out:
    json.dump({"run": run, "rows": results}, out, indent=1)
print(f"\nAll rows as JSON: {os.path.relpath(sys.argv[7])}")
PY
if [[ $QUICK == 0 ]]; then
  # The committed tables come from this run (the --quick figures are for a smoke check only).
  echo
  PYTHONPATH=$ROOT/ci python3 -m dispatch_ci.bench_tables record "$RESULTS_JSON" || exit 1
fi
fi  # want dispatch

# --- 4. Harness throughput.
if want throughput; then
  echo
  echo "## Harness throughput"
  echo
  if [[ -n "${BENCH_SKIP_FUZZ:-}" ]]; then
    echo "(skipped: BENCH_SKIP_FUZZ set)"
  else
    FUZZ_SECONDS=$FUZZ_SECONDS "$ROOT/bench/fuzz_throughput.sh"
  fi
fi

# --- 5. Floors of the sequence fuzzers' throughput.
if want floors; then
  echo
  echo "## Floors of the fuzz targets' throughput"
  echo
  if [[ -n "${BENCH_SKIP_FUZZ:-}" ]]; then
    echo "(skipped: BENCH_SKIP_FUZZ set)"
  else
    FLOOR_SECONDS=$FUZZ_SECONDS "$ROOT/bench/fuzz_floor.sh"
  fi
fi

# --- 6. Canaries: time to detection from an empty corpus.
if want canaries; then
  echo
  echo "## Canaries: time to detection from an empty corpus"
  echo
  "$ROOT/bench/bug_benchmark.sh" --bugs canary "${CANARY_ARGS[@]}" || exit 1
fi

# --- 7. PyTorch's start-up registrations: ours beside c10.
if want workload; then
  echo
  if [[ $BUILD == 1 ]]; then
    (cd "$ROOT" && cmake --preset full-release >/dev/null && cmake --build "$REL" -j2 --target workload_replay) || exit 1
  fi
  BENCH_BUILD_DIR=$REL "$ROOT/bench/workload_bench.sh" $([[ $QUICK == 1 ]] && echo --quick) || exit 1
fi
