"""Times libtorch's start-up without and with each stale-table fix; writes docs/upstream/README.md's table.

Run by bench/upstream_load.sh inside the libtorch chroot, in the repository; with --from-json FILE
it only writes the docs again from a run's results (build/c10-fixes/RELEASE/upstream_load.json). Wall time: every
configuration once per round, the order rotated each round, so that a machine whose speed drifts
slows all alike; the ratio to plain is taken within each round. Instructions: callgrind, collecting
only inside ld.so's _dl_init, i.e. the static initialisers of libtorch (and of the few libraries
before it), where every operator and kernel is registered.
"""
import argparse
import datetime
import json
import os
import re
import resource
import statistics
import subprocess
import time
from pathlib import Path

REPORTS = Path("docs/upstream")


def configurations(directory):
    """(name, preload or '', the repros it fixes) for plain and every fix of fixes.tsv."""
    rows = [("plain", "", "")]
    for line in Path("fuzz/c10/fixes/fixes.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            fix, _, bugs = line.split("\t")
            rows.append((fix, str(Path(directory, fix + ".so").resolve()), bugs))
    return rows


def run_once(program, preload):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([program], env={"LD_PRELOAD": preload}, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or not re.fullmatch(r"\d+ operators\n", done.stdout):
        raise SystemExit(f"{program} with LD_PRELOAD={preload!r}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, int(done.stdout.split()[0])


def callgrind(program, preload, out):
    subprocess.run(["nice", "-n", "10", "valgrind", "--tool=callgrind", "--toggle-collect=_dl_init",
                    f"--callgrind-out-file={out}", program],
                   env={"LD_PRELOAD": preload}, check=True, capture_output=True, timeout=3600)
    return int(re.search(r"^totals: (\d+)", Path(out).read_text(), re.M).group(1))


def libtorch_version():
    return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libtorch-dev"],
                          capture_output=True, text=True).stdout or "unknown"


def table(results, runs, conditions):
    plain = results["plain"]
    lines = [
        f"Measured {conditions['date']} by `bench/upstream_load.sh` against libtorch-dev {conditions['libtorch']}"
        f" ({conditions['operators']} operators at start-up), {conditions['cpus']} CPUs shared with other work,"
        f" load average {conditions['load_before']} before and {conditions['load_after']} after the timed runs."
        f" Wall time: median of {runs} runs of each configuration, interleaved (min-max in brackets);"
        " \"vs plain\" is the median of the per-round ratios; CPU is user + system time. Instructions: callgrind inside `_dl_init`"
        " (the static initialisers, where libtorch registers every operator and kernel).",
        "",
        "| configuration | fixes the repros | wall s, median (min-max) | vs plain | CPU s, median | vs plain | instructions in the initialisers | vs plain |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        ratio = "" if name == "plain" else f"{(r['ratio'] - 1) * 100:+.1f}%"
        cpu_ratio = "" if name == "plain" else f"{(r['cpu_ratio'] - 1) * 100:+.1f}%"
        instr = f"{r['instructions']:,}" if r.get("instructions") else "not measured"
        instr_ratio = ""
        if name != "plain" and r.get("instructions") and plain.get("instructions"):
            instr_ratio = f"{(r['instructions'] / plain['instructions'] - 1) * 100:+.2f}%"
        bugs = ", ".join(f"`{b}`" for b in r["bugs"].split()) or "none (unfixed libtorch)"
        lines.append(f"| `{name}` | {bugs} | {r['wall']:.3f} ({r['wall_min']:.3f}-{r['wall_max']:.3f}) | {ratio} |"
                     f" {r['cpu']:.3f} | {cpu_ratio} | {instr} | {instr_ratio} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--release", required=True)
    parser.add_argument("--dir", required=True, help="build/c10-fixes/RELEASE: the fixes and upstream_load")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--from-json", help="write the docs from this earlier run's results only")
    args = parser.parse_args()
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text())
        write_docs(data["results"], len(data["results"]["plain"]["walls"]), data["conditions"])
        return
    program = str(Path(args.dir, "upstream_load").resolve())
    configs = configurations(args.dir)

    operators = {name: run_once(program, so)[2] for name, so, _ in configs}  # also the warm-up
    if len(set(operators.values())) != 1:
        raise SystemExit(f"the configurations register different operator counts: {operators}")
    load_before = "%.2f" % os.getloadavg()[0]
    samples = {name: [] for name, _, _ in configs}
    for round_ in range(args.runs):
        order = configs[round_ % len(configs):] + configs[:round_ % len(configs)]
        for name, so, _ in order:
            samples[name].append(run_once(program, so))
    load_after = "%.2f" % os.getloadavg()[0]

    results = {}
    for name, so, bugs in configs:
        walls = [s[0] for s in samples[name]]
        ratios = [s[0] / p[0] for s, p in zip(samples[name], samples["plain"])]
        cpu_ratios = [s[1] / p[1] for s, p in zip(samples[name], samples["plain"])]
        results[name] = {"bugs": bugs, "wall": statistics.median(walls), "wall_min": min(walls),
                         "wall_max": max(walls), "cpu": statistics.median(s[1] for s in samples[name]),
                         "ratio": statistics.median(ratios), "cpu_ratio": statistics.median(cpu_ratios),
                         "walls": walls}
        if not args.no_callgrind:
            results[name]["instructions"] = callgrind(program, so, Path(args.dir, f"callgrind.{name}.out"))
    conditions = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  "libtorch": libtorch_version(), "operators": next(iter(operators.values())),
                  "cpus": os.cpu_count(), "load_before": load_before, "load_after": load_after}
    Path(args.dir, "upstream_load.json").write_text(json.dumps({"conditions": conditions, "results": results}, indent=1))

    write_docs(results, args.runs, conditions)
    print(table(results, args.runs, conditions))


def replace_block(path, name, content):
    """Writes `content` between the <!-- NAME:begin --> and <!-- NAME:end --> lines of `path`."""
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    head, rest = path.read_text().split(begin, 1)
    path.write_text(head + begin + content + "\n" + end + rest.split(end, 1)[1])


def write_docs(results, runs, conditions):
    """The whole table into README.md; into each report the rows of plain and of the fixes for its bug."""
    replace_block(REPORTS / "README.md", "load-table", table(results, runs, conditions))
    for report in sorted(REPORTS.glob("stale-*.md")):
        mine = {name: r for name, r in results.items() if name == "plain" or report.stem in r["bugs"].split()}
        replace_block(report, "cost", table(mine, runs, conditions) + "\n\nThe whole table and how to measure"
                      " it again: [README.md](README.md#cost-on-libtorchs-start-up).")


if __name__ == "__main__":
    main()
