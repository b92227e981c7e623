"""The start-up workload table of bench/README.md, written from the kept bench/workload_bench.sh runs.

bench/workload_bench.sh keeps each run as bench/results/workload/<date>T<time>Z-<commit>.json
(bench/workload_table.py writes it); `record` rewrites the generated block of bench/README.md from
the newest file there, with ours' full-flavour instructions over every kept run, so a change to
registration shows its effect beside the runs before it. `check` fails when the committed block is not what
`record` would write.

    python3 -m dispatch_ci.workload_tables record   (PYTHONPATH=ci)
    python3 -m dispatch_ci.workload_tables check
"""
import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from . import paths
from .bench_tables import BENCH_README, ResultsError, replace_block

WORKLOAD_DIR = paths.ROOT / "bench" / "results" / "workload"
BLOCK_WORKLOAD = "bench-workload"
# The compiler was recorded from the second kept run on; the first is still a valid "before".
RUN_KEYS = ("date", "commit", "command", "runs", "cpu", "load_average")
OURS_KEYS = ("flavour", "calls_made", "calls_refused", "calls_skipped", "operators", "best_ns",
             "median_ns", "instructions", "heap_retained_bytes", "bytes_per_operator", "invariants")
C10_KEYS = ("calls", "recorded_ns", "instructions", "heap_retained_bytes", "bytes_per_operator")


def load(path: Path) -> dict:
    """A kept workload run: its run metadata and, per release, ours per flavour and one c10 row."""
    if not path.is_file():
        raise ResultsError(f"{paths.rel(path)}: no such workload results file")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ResultsError(f"{paths.rel(path)}: not JSON ({e})") from e
    if not isinstance(data, dict) or not isinstance(data.get("run"), dict) \
            or not isinstance(data.get("releases"), list) or not data["releases"]:
        raise ResultsError(f"{paths.rel(path)}: expected an object with 'run' and a non-empty 'releases'")
    missing = [k for k in RUN_KEYS if k not in data["run"]]
    if missing:
        raise ResultsError(f"{paths.rel(path)}: run metadata lacks {', '.join(missing)}")
    for release in data["releases"]:
        name = release.get("release")
        rows = release.get("rows") or []
        ours = [r for r in rows if r.get("system") == "ours"]
        c10 = [r for r in rows if r.get("system") == "c10"]
        if not any(r.get("flavour") == "full" for r in ours) or len(c10) != 1:
            raise ResultsError(f"{paths.rel(path)}: release {name!r} needs ours' full row and one c10 row")
        for row, keys in [(r, OURS_KEYS) for r in ours] + [(c10[0], C10_KEYS)]:
            absent = [k for k in keys if k not in row]
            if absent:
                raise ResultsError(f"{paths.rel(path)}: release {name!r}, {row['system']} "
                                   f"{row.get('flavour', '')} lacks {', '.join(absent)}")
    return data


def kept_runs(directory: Optional[Path] = None) -> List[Path]:
    """The kept runs, oldest first: names start with the run's UTC date and time."""
    directory = directory or WORKLOAD_DIR
    files = sorted(directory.glob("*.json"))
    if not files:
        raise ResultsError(f"{paths.rel(directory)}: no workload results (run bench/run.sh --section workload)")
    return files


def _count(value: Optional[int]) -> str:
    return "not measured" if value is None else f"{value:,}"


def _ms(ns: int) -> str:
    return f"{ns / 1e6:,.1f}"


def _millions(value: int) -> str:
    return f"{value / 1e6:,.1f}M"


def _full_instructions(release: dict) -> Optional[int]:
    return next(r["instructions"] for r in release["rows"] if r["system"] == "ours" and r["flavour"] == "full")


