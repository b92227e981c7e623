"""ci/canaries.sh -- proof, on every run, that the harness still catches the bugs it exists for.

  ci/canaries.sh [--fast] [--canary NAME]... [--flavours a,b] [--layers a,b] [--jobs N] [--no-compare]
  ci/canaries.sh --selftest

Each canary is a patch, ci/canaries/<name>.patch (the folder is the list). Its header says
which real bug it re-creates, the flavours it lives in and the layers/targets that must catch
it. For each canary and flavour the job applies the patch to a scratch copy of the tree
(build/canary-work/<name>/src/; a patch that no longer applies stops the job), configures the
fuzz preset (ASan + UBSan + hardened + libFuzzer), builds only the targets the canary needs,
and runs the layers on it and on the unpatched tree (the baseline, cached per tree content in
build/canary-baseline/):

  unit      its unit tests (ctest)
  property  its RapidCheck properties (ctest, default case counts)
  corpus    replay of its fuzz targets' committed corpus and regressions (ctest)
  fuzz      each of its fuzz targets from the committed corpus, seeds 1..5, 60 s each, with
            the target's fuzz/options file; caught only if >= 4 of 5 seeds catch it

A layer catches a canary only when the baseline passes, the failure is a detection (sanitizer
report, hardened-library or library assertion, invariant check, model disagreement, test
expectation; a report at the faulty access must lie in code the patch changes, or in a
function that calls a function the patch changes), and for
fuzzing a crash artifact exists that fails the same way again on the patched build and passes
on the unpatched one. A timeout, OOM, leak, bad option, missing file, a crash elsewhere or a
failing baseline is ERROR. One verdict per canary x flavour (a missing one is ERROR): caught,
LUCK (fuzzing only, < 4 of 5 seeds), ESCAPED or ERROR. Exit 1 unless every verdict is caught;
2 for bad arguments.

  --fast          pre-merge subset: every canary, only its `fast` layer:target in its first
                  flavour, building only that target
  --canary NAME   only this canary (repeatable)
  --flavours a,b  run the canaries in these flavours instead of those their headers name
                  (declared names or random:N:SEED), e.g. to show that a flavour-shaped canary
                  escapes every declared flavour; results go to <mode>-<canaries>-in-<flavours>/
  --layers a,b    only these layers (default unit,property,corpus,fuzz)
  --jobs N        build jobs and parallel fuzz seeds (default 2)
  --no-compare    skip the plain-ASan comparison
  --tree NAME     write build/canary-work/NAME/src/ (the tree with that patch) and print its
                  path, for jobs that build a canary themselves (nightly, replay, repro)
  --configure-args FLAVOUR
                  print the cmake arguments of a canary tree of FLAVOUR (a declared flavour or
                  random:N:SEED), one per line: the fuzz preset and the flavour selection
  --selftest      run the verdict logic end to end on ci/canaries/selftest/*.patch (not
                  canaries: a no-op patch must be ESCAPED, a hang and a broken build ERROR);
                  exit 0 only if each gets the verdict its header expects

Plain-ASan comparison (full run): canaries whose header says `compare: plain-asan` are also
built with UBSan and the library assertions OFF (setup plain-asan) and run through the same
layers, to show what plain ASan misses. Those rows are information, not part of the verdict.

Results: build/canaries/<full|fast|selftest>[-<canary>...]/results.tsv (one row per run),
verdicts.tsv, compare.tsv, results.md (all three as Markdown), junit.xml (one case per verdict:
caught passes, ESCAPED and LUCK are failures, ERROR an error; a patch that no longer applies
is an error case too), logs/.
"""
import time
from pathlib import Path
from typing import Dict, List, Tuple

from .. import junit, paths, scratch
from ..canaries import junit_cases, patches, report
from ..canaries.run import CanaryRun
from ..canaries.trees import canary_source
from ..canaries.verdict import VERDICT_CAUGHT, verdicts
from ..log import Say, UsageError
from ..presets import positive_int, split_csv

SCRIPT = "ci/canaries.sh"


def add_arguments(p):
    p.add_argument("--fast", action="store_true", help="each canary's fast layer only")
    p.add_argument("--canary", action="append", default=[], metavar="NAME",
                   help="only this canary (repeatable)")
    p.add_argument("--flavours", help="run the canaries in these flavours instead of their headers'")
    p.add_argument("--layers", default=",".join(patches.LAYERS),
                   help="layers to run (default unit,property,corpus,fuzz)")
    p.add_argument("--jobs", "-j", type=positive_int, default=2,
                   help="build jobs and parallel fuzz seeds (default 2)")
    p.add_argument("--no-compare", action="store_true", help="skip the plain-ASan comparison")
    p.add_argument("--selftest", action="store_true",
                   help="check the verdict logic on ci/canaries/selftest/*.patch")
    p.add_argument("--tree", metavar="NAME",
                   help="only write the patched copy of canary NAME and print its path (for "
                        "other jobs: cmake -S <path> --preset P -B build/<P>-canary-NAME)")
    p.add_argument("--configure-args", metavar="FLAVOUR",
                   help="only print the cmake arguments of a canary tree of FLAVOUR, one per line")


