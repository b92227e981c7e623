#!/usr/bin/env python3
"""The start-up workload table: ours per flavour beside c10, per recorded release, and the goal
line, from the raw outputs bench/workload_bench.sh gathers in DIR/RELEASE/:

  ours.txt               workload_replay --measure: one `flavour=... key=value ...` line per flavour
  ours_instructions.txt  `flavour=F instructions=N` or `flavour=F not_measured=REASON`
  c10.txt                bench/workload_c10.sh: `release=R instructions=N calls=C heap_bytes=B heap_calls=H`,
                         a figure it could not measure as `<name>_not_measured=REASON`
  c10_after_load.txt     the recording's `# c10_after_load` lines (c10's operators after the load)

Prints the tables (Markdown) and writes every figure to --out as JSON; a figure that was not
measured is null there, with its reason, and "not measured (reason)" in the table.
"""
import argparse
import datetime
import json
import os
import sys


def fields(line: str) -> dict:
    """`a=1 b=two words=...`: values run to the next ` key=`; the last one may hold spaces."""
    out, key = {}, None
    for token in line.strip().split(" "):
        name, eq, value = token.partition("=")
        if eq and name and name.replace("_", "").isalnum():
            key = name
            out[key] = value
        elif key is not None:
            out[key] += " " + token
    return out


def number(value):
    return int(value) if value is not None and value.isdigit() else None


def read_release(directory: str) -> dict:
    ours = [fields(l) for l in open(os.path.join(directory, "ours.txt")) if l.strip()]
    if not ours:
        raise SystemExit(f"workload_table: {directory}/ours.txt has no flavour")
    instructions = {}
    for line in open(os.path.join(directory, "ours_instructions.txt")):
        if line.strip():
            f = fields(line)
            instructions[f["flavour"]] = f
    c10 = {}
    for line in open(os.path.join(directory, "c10.txt")):
        if line.strip():
            c10 = fields(line)
    after_load = [l.strip() for l in open(os.path.join(directory, "c10_after_load.txt")) if l.strip()]
    return {"ours": ours, "instructions": instructions, "c10": c10, "c10_after_load": after_load}


