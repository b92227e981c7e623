"""bench/premerge_depth.sh -- which bugs does ctest at pre-merge case counts catch, in how many RapidCheck seeds?

  bench/premerge_depth.sh [--bugs a,b] [--layers property,unit,corpus] [--seeds N] [--label L]
                          [--tree REV] [--jobs N] [--write-readme]
  bench/premerge_depth.sh --from-json A.json [B.json ...] [--time-json T.json] [--write-readme]
  bench/premerge_depth.sh --time-property REV [--rounds N] [--jobs N]

The bug benchmark's bug set (bench/bug_benchmark.sh --list: the canaries a fuzz target sees, the
deep bugs of bench/bugs/deep/, the killed mutants of bench/bugs/mutants.tsv), against the
pre-merge layers instead of fuzzing. Each bug's tree is built once, as the canary job builds it
(the fuzz preset of its flavour, hardened setup; ccache shared), with the targets of the chosen
layers, and so is the unpatched baseline. Then each layer runs with RC_PARAMS="seed=N" for seeds
1..N at the tests' own pre-merge case counts:

  property  the property layer ALONE: label property minus the replays of committed inputs
            (regressions_props, checker_agreement_props)
  unit      label unit minus the replays (fuzz/regression_tests/)
  corpus    label corpus plus those replays

(bugbench/premerge_layers.py). A layer's deterministic entries (no RapidCheck) run once per tree
and that run stands for every seed. Per bug x layer x seed: caught, not caught, or an error (a
build failure, a timeout, a crash unrelated to the patch, a run that fails on the unpatched tree
too: never caught; bugbench/premerge_verdict.py lists the rules).

  --bugs a,b        bugs by name, or the kinds canary, deep, mutant (default: all)
  --layers a,b      property, unit, corpus (default: all three)
  --seeds N         RapidCheck seeds 1..N (default 5)
  --label L         names this measurement in tables and its folder (default: the commit)
  --tree REV        build the bugs into the tree of commit REV (default: the working tree as it
                    is, uncommitted edits included): a before/after pair without checkouts
  --jobs N          build jobs (default 2)
  --from-json F...  the report of stored runs, side by side (e.g. before and after a change)
  --time-json T     with --write-readme: the property label timing to write beside the table
  --time-property REV   the property label's ctest time of REV and of the working tree, side by
                    side in one run (preset full-asan-ubsan, interleaved rounds: bugbench/
                    property_time.py); --rounds N (default 3)
  --write-readme    write the result into bench/README.md's pre-merge depth section

Results: build/premerge-depth/<label>/results.json (every seed record, the machine's load before
and after), results.md, logs/; build/premerge-depth/time/property-time.json. Exit 0 when every
seed was judged, 1 when one is an error, 2 for bad arguments. Whether the issue's target is met
is printed, not an exit code.
"""
import datetime
import json
import os
import time
from pathlib import Path
from typing import List, Optional, Tuple

from .. import git_tree, paths, procs, scratch
from ..bugbench import bugs, premerge_layers, premerge_report, property_time, report, results
from ..bugbench.premerge_runner import PremergeRun
from ..canaries.patches import PatchError
from ..log import Say, UsageError
from ..presets import positive_int, split_csv

SCRIPT = "bench/premerge_depth.sh"
OUT = paths.BUILD / "premerge-depth"
README = paths.ROOT / "bench" / "README.md"
VERSION = 1   # bumped when what is run or counted changes


def add_arguments(p):
    p.add_argument("--bugs", default="")
    p.add_argument("--layers", default=",".join(premerge_layers.LAYERS))
    p.add_argument("--seeds", type=positive_int, default=5)
    p.add_argument("--label", default="")
    p.add_argument("--tree", metavar="REV", default="")
    p.add_argument("--jobs", "-j", type=positive_int, default=2)
    p.add_argument("--from-json", nargs="+", metavar="FILE")
    p.add_argument("--time-json", metavar="FILE")
    p.add_argument("--time-property", metavar="REV")
    p.add_argument("--rounds", type=positive_int, default=3)
    p.add_argument("--write-readme", action="store_true")


def revision(rev: str) -> str:
    return procs.capture(["git", "-C", paths.ROOT, "rev-parse", "--short=10", rev]).stdout.strip() or rev


def describe(document: dict) -> str:
    return (f"{document['label']}: tree {document['commit']}, {document['date']}; "
            f"{len(document['bugs'])} bugs, layers {', '.join(document['layers'])}, RapidCheck seeds "
            f"1..{document['seeds']} at pre-merge case counts; fuzz-preset trees (hardened), "
            f"{document['jobs']} build jobs on {document['cores']} cores; load average (1/5/15 min) "
            f"{document['load_before']} before, {document['load_after']} after; "
            f"{document['minutes_taken']:.0f} min.")


