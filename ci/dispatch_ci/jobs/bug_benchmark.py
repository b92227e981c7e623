"""bench/bug_benchmark.sh -- how soon does fuzzing alone find real bugs? (FuzzBench / Magma style)

  bench/bug_benchmark.sh [--seeds N] [--minutes M] [--bugs a,b] [--targets a,b]
                         [--mutators default,bytes,structure] [--fake-stacks default,on,off] [--jobs N]
                         [--shard K/N] [--resume] [--write-readme]
  bench/bug_benchmark.sh --compare A.json B.json
  bench/bug_benchmark.sh --from-json results.json... [--write-readme]
  bench/bug_benchmark.sh --list | --draw-mutants SEED:N | --judge-mutants

The bug set (ci/dispatch_ci/bugbench/bugs.py; version BENCHMARK_VERSION): every canary a fuzz
target can see (ci/canaries/), the deep bugs (bench/bugs/deep/), and the mutants of the seeded
sample in bench/bugs/mutants.tsv that the pre-merge suite kills. Each bug's tree is built as the
canary job builds it (the fuzz preset of its flavour), then for each bug x target that can see
it x mutator, seeds 1..N fuzz from an EMPTY corpus for M minutes each, with the target's
fuzz/options flags, `--jobs` processes at a time (one per core). Each run is found (with its
seconds and libFuzzer executions to detection and the detection's classification, checked as
the canary job checks a fuzzing seed: the crash artifact fails the same way again and passes on
the unpatched build), not found, or an error (never found: bugbench/verdict.py lists the rules).

  --seeds N         seeds per bug x target x mutator (default 5)
  --minutes M       budget per run in minutes, fractions allowed (default 5)
  --bugs a,b        only these bugs: names, or the kinds canary, deep, mutant
  --targets a,b     only these fuzz targets
  --mutators a,b    default (each target as committed), bytes (libFuzzer's byte mutators only),
                    structure (the structure-aware mutator, fuzz/harness/trace_mutator.h): side by
                    side in one run and one build; for targets without the hook all three are
                    libFuzzer's own mutation, so each seed runs once and its run fills every
                    column (the copies say so: same_run_as) (default: default)
  --fake-stacks a,b ASan's detect_stack_use_after_return: default (as each target fuzzes:
                    sanitizer_builds/asan.options and its options file's [asan] section), on (=1),
                    off (=0): side by side in one run and one build, every target (default: default)
  --jobs N          build jobs and fuzzing processes at a time (default 2)
  --shard K/N       only the K-th of N shares of the bugs (every N-th bug from the K-th), for
                    one full run on N machines (.github/workflows/bug-benchmark.yml); a shard
                    alone is a slice, and --from-json merges all N into the full benchmark
  --resume          go on with the run build/bug-benchmark/journal.jsonl records (cut off by a
                    stopped machine or session): run only what it has not judged; refused unless
                    the arguments and the measured files (at a known commit) are the same
  --write-readme    write the result into bench/README.md's bug benchmark section
  --compare A B     side by side from two results.json files (e.g. two builds)
  --from-json F...  the report (and with --write-readme the README section) of stored runs,
                    without running anything; several files are parts of one measurement
                    (same version, budget and seeds) and are merged; the shards of one run
                    must have measured the same files (MEASURED, at one commit) and be given
                    once each
  --list            print the bug set and exit
  --draw-mutants SEED:N   redraw the mutant sample into bench/bugs/mutants.tsv (.cpp mutants
                    unjudged, header mutants excluded: bugbench/mutant_sample.py says why)
  --judge-mutants   judge the sample's unjudged mutants with the pre-merge suite (ci/mutants.sh)

Results: build/bug-benchmark/results.json (every run, with the machine's load before and
after), journal.jsonl (each run as it is judged: what --resume reads), results.md (the table), report.html (the table and the plot of bugs found over time),
logs/. Exit 0 when every run was judged, 1 when a run is an error (it measured nothing), 2 for
bad arguments. Whether the issue's targets are met is printed, not an exit code.
"""
import argparse
import datetime
import os
from pathlib import Path
from typing import List, Tuple

from .. import git_tree, paths, scratch
from ..bugbench import bugs, mutant_sample, report, results, summary
from ..bugbench.journal import Journal, JournalError, cut_off_runs
from ..bugbench.runner import FAKE_STACKS, MUTATORS, BenchRun
from ..canaries.patches import PatchError
from ..log import Say, UsageError
from ..presets import positive_int, split_csv

