"""The benchmark tables of bench/README.md and README.md, written from a bench/run.sh results file.

bench/run.sh writes build/bench/results.json, `record` keeps it as bench/results/<date>-<commit>.json
and rewrites the generated blocks of both Markdown files from the newest file there; `check`
fails when a committed block is not what `record` would write (a hand edit, a stale table, or a
results file whose rows the tables no longer find).

    python3 -m dispatch_ci.bench_tables record build/bench/results.json   (PYTHONPATH=ci)
    python3 -m dispatch_ci.bench_tables check
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import paths

RESULTS_DIR = paths.ROOT / "bench" / "results"
BENCH_README = paths.ROOT / "bench" / "README.md"
TOP_README = paths.ROOT / "README.md"
ROW_KEYS = ("case", "flavour", "ns_per_op", "ratio_to_direct", "instructions_per_op", "bytes")
RUN_KEYS = ("date", "commit", "cpu", "nproc", "load_average", "compiler", "command")

# Which block goes into which file.
BLOCK_RESULTS = "bench-results"
BLOCK_HEADLINE = "bench-headline"

# The headline: (what, case label of the full row, case label of the mobile row, figure).
HEADLINE = [
    ("typed call, ns/op (direct call through a function pointer: {direct_ns})",
     "typed unboxed call, full", "typed unboxed call, mobile", "ns_per_op"),
    ("typed call, instructions/op (direct call: {direct_instr})",
     "typed unboxed call, full", "typed unboxed call, mobile", "instructions_per_op"),
    ("redispatch chain of 3 kernels, instructions/op",
     "redispatch chain AutogradCPU->ADInplaceOrView->CPU, full",
     "redispatch chain AutogradCPU->ADInplaceOrView->CPU, mobile", "instructions_per_op"),
    ("boxed call, instructions/op",
     "boxed call (stack built per call), full", "boxed call (stack built per call), mobile",
     "instructions_per_op"),
    ("operator entry, bytes (sizeof)",
     "sizeof(OperatorEntry), full", "sizeof(OperatorEntry), mobile", "bytes"),
    ("backend fallback table, bytes", "fallback table, full", "fallback table, mobile", "bytes"),
]
DIRECT_CASE = "direct call through a function pointer (floor)"


class ResultsError(Exception):
    """A results file or a generated block that cannot be used: never a pass."""


def load(path: Path) -> dict:
    """A results file with its run metadata and at least one row, every row with every key."""
    if not path.is_file():
        raise ResultsError(f"{paths.rel(path)}: no such results file")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ResultsError(f"{paths.rel(path)}: not JSON ({e})") from e
    if not isinstance(data, dict) or not isinstance(data.get("run"), dict) \
            or not isinstance(data.get("rows"), list):
        raise ResultsError(f"{paths.rel(path)}: expected an object with 'run' and 'rows'")
    missing = [k for k in RUN_KEYS if k not in data["run"]]
    if missing:
        raise ResultsError(f"{paths.rel(path)}: run metadata lacks {', '.join(missing)}")
    if not data["rows"]:
        raise ResultsError(f"{paths.rel(path)}: no rows")
    for row in data["rows"]:
        absent = [k for k in ROW_KEYS if k not in row]
        if absent:
            raise ResultsError(f"{paths.rel(path)}: row {row.get('case')!r} lacks {', '.join(absent)}")
    return data


def newest(results_dir: Path = RESULTS_DIR) -> Path:
    """The newest committed results file: names start with the run's UTC date and time."""
    files = sorted(results_dir.glob("*.json"))
    if not files:
        raise ResultsError(f"{paths.rel(results_dir)}: no results file (run bench/run.sh)")
    return files[-1]


def stored_name(run: dict) -> str:
    """bench/results/<YYYY-MM-DDTHHMMZ>-<commit>.json, from the run's 'YYYY-MM-DD HH:MM UTC'."""
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}) UTC", run["date"])
    if not m:
        raise ResultsError(f"run date {run['date']!r} is not 'YYYY-MM-DD HH:MM UTC'")
    return f"{m.group(1)}T{m.group(2)}{m.group(3)}Z-{run['commit']}.json"