def ms(ns):
    return f"{ns / 1e6:,.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--compiler", required=True, help="the release build's compiler and flags")
    parser.add_argument("releases", nargs="+")
    args = parser.parse_args()

    document = {
        "run": {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "commit": args.commit, "command": args.command, "runs": args.runs, "compiler": args.compiler,
                "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
                "load_average": " ".join(open("/proc/loadavg").read().split()[:3])},
        "releases": [],
    }
    failed = False
    print("## PyTorch's start-up registrations: ours beside c10\n")
    print(f"Ours: the replay loop of bench/workload_replay.cpp (best and median of {args.runs} runs, in-process), "
          "instructions between its CALLGRIND_START/STOP, heap counted at operator new. c10: the recording's "
          "real_call_ns (one run on the recording machine) and the instructions inside "
          "c10::Dispatcher::register* while libtorch loads (bench/workload_c10.sh).\n")
    for release in args.releases:
        data = read_release(os.path.join(args.dir, release))
        rows = []
        c10_all_ns = int(data["ours"][0]["c10_ns_all"])
        recorded = int(data["ours"][0]["rows"])
        print(f"### libtorch {release}\n")
        print("| system | calls | time ms, best / median | instructions | instr. per call | heap kept, bytes "
              "| heap peak, bytes | bytes per operator |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for f in data["ours"]:
            flavour = f["flavour"]
            made, operators = int(f["made"]), int(f["operators"])
            cg = data["instructions"].get(flavour, {"not_measured": "not run (--quick: full and mobile only)"})
            instructions = number(cg.get("instructions"))
            kept = int(f["heap_retained_bytes"])
            row = {"system": "ours", "flavour": flavour, "calls_made": made, "calls_refused": int(f["refused"]),
                   "calls_skipped": int(f["skipped"]), "operators": operators,
                   "best_ns": int(f["best_ns"]), "median_ns": int(f["median_ns"]),
                   "instructions": instructions, "instructions_not_measured": cg.get("not_measured"),
                   "heap_retained_bytes": kept, "heap_peak_bytes": int(f["heap_peak_bytes"]),
                   "bytes_per_operator": round(kept / operators) if operators else None,
                   "c10_ns_same_calls": int(f["c10_ns_replayed"]), "invariants": f["invariants"]}
            failed |= f["invariants"] != "hold"
            rows.append(row)
            instr = (f"{instructions:,}" if instructions is not None else f"not measured ({cg.get('not_measured')})")
            per_call = f"{instructions / made:,.0f}" if instructions is not None and made else "-"
            print(f"| ours, {flavour} | {made:,} made, {int(f['refused']):,} refused, {int(f['skipped']):,} skipped "
                  f"| {ms(row['best_ns'])} / {ms(row['median_ns'])} | {instr} | {per_call} | {kept:,} "
                  f"| {row['heap_peak_bytes']:,} | {row['bytes_per_operator']:,} |")
        c10 = data["c10"]
        c10_instructions = number(c10.get("instructions"))
        c10_calls = number(c10.get("calls"))
        c10_heap = c10.get("heap_bytes")
        c10_heap = int(c10_heap) if c10_heap is not None and c10_heap.lstrip("-").isdigit() else None
        c10_heap_calls = number(c10.get("heap_calls"))
        heap_why = c10.get("heap_not_measured")
        if c10_heap is not None and c10_heap_calls != recorded:
            # The recorder's load must be the recording's, call for call, for its heap to be this set's.
            heap_why = f"the recorder's load made {c10_heap_calls} calls, the recording {recorded}"
            c10_heap = None
        if c10_heap is None and heap_why is None:
            heap_why = "bench/workload_c10.sh reported no heap figure"
        c10_operators = number(next((l.split()[-1] for l in data["c10_after_load"] if l.split()[:1] == ["operators"]),
                                    None))
        c10_row = {"system": "c10", "flavour": "full", "calls": recorded, "recorded_ns": c10_all_ns,
                   "instructions": c10_instructions, "instructions_calls_seen": c10_calls,
                   "instructions_not_measured": None if c10_instructions is not None
                   else c10.get("instructions_not_measured", "bench/workload_c10.sh reported no figure"),
                   "heap_retained_bytes": c10_heap, "heap_not_measured": heap_why if c10_heap is None else None,
                   "operators": c10_operators,
                   "bytes_per_operator": round(c10_heap / c10_operators) if c10_heap is not None and c10_operators
                   else None}
        rows.append(c10_row)
        instr = (f"{c10_instructions:,}" if c10_instructions is not None
                 else f"not measured ({c10_row['instructions_not_measured']})")
        per_call = f"{c10_instructions / c10_calls:,.0f}" if c10_instructions is not None and c10_calls else "-"
        heap = f"{c10_heap:,}" if c10_heap is not None else f"not measured ({heap_why})"
        per_op = f"{c10_row['bytes_per_operator']:,}" if c10_row["bytes_per_operator"] is not None else "-"
        print(f"| c10, libtorch {release} | {recorded:,} recorded"
              + (f" ({c10_calls:,} seen by callgrind)" if c10_calls is not None else "")
              + f" | {ms(c10_all_ns)} (recorded, one run) | {instr} | {per_call} | {heap} | - | {per_op} |")
        full = next((r for r in rows if r["system"] == "ours" and r["flavour"] == "full"), None)
        goal = {"met": None, "ratio": None}
        if full and full["instructions"] is not None and c10_instructions:
            ratio = full["instructions"] / c10_instructions
            goal = {"met": ratio <= 1.0, "ratio": round(ratio, 3)}
            note = ""
            if full["calls_skipped"]:
                note = (f"; ours replays {full['calls_made']:,} of c10's {recorded:,} calls "
                        f"({full['calls_skipped']:,} on keys we lack are skipped), per call "
                        f"{full['instructions'] / full['calls_made']:,.0f} vs "
                        f"{c10_instructions / (c10_calls or recorded):,.0f}")
            print(f"\nGoal, libtorch {release}: ours <= c10 in instructions, full flavour: "
                  f"{'yes' if goal['met'] else 'no'} (ours/c10 {ratio:.2f}: {full['instructions']:,} vs "
                  f"{c10_instructions:,}{note})")
        else:
            why = (full or {}).get("instructions_not_measured") or c10_row["instructions_not_measured"] or "no figures"
            print(f"\nGoal, libtorch {release}: ours <= c10 in instructions, full flavour: not measured ({why})")
        if full:
            print(f"Time, libtorch {release}: ours full {ms(full['best_ns'])} ms (best) vs c10 "
                  f"{ms(full['c10_ns_same_calls'])} ms recorded for the same calls "
                  f"(ours/c10 {full['best_ns'] / full['c10_ns_same_calls']:.2f}; different runs, machines may differ)\n")
        document["releases"].append({"release": release, "rows": rows, "goal_instructions_full": goal})
    with open(args.out, "w") as out:
        json.dump(document, out, indent=1)
    print(f"All figures as JSON: {os.path.relpath(args.out)}")
    if failed:
        print("checkInvariants failed after a replay (see workload_replay)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