SCRIPT = "bench/bug_benchmark.sh"
OUT = paths.BUILD / "bug-benchmark"
README = paths.ROOT / "bench" / "README.md"
FULL_SEEDS, FULL_MINUTES = 5, 5.0
# What a run measures: the library, the harness and fuzz targets, their build, and the bugs with
# the code that draws, shares out, builds and judges them. Shards of one run must agree on the newest commit that
# changed these (git_tree.source); commits that only add results do not.
MEASURED = ["dispatch", "oracle", "fuzz", "cmake", "CMakeLists.txt", "CMakePresets.json",
            "sanitizer_builds", "ci/canaries", "ci/dispatch_ci/canaries", "ci/dispatch_ci/bugbench",
            "ci/dispatch_ci/sanitizer_env.py", "ci/dispatch_ci/fuzz_options.py", "ci/dispatch_ci/mutants",
            "ci/dispatch_ci/jobs/bug_benchmark.py",
            "bench/bugs/deep", "bench/bugs/mutants.tsv"]


def add_arguments(p):
    p.add_argument("--seeds", type=positive_int, default=FULL_SEEDS)
    p.add_argument("--minutes", type=float, default=FULL_MINUTES)
    p.add_argument("--bugs", default="")
    p.add_argument("--targets", default="")
    p.add_argument("--mutators", default="default")
    p.add_argument("--fake-stacks", default="default")
    p.add_argument("--jobs", "-j", type=positive_int, default=2)
    p.add_argument("--shard", type=shard_of_run, default=(1, 1), metavar="K/N")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--write-readme", action="store_true")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"))
    p.add_argument("--from-json", nargs="+", metavar="FILE")
    p.add_argument("--list", action="store_true")
    p.add_argument("--draw-mutants", metavar="SEED:N")
    p.add_argument("--judge-mutants", action="store_true")