def section(documents: List[Tuple[str, dict]], timing: Optional[dict]) -> str:
    lines = ["## Pre-merge depth: which bugs ctest catches at pre-merge counts (bench/premerge_depth.sh)", "",
             "Written by `bench/premerge_depth.sh --write-readme`; ci/dispatch_ci/jobs/premerge_depth.py "
             "says what is run, bugbench/premerge_verdict.py how a seed is judged.", ""]
    lines += [f"- {describe(d)}" for _, d in documents] + [""]
    lines += [premerge_report.markdown(documents), ""]
    lines += [f"- {label}: {premerge_report.target_line(d)}." for label, d in documents]
    if timing:
        lines += ["", "Property label time: " + property_time.describe(timing)]
    margin = premerge_report.margins(documents)
    if margin:
        lines += ["", "Where each property suite first failed (the case number of the first failing case, "
                      "per seed 1..5, smallest over the flavours; - = that suite did not fail in that seed):", ""] + margin
    caught = premerge_report.catches(documents[-1][1]["records"])
    if caught:
        lines += ["", f"How each bug was caught ({documents[-1][0]}, the first catching seed):", ""] + caught
    return "\n".join(lines)


def publish(documents: List[Tuple[str, dict]], timing: Optional[dict], write_readme: bool,
            out: Optional[Path]) -> None:
    text = premerge_report.markdown(documents)
    print()
    for _, d in documents:
        print(describe(d))
    print(text)
    for label, d in documents:
        print(f"{label}: {premerge_report.target_line(d)}")
    if out is not None:
        written = premerge_report.write(out, documents[0][1], text)
        print(f"results: {', '.join(paths.rel(p) for p in written.values())}")
    if write_readme:
        README.write_text(report.readme_section(README.read_text(encoding="utf-8"), section(documents, timing),
                                                premerge_report.README_BEGIN, premerge_report.README_END),
                          encoding="utf-8")
        print(f"written: {paths.rel(README)} (pre-merge depth section)")


def from_json(args) -> int:
    try:
        stored = results.read(Path(paths.START_DIR) / f for f in args.from_json)
        results.check_comparable([d for _, d in stored], ("version", "seeds"))
    except results.ResultsError as e:
        raise UsageError(f"--from-json: {e}")
    timing = None
    if args.time_json:
        try:
            timing = results.read([Path(paths.START_DIR) / args.time_json])[0][1]
        except results.ResultsError as e:
            raise UsageError(f"--time-json: {e}")
    documents = [(d["label"], d) for _, d in stored]
    if len({label for label, _ in documents}) < len(documents):
        documents = [(f"{i}:{label}", d) for i, (label, d) in enumerate(documents, 1)]
    publish(documents, timing, args.write_readme, None)
    return 1 if any(r["result"] == "error" for _, d in documents for r in d["records"]) else 0


def time_property(args, say: Say) -> int:
    """The property label's time at REV and in the working tree, interleaved in one run."""
    try:
        before = ("before-" + args.time_property.replace("/", "-"), scratch.read_revision(args.time_property))
        after = ("after-" + git_tree.commit().replace("+", "-"), scratch.read_tree())
        built = [(name, property_time.build(name, files, args.jobs, say)) for name, files in (before, after)]
    except (property_time.TimingError, premerge_layers.LayerError, scratch.ApplyError) as e:
        say(f"ERROR: {e}")
        return 1
    load_before = results.load_average()
    runs = property_time.measure(built, args.rounds, say)
    document = {"preset": property_time.PRESET, "rounds": args.rounds, "before": built[0][0],
                "after": built[1][0], "date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                "load_before": load_before, "load_after": results.load_average(), "runs": [r.to_json() for r in runs]}
    path = property_time.WORK / "property-time.json"
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(property_time.describe(document))
    print(f"results: {paths.rel(path)}")
    return 0 if all(r.passed for r in runs) else 1


def run(args) -> int:
    say = Say(SCRIPT)
    if args.from_json:
        return from_json(args)
    if args.time_property:
        return time_property(args, say)
    layers = split_csv(args.layers, "layers")
    unknown = [layer for layer in layers if layer not in premerge_layers.LAYERS]
    if unknown:
        raise UsageError(f"unknown layer(s) {', '.join(unknown)} ({', '.join(premerge_layers.LAYERS)})")
    try:   # the tree that gets built: a commit's, or the working tree as it is now
        files, measured = ((scratch.read_revision(args.tree), revision(args.tree)) if args.tree
                           else (scratch.read_tree(), git_tree.commit()))
    except scratch.ApplyError as e:
        raise UsageError(f"--tree: {e}")
    try:
        everything = bugs.load(files)
        selected = bugs.select(everything, split_csv(args.bugs, "bugs") if args.bugs else [])
    except (bugs.BugSetError, PatchError) as e:
        raise UsageError(str(e))
    label = args.label or measured
    out = OUT / label.replace("/", "-").replace("+", "-")
    start, load_before = time.time(), results.load_average()
    bench = PremergeRun(files, out, args.jobs, layers, args.seeds, say)
    for bug in selected:
        bench.run_bug(bug)
    document = {
        "version": VERSION, "benchmark_version": bugs.BENCHMARK_VERSION, "label": label, "commit": measured,
        "date": datetime.date.today().isoformat(), "seeds": args.seeds, "layers": layers, "jobs": args.jobs,
        "cores": os.cpu_count(), "load_before": load_before, "load_after": results.load_average(),
        "minutes_taken": (time.time() - start) / 60,
        "bugs": [{"name": b.name, "kind": b.kind, "flavour": b.flavour, "what": b.what} for b in selected],
        "records": [r.to_json() for r in bench.records]}
    publish([(label, document)], None, args.write_readme, out)
    return 1 if any(r.result == "error" for r in bench.records) else 0