def _number(value: Optional[float], unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value < 100:
        return f"{value:.2f}{unit}"
    return f"{value:,.0f}{unit}"


def _ratio(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _source_line(data: dict, source: str) -> str:
    run = data["run"]
    return (f"Written by `bench/run.sh` from `{source}`: `{run['command']}` on {run['date']}, "
            f"commit {run['commit']}, {run['cpu']} (nproc {run['nproc']}, load average at start "
            f"{run['load_average']}), {run['compiler']}.")


def render_results(data: dict, source: str) -> str:
    """Every measured row: the call/key-set/registration table, then the memory table."""
    timed = [r for r in data["rows"] if r["bytes"] is None]
    sized = [r for r in data["rows"] if r["bytes"] is not None]
    if not timed or not sized:
        raise ResultsError(f"{source}: needs both timed rows and memory rows")
    lines = [_source_line(data, source), "",
             "| case | ns/op | ratio to direct | instructions/op |", "|---|---:|---:|---:|"]
    for r in timed:
        lines.append(f"| {r['case']} | {_number(r['ns_per_op'])} | {_ratio(r['ratio_to_direct'])} "
                     f"| {_number(r['instructions_per_op'])} |")
    lines += ["", "| memory | bytes |", "|---|---:|"]
    lines += [f"| {r['case']} | {r['bytes']:,} |" for r in sized]
    return "\n".join(lines)


def _by_case(data: dict) -> Dict[str, dict]:
    return {r["case"]: r for r in data["rows"]}


def _figure(rows: Dict[str, dict], case: str, field: str, source: str):
    if case not in rows or rows[case][field] is None:
        raise ResultsError(f"{source}: the headline needs '{field}' of the row '{case}'")
    return rows[case][field]


def render_headline(data: dict, source: str) -> str:
    """The README's small table: typed, chained and boxed calls and the memory, full vs mobile."""
    rows = _by_case(data)
    direct = {"direct_ns": _number(_figure(rows, DIRECT_CASE, "ns_per_op", source)),
              "direct_instr": _number(_figure(rows, DIRECT_CASE, "instructions_per_op", source))}
    lines = ["| result | full | mobile |", "|---|---:|---:|"]
    for what, full_case, mobile_case, field in HEADLINE:
        full = _number(_figure(rows, full_case, field, source))
        mobile = _number(_figure(rows, mobile_case, field, source))
        lines.append(f"| {what.format(**direct)} | {full} | {mobile} |")
    run = data["run"]
    lines += ["", f"From `{source}` (`bench/run.sh`, {run['date']}, commit {run['commit']}, "
              f"load average {run['load_average']} on {run['nproc']} cores): instruction counts "
              "and bytes are exact; ns/op move with the machine's load."]
    return "\n".join(lines)


def _markers(name: str) -> Tuple[str, str]:
    return (f"<!-- generated by bench/run.sh: {name}; do not edit by hand -->",
            f"<!-- end of generated {name} -->")


def replace_block(text: str, name: str, body: str, where: str) -> str:
    begin, end = _markers(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ResultsError(f"{where}: needs exactly one block between '{begin}' and '{end}'")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def expected_files(results_file: Path, bench_readme: Path = BENCH_README,
                   top_readme: Path = TOP_README) -> List[Tuple[Path, str]]:
    """(file, its text with both blocks written from `results_file`)."""
    data = load(results_file)
    source = paths.rel(results_file)
    out = []
    for path, name, body in ((bench_readme, BLOCK_RESULTS, render_results(data, source)),
                             (top_readme, BLOCK_HEADLINE, render_headline(data, source))):
        if not path.is_file():
            raise ResultsError(f"{paths.rel(path)}: missing")
        out.append((path, replace_block(path.read_text(), name, body, paths.rel(path))))
    return out


def stale(results_file: Path, bench_readme: Path = BENCH_README,
          top_readme: Path = TOP_README) -> List[str]:
    """The files whose generated block differs from what `record` writes (empty: all current)."""
    return [paths.rel(path) for path, text in expected_files(results_file, bench_readme, top_readme)
            if path.read_text() != text]


def record(build_results: Path, results_dir: Path = RESULTS_DIR, bench_readme: Path = BENCH_README,
           top_readme: Path = TOP_README) -> Path:
    """Keep a run's results as a dated file and write both blocks from the newest one."""
    stored = results_dir / stored_name(load(build_results)["run"])
    results_dir.mkdir(parents=True, exist_ok=True)
    if stored.resolve() != build_results.resolve():   # re-recording a kept file rewrites the tables only
        shutil.copyfile(build_results, stored)
    for path, text in expected_files(newest(results_dir), bench_readme, top_readme):
        path.write_text(text)
    return stored


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m dispatch_ci.bench_tables",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="store a results file and rewrite the generated tables")
    rec.add_argument("results", type=Path, help="the run's results (build/bench/results.json)")
    sub.add_parser("check", help="exit 1 when a generated table differs from the newest results file")
    args = parser.parse_args(argv)
    try:
        if args.command == "record":
            stored = record(args.results)
            print(f"kept {paths.rel(stored)}; tables written into "
                  f"{paths.rel(BENCH_README)} and {paths.rel(TOP_README)}")
            return 0
        source = newest()
        differing = stale(source)
        if differing:
            print(f"not what bench/run.sh writes from {paths.rel(source)}: {', '.join(differing)}",
                  file=sys.stderr)
            return 1
        print(f"tables match {paths.rel(source)}")
        return 0
    except ResultsError as e:
        print(f"bench_tables: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