def shard_of_run(text: str) -> Tuple[int, int]:
    """K/N with 1 <= K <= N."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"'{text}': a shard is K/N with 1 <= K <= N, e.g. 2/6")
    return int(k), int(n)


def my_share(chosen: list, shard: Tuple[int, int]) -> list:
    """Every N-th bug of the plan from the K-th: neighbours in the plan (bugs of one kind, built
    alike) go to different machines."""
    k, n = shard
    return [c for i, c in enumerate(chosen) if i % n == k - 1]


def plan(all_bugs: List[bugs.Bug], targets: List[str]):
    """(bug, its targets) for every bug some chosen target can see."""
    chosen = []
    for bug in all_bugs:
        mine = [t for t in bug.targets if not targets or t in targets]
        if mine:
            chosen.append((bug, mine))
    return chosen


def unseen_by_fuzzing(selected: List[bugs.Bug]) -> List[bugs.Bug]:
    """The selected bugs no fuzz target can see (report-only code, bugs.REPORT_ONLY_FUNCTIONS):
    not run, and named in the results so that leaving them out is never silent."""
    return [b for b in selected if not b.targets]


def is_full(args, unjudged_mutants: int) -> bool:
    """The issue's benchmark: every bug (no drawn mutant left unjudged), every target, 5 seeds
    of 5 minutes. Anything less is a slice and judges none of the targets."""
    return (args.seeds >= FULL_SEEDS and args.minutes >= FULL_MINUTES and not args.bugs
            and not args.targets and unjudged_mutants == 0)


def describe(document: dict) -> str:
    scope = "the full benchmark" if document["full"] else (
        "a SLICE of the benchmark (fewer bugs, targets, seeds or minutes than the full run, "
        "drawn mutants not judged yet, or not every shard)")
    return (f"{document['date']}: {scope}{summary.shards_of(document)}; "
            f"tree {document.get('commit', 'not recorded')}"
            + (f" (measured files as of {document['source']})" if document.get("source") else "")
            + f"; benchmark version {document['version']}, "
            f"{len(document['bugs'])} bugs, seeds 1..{document['seeds']}, {document['budget_seconds']:.0f} s "
            f"per run from an empty corpus, mutators {', '.join(document['mutators'])}{fake_stacks_clause(document)}, "
            f"{document['jobs']} processes at a time on {document['cores']} cores; load average "
            f"(1/5/15 min) {document['load_before']} before, {document['load_after']} after; "
            f"{document['minutes_taken']:.0f} min in all"
            + (f" over {document['sittings']} sittings (resumed)" if document.get("sittings", 1) > 1 else "")
            + unseen_clause(document)
            + (f" ({document['parts']} runs merged: load before the first, after the last)."
               if document.get("parts", 1) > 1 else "."))


def readme_section(document: dict) -> str:
    records = document["runs"]
    lines = ["## Bug benchmark: time to detection of planted bugs (bench/bug_benchmark.sh)", "",
             "Written by `bench/bug_benchmark.sh --write-readme`; ci/dispatch_ci/jobs/bug_benchmark.py "
             "says what is run and how a run is judged. Executions to detection are stable under "
             "load, seconds are not (the machine is shared).", "",
             describe(document), "", report.markdown(records, document["budget_seconds"]), "",
             "Per bug x target (the mutator comparison per target):", "",
             report.markdown(records, document["budget_seconds"], by_target=True), ""]
    lines += [f"- {line}." for line in summary.per_mutator(document)]
    targets = summary.per_target(document)
    if targets:
        lines += ["", "Per target, the mutator columns side by side (bug x target pairs):", ""]
        lines += [f"- {line}." for line in targets]
    speeds = summary.rates(document)
    if speeds:
        lines += ["", f"Executions per second, median over the runs of {summary.RATE_MIN_SECONDS:.0f} s or more:", ""]
        lines += [f"- {line}." for line in speeds]
    return "\n".join(lines)


def stored(given: List[str], option: str):
    """The results files named on the command line (relative to where the user stood)."""
    try:
        return results.read(Path(paths.START_DIR) / g for g in given)
    except results.ResultsError as e:
        raise UsageError(f"{option}: {e}")


def compare(given: List[str]) -> int:
    documents = stored(given, "--compare")
    try:
        results.check_comparable([d for _, d in documents], ("version", "budget_seconds"))
    except results.ResultsError as e:
        raise UsageError(f"--compare: {e}")
    labels = [path.parent.name if path.name == "results.json" else path.stem for path, _ in documents]
    if len(set(labels)) < len(labels):   # the same name twice: number them, never pool their runs
        labels = [f"{i}:{label}" for i, label in enumerate(labels, 1)]
    records = [dict(r, source=label) for label, (_, document) in zip(labels, documents)
               for r in document["runs"]]
    meta = " | ".join(describe(d) for _, d in documents)
    budget = documents[0][1]["budget_seconds"]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "compare.html").write_text(report.html(records, meta, budget), encoding="utf-8")
    print(report.markdown(records, budget))
    print(f"\nplot and table: {paths.rel(OUT / 'compare.html')}")
    return 0


def run(args) -> int:
    say = Say(SCRIPT)
    if args.compare:
        return compare(args.compare)
    if args.from_json:
        try:
            document = results.merge([d for _, d in stored(args.from_json, "--from-json")])
        except results.ResultsError as e:
            raise UsageError(f"--from-json: {e}")
        publish(document, args.write_readme)
        return 1 if any(r["result"] == "error" for r in document["runs"]) else 0
    files = scratch.read_tree()
    # What the run measures is the tree as read now: a commit made while it runs (they take
    # hours) must not be recorded as what it measured.
    provenance = {"commit": git_tree.commit(), "source": git_tree.source(MEASURED)}
    if args.draw_mutants:
        seed, _, count = args.draw_mutants.partition(":")
        if not (seed.isdigit() and count.isdigit() and int(count) > 0):
            raise UsageError("--draw-mutants SEED:N, e.g. 1:30")
        records = mutant_sample.draw(files, int(seed), int(count))
        bugs.write_mutants(records, mutant_sample.HEADER)
        say(f"{len(records)} mutants drawn with seed {seed} into {paths.rel(bugs.MUTANTS_TSV)} (unjudged)")
        return 0
    if args.judge_mutants:
        records = bugs.read_mutants()
        ok = mutant_sample.judge(files, records, args.jobs, say,
                                 lambda: bugs.write_mutants(records, mutant_sample.HEADER))
        return 0 if ok else 1
    mutators = split_csv(args.mutators, "mutators")
    for m in mutators:
        if m not in MUTATORS:
            raise UsageError(f"unknown mutator '{m}' ({', '.join(MUTATORS)})")
    fake_stacks = split_csv(args.fake_stacks, "fake-stacks")
    for f in fake_stacks:
        if f not in FAKE_STACKS:
            raise UsageError(f"--fake-stacks: unknown value '{f}' ({', '.join(FAKE_STACKS)})")
    if args.minutes <= 0:
        raise UsageError("--minutes must be positive")
    try:
        everything = bugs.load(files)
    except (bugs.BugSetError, PatchError) as e:
        say(f"ERROR: {e}")   # a bug that cannot be built from its record: the set is broken
        return 1
    try:
        selected = bugs.select(everything, split_csv(args.bugs, "bugs") if args.bugs else [])
    except bugs.BugSetError as e:
        raise UsageError(str(e))
    chosen = my_share(plan(selected, split_csv(args.targets, "targets") if args.targets else []), args.shard)
    unjudged = sum(1 for r in bugs.read_mutants() if r.premerge == "unjudged")
    not_in_set = f"{unjudged} drawn mutants are not judged yet and not in the set (--judge-mutants)"
    if args.list:
        for bug, targets in chosen:
            print(f"{bug.name:34} {bug.kind:7} {bug.flavour:6} {','.join(targets):50} {bug.what[:70]}")
        unseen = unseen_by_fuzzing(selected)
        print(f"{len(chosen)} bugs" + (f"; {not_in_set}" if unjudged else "")
              + (f"; no fuzz target can see {', '.join(b.name for b in unseen)}" if unseen else ""))
        return 0
    if unjudged:
        say(not_in_set)
    if not chosen:
        raise UsageError("no bug is seen by the chosen targets" + (
            f" in shard {args.shard[0]}/{args.shard[1]}" if args.shard[1] > 1 else ""))
    budget = max(1, int(round(args.minutes * 60)))
    journal = open_journal(args, {
        "version": bugs.BENCHMARK_VERSION, "source": provenance["source"], "seeds": args.seeds,
        "budget_seconds": budget, "mutators": mutators, "fake_stacks": fake_stacks, "jobs": args.jobs,
        "shard": list(args.shard), "bugs": {b.name: t for b, t in chosen}}, say)
    bench = BenchRun(files, OUT, args.jobs, budget, say, journal.done_runs(), journal.record)
    for bug, targets in chosen:
        bench.run_bug(bug, targets, mutators, args.seeds, fake_stacks)
    journal.close()
    k, n = args.shard
    full_scope = is_full(args, unjudged)
    document = {
        "version": bugs.BENCHMARK_VERSION, "date": datetime.date.today().isoformat(),
        **provenance, "full": full_scope and n == 1,
        "seeds": args.seeds, "budget_seconds": budget, "mutators": mutators, "fake_stacks": fake_stacks,
        "jobs": args.jobs, "cores": os.cpu_count(), "load_before": journal.sittings[0]["load_before"],
        "load_after": journal.sittings[-1]["load_after"], "minutes_taken": journal.minutes(),
        "sittings": len(journal.sittings),
        "bugs": [{"name": b.name, "kind": b.kind, "flavour": b.flavour, "targets": t, "what": b.what}
                 for b, t in chosen],
        "unseen": [{"name": b.name, "kind": b.kind, "what": b.what} for b in unseen_by_fuzzing(selected)],
        "runs": [r.to_json() for r in bench.records]}
    if n > 1:   # a shard alone is a slice; all N merged (--from-json) are the full run
        document["shard"] = {"index": k, "count": n, "full_scope": full_scope}
    publish(document, args.write_readme)
    errors = [r for r in bench.records if r.result == "error"]
    return 1 if errors else 0


def fake_stacks_clause(document: dict) -> str:
    """Said only when a run set ASan's fake stacks itself (not as each target fuzzes)."""
    fake_stacks = document.get("fake_stacks", ["default"])
    if fake_stacks == ["default"]:
        return ""
    return f", ASan's fake stacks (detect_stack_use_after_return) {' and '.join(fake_stacks)}"


