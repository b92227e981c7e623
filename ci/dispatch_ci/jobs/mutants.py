"""ci/mutants.sh -- mutation testing: do the pre-merge tests notice a small change to dispatch/?

  ci/mutants.sh [--seed S] [--n N] [--from K | --only K,L] [--preset P] [--files a,b] [--timeout SECONDS] [--jobs N]

Draws N mutation sites with seed S (ci/dispatch_ci/mutants/mutator.py: comparison and
arithmetic operator swaps, off-by-ones, boolean flips, deleted statements, swapped arguments)
from the files given (default: dispatch/src/*.cpp, dispatch/include/dispatch/*.h). A scratch
copy of the tree (build/mutants/src/) is built with the preset (default full-asan-ubsan: both
flavours in one binary) and must pass the suite: the unit, property and corpus labels. Then
each mutant, one at a time, in that copy:

  invalid     it does not compile (not counted)
  equivalent  every object file is byte-identical to the unmutated build's (not counted)
  killed      a test of the suite fails, or the suite overruns --timeout
  survived    the suite passes

Prints the score killed / (killed + survived) and the diff of every survivor. --from K resumes
a stopped run: the same draw (same seed, n and tree), judging mutants K..N only (its results
then cover those); --only K,L judges just those mutants of the draw (re-run a survivor once a
test is meant to kill it). Results:
build/mutants/seed<S>/results.tsv, survivors.diff, summary.txt, logs/. Exit 0 when every
mutant was judged, 1 when the unmutated tree does not build or pass, 2 for bad arguments, 130
when interrupted (Ctrl-C; the mutants judged so far are summarised).
"""
import fnmatch
import hashlib
import time
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from .. import compiler_cache, paths, procs, scratch, table
from ..log import Say, UsageError
from ..mutants import mutator
from ..presets import check_known, configure_presets, positive_int, split_csv

SCRIPT = "ci/mutants.sh"
DEFAULT_FILES = "dispatch/src/*.cpp,dispatch/include/dispatch/*.h"
SUITE_LABELS = "^(unit|property|corpus)$"
WORK = paths.BUILD / "mutants"


def add_arguments(p):
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--n", type=positive_int, default=10, help="number of mutants (default 10)")
    p.add_argument("--from", dest="first", type=positive_int, default=1, metavar="K",
                   help="start at mutant K of the draw (resume a stopped run; default 1)")
    p.add_argument("--only", metavar="K,L",
                   help="judge only these mutants of the draw (e.g. re-run a survivor after a new test)")
    p.add_argument("--preset", default="full-asan-ubsan",
                   help="configure preset for the build (default full-asan-ubsan)")
    p.add_argument("--files", default=DEFAULT_FILES,
                   help=f"comma-separated globs of files to mutate (default {DEFAULT_FILES})")
    p.add_argument("--timeout", type=positive_int, default=900,
                   help="seconds the suite may take per mutant (default 900)")
    p.add_argument("--jobs", "-j", type=positive_int, default=2,
                   help="build and ctest parallelism (default 2)")