def select(args) -> Tuple[List[patches.Canary], List[str], str]:
    """(canaries, layers, mode) from the options; bad input is a UsageError."""
    layers = split_csv(args.layers, "layers")
    for layer in layers:
        if layer not in patches.LAYERS:
            raise UsageError(f"unknown layer '{layer}' ({', '.join(patches.LAYERS)})")
    if args.selftest:
        if args.canary or args.fast or args.flavours:
            raise UsageError("--selftest takes no --canary, --fast or --flavours")
        canaries = patches.load_all(patches.SELFTEST_PATCHES)
        for c in canaries:
            if not c.expect:
                raise patches.PatchError(f"{paths.rel(c.path)}: a selftest patch needs 'expect:'")
        return canaries, layers, "selftest"
    canaries = patches.load_all()
    known = [c.name for c in canaries]
    for name in args.canary:
        if name not in known:
            raise UsageError(f"unknown canary '{name}' (known: {' '.join(known)})")
    if args.canary:
        canaries = [c for c in canaries if c.name in args.canary]
    if args.flavours:
        chosen = split_csv(args.flavours, "flavours")
        for flavour in chosen:
            if patches.flavour_problem(flavour):
                raise UsageError(patches.flavour_problem(flavour))
        for c in canaries:
            c.flavours = list(chosen)
    return canaries, layers, "fast" if args.fast else "full"


def setups(canary: patches.Canary, mode: str, compare: bool) -> List[str]:
    return ["hardened"] + (["plain-asan"] if canary.compare and compare and mode == "full" else [])


def write_tree(name: str) -> int:
    """--tree NAME: the patched copy on disk, its path on stdout."""
    if name not in [c.name for c in patches.load_all()]:
        raise UsageError(f"unknown canary '{name}' (the canaries are ci/canaries/*.patch)")
    print(canary_source(name))
    return 0


def print_configure_args(flavour: str) -> int:
    """--configure-args FLAVOUR: what trees.py configures a canary tree of FLAVOUR with."""
    if patches.flavour_problem(flavour):
        raise UsageError(patches.flavour_problem(flavour))
    print("\n".join(patches.configure_args(flavour)))
    return 0


def run(args) -> int:
    say = Say(SCRIPT)
    if args.configure_args:
        return print_configure_args(args.configure_args)
    if args.tree:
        try:
            return write_tree(args.tree)
        except (patches.PatchError, scratch.ApplyError) as e:
            say(f"ERROR: {e}")
            return 1
    mode = "selftest" if args.selftest else "fast" if args.fast else "full"
    out = paths.BUILD / "canaries" / mode
    if args.canary:
        out = out.with_name(f"{mode}-{'-'.join(args.canary)}")
    if args.flavours:
        out = out.with_name(f"{out.name}-in-{args.flavours.replace(',', '-').replace(':', '-')}")
    try:
        canaries, layers, mode = select(args)   # bad options stop here, before anything is written
        files = scratch.read_tree()
        # Every patch must apply before anything is built: a stale canary is a loud error.
        patched: Dict[str, Dict[str, bytes]] = {
            c.name: scratch.apply_patch(files, c.diff, paths.rel(c.path)) for c in canaries}
        stopped = ""
    except (patches.PatchError, scratch.ApplyError) as e:
        stopped = str(e)
    out.mkdir(parents=True, exist_ok=True)
    for old in ("results.tsv", "verdicts.tsv", "compare.tsv", "results.md", "junit.xml"):
        (out / old).unlink(missing_ok=True)
    if stopped:
        say(f"ERROR: {stopped}")
        junit.write_suite(out / "junit.xml", f"canaries {mode}", junit_cases.stopped(mode, stopped))
        return 1
    scratch.remove(out / "logs")
    start = time.time()
    job = CanaryRun(files, patched, out, args.jobs, say)
    expected = []
    # --fast and --selftest: the first flavour only (that is their table's row).
    one_flavour = mode in ("fast", "selftest")
    for canary in canaries:
        flavours = canary.flavours[:1] if one_flavour else canary.flavours
        expected += [(canary.name, f) for f in flavours]
        items = canary.plan(layers, fast=one_flavour)
        if not items:
            say(f"{canary.name}: nothing to run for layers {','.join(layers)} (verdict ERROR)")
            continue
        for flavour in flavours:
            for setup in setups(canary, mode, not args.no_compare):
                job.run(canary, flavour, setup, items)
    table = verdicts(job.rows, expected)
    report.write(out, job.rows, table)
    expect = {c.name: c.expect for c in canaries} if mode == "selftest" else None
    junit.write_suite(out / "junit.xml", f"canaries {mode}", junit_cases.cases(mode, table, job.rows, expect))
    print()
    print(f"{SCRIPT} ({mode}, {int(time.time() - start)}s, jobs {args.jobs})")
    print(report.console(job.rows, table))
    print(f"results: {paths.rel(out)}/results.tsv, results.md, junit.xml, logs in {paths.rel(out)}/logs/")
    if mode == "selftest":
        return _selftest_result(canaries, table)
    if not table or any(v.verdict != VERDICT_CAUGHT for v in table):
        print("RESULT: FAILED (a canary escaped, was caught only by luck, or could not be run)")
        return 1
    print("RESULT: every canary caught")
    return 0


def _selftest_result(canaries: List[patches.Canary], table) -> int:
    expect = {c.name: c.expect for c in canaries}
    wrong = [f"{v.canary}: {v.verdict}, expected {expect.get(v.canary)}" for v in table
             if v.verdict != expect.get(v.canary)]
    if not table or wrong:
        print("RESULT: SELFTEST FAILED: " + ("; ".join(wrong) or "no verdicts"))
        return 1
    print(f"RESULT: selftest passed ({len(table)} patches got their expected verdicts)")
    return 0