def open_journal(args, settings: dict, say=print) -> Journal:
    """A new journal, or with --resume the one a cut-off run left (refused if it measured
    something else). Replacing a cut-off run's journal is said, with what --resume would keep."""
    path = OUT / "journal.jsonl"
    thrown_away = 0 if args.resume else cut_off_runs(path)
    if thrown_away:
        say(f"a new run replaces {paths.rel(path)}, a cut-off run with {thrown_away} judged runs "
            "(--resume would have gone on with them)")
    try:
        return Journal.resume(path, settings) if args.resume else Journal.start(path, settings)
    except JournalError as e:
        raise UsageError(f"--resume: {e}")


def unseen_clause(document: dict) -> str:
    unseen = document.get("unseen") or []
    if not unseen:
        return ""
    return ("; not in the fuzzing benchmark, as no fuzz target can reach the code (the pre-merge "
            "depth benchmark counts them): " + ", ".join(f"{b['name']} ({b['what']})" for b in unseen))


def publish(document: dict, write_readme: bool) -> None:
    """The report files, the table on the console and, when asked, the README section."""
    document["meta"] = describe(document)
    budget = document["budget_seconds"]
    written = report.write(OUT, document)
    print()
    print(describe(document))
    print(report.markdown(document["runs"], budget))
    print(f"results: {', '.join(paths.rel(p) for p in written.values())}")
    if write_readme:
        README.write_text(report.readme_section(README.read_text(encoding="utf-8"), readme_section(document)),
                          encoding="utf-8")
        print(f"written: {paths.rel(README)} (bug benchmark section)")

