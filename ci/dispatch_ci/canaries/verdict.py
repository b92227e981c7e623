"""The sound canary verdict, as pure functions over recorded runs (no process is started here).

A layer catches a canary only when
  1. the same layer, same build setup, passes on the unpatched tree (the baseline);
  2. the patched run fails with a detection (classify.DETECTIONS), and a report at the faulty
     access (sanitizer, hardened library) lies in code the patch changed, or in a function
     that calls a function the patch changed (a direct caller: the faulty index came from
     patched code that has already returned, so that code is on no stack; enclosing.py);
  3. fuzzing: every catching seed left a crash artifact that, re-run on the patched build,
     gives the same kind of detection, and passes on the unpatched build.
Anything else that fails is ERROR, never caught.
"""
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from .classify import AT_THE_ACCESS, Classification, classify
from .patches import Touched
from .enclosing import function_body

# (file, line) -> (name, body) of the function there, read from the patched copy the report
# names; tests pass their own.
SourceReader = Callable[[str, int], Tuple[str, str]]

CAUGHT, ESCAPED, LUCK, ERROR = "caught", "escaped", "luck", "error"
FUZZ_SEEDS = 5
FUZZ_NEEDED = 4  # the 60 s rule: at least 4 of 5 seeds


@dataclass
class Run:
    """One recorded run: a ctest invocation, a fuzzer seed, or an artifact re-run."""
    returncode: int
    timed_out: bool = False
    seconds: float = 0.0
    log: str = ""

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not self.timed_out


@dataclass
class Outcome:
    """One row of the results table."""
    result: str
    detail: str
    seconds: float = 0.0
    how: str = "-"


def _failure(run: Run) -> Classification:
    if run.timed_out:
        return Classification("timeout", f"killed after {run.seconds:.0f}s")
    return classify(run.log)


def _detection(run: Run, touched: Touched,
               source: SourceReader) -> Tuple[Optional[Classification], str]:
    """(classification, "") when the failing `run` is a detection of this patch's bug;
    (classification or None, reason) when it is not."""
    found = _failure(run)
    if not found.is_detection:
        return found, f"{found.kind}, not a detection"
    if found.kind in AT_THE_ACCESS:
        if not found.frame_file:
            return found, f"{found.kind} without a frame in our code"
        if not touched.covers(found.frame_file, found.frame_function):
            caller, body = source(found.frame_file, found.frame_line)
            found.via = touched.called_in(body)
            if not found.via:
                return found, (f"{found.kind} in {found.frame_file}:{found.frame_line} "
                               f"({caller or 'no function found'}), code the patch does not "
                               f"change and which calls nothing it changes")
    return found, ""


def baseline_problem(baseline: Optional[Run]) -> Optional[str]:
    if baseline is None:
        return "no baseline (unpatched build failed)"
    if not baseline.passed:
        return f"fails on the unpatched tree too ({_failure(baseline)})"
    return None


def ctest_outcome(patched: Run, baseline: Optional[Run], touched: Touched,
                  source: SourceReader = function_body) -> Outcome:
    """unit, property and corpus layers: one ctest run on each tree."""
    problem = baseline_problem(baseline)
    if problem:
        return Outcome(ERROR, "baseline", patched.seconds, problem)
    if patched.passed:
        return Outcome(ESCAPED, "exit 0", patched.seconds)
    found, reason = _detection(patched, touched, source)
    if reason:
        return Outcome(ERROR, f"exit {patched.returncode}", patched.seconds, reason)
    return Outcome(CAUGHT, f"exit {patched.returncode}", patched.seconds, str(found))


@dataclass
class Seed:
    """One fuzzing seed on the patched build, its baseline, and its artifact's re-runs."""
    run: Run
    baseline: Optional[Run]
    artifact: Optional[str] = None
    rerun_patched: Optional[Run] = None
    rerun_baseline: Optional[Run] = None


def seed_outcome(seed: Seed, touched: Touched,
                 source: SourceReader = function_body) -> Tuple[str, str]:
    """(CAUGHT | ESCAPED | ERROR, how or why) for one seed."""
    problem = baseline_problem(seed.baseline)
    if problem:
        return ERROR, problem
    return run_outcome(seed, touched, source)