def render(data: dict, source: str, history: Sequence[dict]) -> str:
    run = data["run"]
    lines = [f"Written by `bench/run.sh --section workload` from `{source}`: `{run['command']}` on "
             f"{run['date']}, commit {run['commit']}, {run['cpu']} (load average at start "
             f"{run['load_average']}), {run.get('compiler', 'compiler not recorded')}; ours' times are the best and median of "
             f"{run['runs']} runs, c10's the recording's one run. Instructions and bytes are exact; "
             "times move with the machine's load."]
    for release in data["releases"]:
        name = release["release"]
        ours = [r for r in release["rows"] if r["system"] == "ours"]
        c10 = next(r for r in release["rows"] if r["system"] == "c10")
        lines += ["", f"**libtorch {name}**", "",
                  "| system | calls | time ms, best / median | instructions | instr. per call "
                  "| heap kept, bytes | bytes per operator | checkInvariants |",
                  "|---|---:|---:|---:|---:|---:|---:|---|"]
        for r in ours:
            per_call = (f"{r['instructions'] / r['calls_made']:,.0f}"
                        if r["instructions"] is not None and r["calls_made"] else "-")
            lines.append(f"| ours, {r['flavour']} | {r['calls_made']:,} made, {r['calls_refused']:,} refused, "
                         f"{r['calls_skipped']:,} skipped | {_ms(r['best_ns'])} / {_ms(r['median_ns'])} "
                         f"| {_count(r['instructions'])} | {per_call} | {r['heap_retained_bytes']:,} "
                         f"| {_count(r['bytes_per_operator'])} | {r['invariants']} |")
        c10_per_call = (f"{c10['instructions'] / c10['calls']:,.0f}"
                        if c10["instructions"] is not None and c10["calls"] else "-")
        lines.append(f"| c10 | {c10['calls']:,} recorded | {_ms(c10['recorded_ns'])} (one run) "
                     f"| {_count(c10['instructions'])} | {c10_per_call} | {_count(c10['heap_retained_bytes'])} "
                     f"| {_count(c10['bytes_per_operator'])} | - |")
        ours_full, theirs = _full_instructions(release), c10["instructions"]
        if ours_full is None or theirs is None:
            goal = "not measured"
        else:
            goal = (f"{'yes' if ours_full <= theirs else 'no'} (ours/c10 {ours_full / theirs:.2f}: "
                    f"{_millions(ours_full)} vs {_millions(theirs)})")
        lines += ["", f"Goal, libtorch {name}: ours <= c10 in instructions, full flavour: {goal}."]
        kept = [(run_data["run"]["commit"], _full_instructions(r)) for run_data in history
                for r in run_data["releases"] if r["release"] == name]
        if len(kept) > 1:
            lines.append("Ours full, instructions over the kept runs (oldest first): " + " -> ".join(
                f"{_count(None) if value is None else _millions(value)} ({commit})" for commit, value in kept) + ".")
    return "\n".join(lines)


def expected_readme(runs: Sequence[Path], bench_readme: Optional[Path] = None) -> str:
    """bench/README.md with its workload block written from the newest run (and the history of all)."""
    bench_readme = bench_readme or BENCH_README
    history = [load(run) for run in runs]
    body = render(history[-1], paths.rel(runs[-1]), history)
    if not bench_readme.is_file():
        raise ResultsError(f"{paths.rel(bench_readme)}: missing")
    return replace_block(bench_readme.read_text(), BLOCK_WORKLOAD, body, paths.rel(bench_readme))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m dispatch_ci.workload_tables",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("record", "check"))
    args = parser.parse_args(argv)
    try:
        runs = kept_runs()
        text = expected_readme(runs)
        if args.command == "record":
            BENCH_README.write_text(text)
            print(f"workload table written into {paths.rel(BENCH_README)} from {paths.rel(runs[-1])}")
            return 0
        if BENCH_README.read_text() != text:
            print(f"{paths.rel(BENCH_README)}: the workload table is not what bench/run.sh writes from "
                  f"{paths.rel(runs[-1])}", file=sys.stderr)
            return 1
        print(f"workload table matches {paths.rel(runs[-1])}")
        return 0
    except ResultsError as e:
        print(f"workload_tables: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