def object_hashes(build_dir: Path) -> Dict[str, str]:
    return {str(p.relative_to(build_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in build_dir.rglob("*.o")}


class MutantRun:
    def __init__(self, args, files: Dict[str, bytes], say: Say):
        self.args, self.files, self.say = args, files, say
        self.src = WORK / "src"
        self.build_dir = WORK / args.preset
        self.out = WORK / f"seed{args.seed}"
        self.logs = self.out / "logs"

    def build(self, log: Path) -> bool:
        if not (self.build_dir / "build.ninja").is_file():
            # ccache: putting the unmutated file back then costs no compile at all
            configure = ["cmake", "--preset", self.args.preset, "-B", self.build_dir,
                         *compiler_cache.configure_args()]
            if not procs.run(configure, log=log, cwd=self.src, env=compiler_cache.build_env()).ok:
                return False
        return procs.run(["cmake", "--build", self.build_dir, "-j", str(self.args.jobs)],
                         log=log, append=True, nice=10, cwd=self.src, env=compiler_cache.build_env()).ok

    def suite(self, log: Path, stop_on_failure: bool) -> procs.Result:
        cmd = ["ctest", "--test-dir", self.build_dir, "-L", SUITE_LABELS, "-j",
               str(self.args.jobs), "--no-tests=error", "--output-on-failure",
               "--timeout", str(self.args.timeout)]
        if stop_on_failure:
            cmd.append("--stop-on-failure")
        return procs.run(cmd, log=log, timeout=self.args.timeout, nice=10, cwd=self.src)

    def prepare(self) -> bool:
        """The unmutated copy must build and pass the suite (remembered per tree content)."""
        scratch.sync(self.files, self.src)
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.logs / "unmutated.log"
        start = time.time()
        self.say(f"unmutated tree: build {paths.rel(self.build_dir)}  (log: {paths.rel(log)})")
        if not self.build(log):
            self.say("unmutated tree: BUILD FAILED")
            return False
        marker = WORK / f"{self.args.preset}.passed-{scratch.tree_key(self.files)}"
        if not marker.is_file():
            self.say("unmutated tree: run the suite (unit, property, corpus)")
            result = self.suite(self.logs / "unmutated-suite.log", stop_on_failure=False)
            if not result.ok:
                self.say(f"unmutated tree: SUITE FAILED (rc={result.returncode}); see "
                         f"{paths.rel(self.logs / 'unmutated-suite.log')}")
                return False
            marker.write_text(f"{int(result.seconds)}\n")
        self.say(f"unmutated tree: ready in {int(time.time() - start)}s")
        self.pristine = object_hashes(self.build_dir)
        return True

    def judge(self, index: int, site: mutator.Site) -> dict:
        text = self.files[site.file].decode("utf-8")
        mutated = dict(self.files)
        mutated[site.file] = mutator.apply(text, site).encode("utf-8")
        scratch.sync(mutated, self.src)
        log = self.logs / f"mutant{index:03d}.log"
        start = time.time()
        if not self.build(log):
            status = "invalid"
        elif object_hashes(self.build_dir) == self.pristine:
            status = "equivalent"
        else:
            result = self.suite(log.with_suffix(".suite.log"), stop_on_failure=True)
            status = ("killed (timeout)" if result.timed_out else
                      "killed" if not result.ok else "survived")
        return {"index": index, "site": site, "status": status,
                "seconds": int(time.time() - start), "diff": mutator.diff(text, site)}


def select_files(files: Dict[str, bytes], globs: List[str]) -> Dict[str, str]:
    chosen = {name: data.decode("utf-8") for name, data in files.items()
              if any(fnmatch.fnmatch(name, g) for g in globs)}
    if not chosen:
        raise UsageError(f"--files {','.join(globs)} matches no tracked file")
    return chosen


def summary(results: List[dict], seconds: int) -> str:
    count = {s: sum(1 for r in results if r["status"].startswith(s))
             for s in ("killed", "survived", "invalid", "equivalent")}
    valid = count["killed"] + count["survived"]
    score = f"{count['killed']}/{valid}" + (f" = {100 * count['killed'] / valid:.0f}%" if valid else "")
    widths = (-4, 58, 16, -6)
    lines = [table.row(widths, ("#", "site", "status", "s"))]
    for r in results:
        lines.append(table.row(widths, (r["index"], r["site"].describe(), r["status"], r["seconds"])))
    lines += ["", f"mutants: {len(results)} ({count['killed']} killed, {count['survived']} survived, "
              f"{count['invalid']} invalid, {count['equivalent']} equivalent) in {seconds}s",
              f"score (killed / valid): {score}"]
    return "\n".join(lines)


def is_valid(result: dict) -> bool:
    """Counted in the score: killed or survived (invalid and equivalent mutants are not)."""
    return result["status"].startswith(("killed", "survived"))


def judge_all(job: MutantRun, chosen: List[mutator.Site], results: List[dict], say: Say,
              enough: Optional[int] = None, deadline: Optional[float] = None, first: int = 1,
              only: Optional[Set[int]] = None) -> None:
    """Judges `chosen` from mutant `first` on (only the 1-based indices in `only`, when given),
    in order, into `results` (kept when interrupted); stops once `enough` valid mutants are
    judged or at `deadline` (time.time()). Leaves the scratch copy unmutated."""
    try:
        for i, site in enumerate(chosen[first - 1:], first):
            if only is not None and i not in only:
                continue
            if deadline is not None and time.time() >= deadline:
                say(f"time is up: {len(results)} of {len(chosen)} mutants judged")
                break
            say(f"({i}/{len(chosen)}) {site.describe()}: {site.after.strip()[:70]}")
            results.append(job.judge(i, site))
            say(f"    {results[-1]['status']} in {results[-1]['seconds']}s")
            if enough is not None and sum(map(is_valid, results)) >= enough:
                break
    finally:
        scratch.sync(job.files, job.src)


def judge_until_stopped(job: MutantRun, chosen: List[mutator.Site], results: List[dict], say: Say,
                        first: int = 1, only: Optional[Set[int]] = None) -> bool:
    """judge_all, but a stop (Ctrl-C, or SIGINT/SIGTERM, which the tool turns into SystemExit
    after ending the children) keeps the mutants judged so far; True when stopped early."""
    try:
        judge_all(job, chosen, results, say, first=first, only=only)
        return False
    except (KeyboardInterrupt, SystemExit):
        wanted = len(only) if only is not None else len(chosen) - first + 1
        say(f"interrupted: {len(results)} of {wanted} mutants judged")
        return True


def write_results(out: Path, results: List[dict], seconds: int) -> Tuple[str, str]:
    """summary.txt, survivors.diff and results.tsv in `out`; returns (summary, survivors)."""
    text = summary(results, seconds)
    survivors = "".join(f"# mutant {r['index']}: {r['site'].describe()}\n{r['diff']}\n"
                        for r in results if r["status"] == "survived")
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.txt").write_text(text + "\n", encoding="utf-8")
    (out / "survivors.diff").write_text(survivors, encoding="utf-8")
    (out / "results.tsv").write_text(
        "index\tfile\tline\toperator\tstatus\tseconds\n" + "".join(
            f"{r['index']}\t{r['site'].file}\t{r['site'].line}\t{r['site'].operator}\t"
            f"{r['status']}\t{r['seconds']}\n" for r in results), encoding="utf-8")
    return text, survivors


def parse_only(text: Optional[str], first: int, drawn: int) -> Optional[Set[int]]:
    """--only K,L as a set of 1-based mutant numbers of the draw; None without --only."""
    if text is None:
        return None
    if first > 1:
        raise UsageError("--only and --from exclude each other")
    items = split_csv(text, "mutants")
    if any(not item.isdigit() or not 1 <= int(item) <= drawn for item in items):
        raise UsageError(f"--only {text}: mutant numbers of the draw are 1..{drawn}")
    return {int(item) for item in items}


def run(args) -> int:
    check_known([args.preset], configure_presets())
    say = Say(SCRIPT)
    files = scratch.read_tree()
    candidates = mutator.all_sites(select_files(files, split_csv(args.files, "files")))
    chosen = mutator.sample(candidates, args.n, args.seed)
    if args.first > len(chosen):
        raise UsageError(f"--from {args.first}: the draw has only {len(chosen)} mutants")
    only = parse_only(args.only, args.first, len(chosen))
    say(f"{len(candidates)} mutation sites; seed {args.seed} draws {len(chosen)}"
        + (f"; judging from mutant {args.first}" if args.first > 1 else "")
        + (f"; judging mutants {','.join(map(str, sorted(only)))} only" if only else ""))
    job = MutantRun(args, files, say)
    start = time.time()
    if not job.prepare():
        return 1
    results: List[dict] = []
    # Stopped early (a time budget): the mutants judged so far are still worth a summary.
    interrupted = judge_until_stopped(job, chosen, results, say, first=args.first, only=only)
    text, survivors = write_results(job.out, results, int(time.time() - start))
    print()
    print(text)
    if survivors:
        print("\nsurvivors:\n" + survivors)
    print(f"results: {paths.rel(job.out)}/")
    return 130 if interrupted else 0