def run_outcome(seed: Seed, touched: Touched,
                source: SourceReader = function_body) -> Tuple[str, str]:
    """(CAUGHT | ESCAPED | ERROR, how or why) for one fuzzing run on the patched build, judged by
    its own log and its artifact's re-runs (rule 2 and 3; the caller checks a baseline run of
    the same seed when it has one: seed_outcome)."""
    if seed.run.passed:
        return ESCAPED, ""
    found, reason = _detection(seed.run, touched, source)
    if reason:
        return ERROR, reason
    if not seed.artifact:
        return ERROR, f"{found.kind} but no crash artifact"
    if seed.rerun_patched is None or seed.rerun_patched.passed:
        return ERROR, "the artifact does not fail again on the patched build"
    again = _failure(seed.rerun_patched)
    if again.kind != found.kind:
        return ERROR, f"the artifact fails differently on re-run ({again.kind}, was {found.kind})"
    if seed.rerun_baseline is None or not seed.rerun_baseline.passed:
        return ERROR, "the artifact fails on the unpatched build too"
    return CAUGHT, str(found)


def fuzz_outcome(seeds: List[Seed], touched: Touched, seconds_limit: float,
                 source: SourceReader = function_body) -> Outcome:
    """The fuzz layer: CAUGHT when at least FUZZ_NEEDED seeds catch it soundly, LUCK with fewer;
    any seed that went wrong makes the row ERROR."""
    if len(seeds) != FUZZ_SEEDS:
        return Outcome(ERROR, f"{len(seeds)}/{FUZZ_SEEDS} seeds ran", 0, "missing seed results")
    results = [seed_outcome(s, touched, source) for s in seeds]
    errors = [f"seed {i}: {why}" for i, (r, why) in enumerate(results, 1) if r == ERROR]
    caught = [(s, how) for s, (r, how) in zip(seeds, results) if r == CAUGHT]
    detail = f"{len(caught)}/{FUZZ_SEEDS} seeds"
    if errors:
        return Outcome(ERROR, detail, 0, "; ".join(errors))
    if not caught:
        return Outcome(ESCAPED, detail, seconds_limit)
    times = sorted(s.run.seconds for s, _ in caught)
    median = times[(len(times) - 1) // 2]
    return Outcome(CAUGHT if len(caught) >= FUZZ_NEEDED else LUCK, detail, median, caught[0][1])


VERDICT_CAUGHT, VERDICT_ESCAPED, VERDICT_LUCK, VERDICT_ERROR = "caught", "ESCAPED", "LUCK", "ERROR"


@dataclass
class Verdict:
    canary: str
    flavour: str
    verdict: str
    fastest: str = "-"
    by: str = "-"


@dataclass
class Row:
    canary: str
    flavour: str
    setup: str
    layer: str
    target: str
    outcome: Outcome = field(default_factory=lambda: Outcome(ERROR, "not run"))


def verdicts(rows: Iterable[Row], expected: Iterable[Tuple[str, str]]) -> List[Verdict]:
    """Exactly one verdict per expected (canary, flavour), from its hardened-setup rows. No row
    at all is ERROR (a canary must never drop out of the table); any ERROR row makes the
    verdict ERROR; otherwise caught if some row caught it, LUCK if only luck, else ESCAPED."""
    by_key: Dict[Tuple[str, str], List[Row]] = {}
    for row in rows:
        if row.setup == "hardened":
            by_key.setdefault((row.canary, row.flavour), []).append(row)
    table = []
    for key in sorted(set(expected)):
        mine = by_key.get(key, [])
        results = {r.outcome.result for r in mine}
        if not mine:
            table.append(Verdict(*key, VERDICT_ERROR, "-", "no layer ran (empty plan or no result)"))
            continue
        if ERROR in results:
            first = next(r for r in mine if r.outcome.result == ERROR)
            table.append(Verdict(*key, VERDICT_ERROR, "-",
                                 f"{first.layer} {first.target}: {first.outcome.how}"))
            continue
        caught = [r for r in mine if r.outcome.result == CAUGHT]
        if caught:
            best = min(caught, key=lambda r: r.outcome.seconds)
            table.append(Verdict(*key, VERDICT_CAUGHT, f"{best.outcome.seconds:.1f}",
                                 f"{best.layer} {best.target}"))
        elif LUCK in results:
            table.append(Verdict(*key, VERDICT_LUCK))
        else:
            table.append(Verdict(*key, VERDICT_ESCAPED))
    extra = set(by_key) - set(expected)
    for key in sorted(extra):
        table.append(Verdict(*key, VERDICT_ERROR, "-", "result for a canary/flavour not planned"))
    return table
