"""The property label's ctest time of two trees side by side in one run: the same preset, the
same machine state, the runs interleaved (A B B A A B ...) so that a change of load hits both.
Each tree is a scratch copy (scratch.py) of a commit or of the working tree, configured with the
preset and built with only the label's targets.

    build/premerge-depth/time/<name>/src/      the copy
    build/premerge-depth/time/<name>/<preset>/ its build
"""
import math
import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List

from .. import compiler_cache, paths, procs, scratch
from . import premerge_layers

WORK = paths.BUILD / "premerge-depth" / "time"
PRESET = "full-asan-ubsan"   # the pre-merge preset the label's time budget is stated for
LIMIT = 1.5                  # the issue: the label's present time plus at most 50%
RUN_TIMEOUT = 1800


class TimingError(Exception):
    """A tree that cannot be read, configured or built: nothing was measured."""


# ctest's line per test: "8/9 Test #45: checker_agreement_props ....***Timeout 300.21 sec".
_TEST_LINE = re.compile(r"Test +#\d+: (\S+) \.*\s*(\*{0,3}[A-Za-z ]+?)\s+([\d.]+) sec")


@dataclass
class TimedRun:
    tree: str
    round: int
    seconds: float
    passed: bool
    tests: Dict[str, list] = field(default_factory=dict)   # name -> [seconds, status]

    def to_json(self) -> dict:
        return asdict(self)


def build(name: str, files: Dict[str, bytes], jobs: int, say: Callable[[str], None]) -> Path:
    """The copy `name` configured with PRESET and built with the property label's targets."""
    src = WORK / name / "src"
    build_dir = WORK / name / PRESET
    scratch.sync(files, src)
    log = WORK / name / "build.log"
    env = compiler_cache.build_env()
    if not (build_dir / "build.ninja").is_file():
        configure = ["cmake", "--preset", PRESET, "-B", build_dir, *compiler_cache.configure_args()]
        if not procs.run(configure, log=log, cwd=src, env=env).ok:
            raise TimingError(f"configure of {name} failed: see {paths.rel(log)}")
    entries = [e for e in premerge_layers.list_entries(build_dir) if "property" in e.labels]
    targets = sorted({e.target for e in entries})
    say(f"{name}: build {len(targets)} property targets ({PRESET})")
    cmd = ["cmake", "--build", build_dir, "-j", str(jobs), "--target", *targets]
    if not procs.run(cmd, log=log, append=True, nice=10, cwd=src, env=env).ok:
        raise TimingError(f"build of {name} failed: see {paths.rel(log)}")
    return build_dir


def order(rounds: int) -> List[int]:
    """Which tree (0 or 1) runs when: A B, then B A, ... so neither always goes first."""
    out: List[int] = []
    for r in range(rounds):
        out += [0, 1] if r % 2 == 0 else [1, 0]
    return out


def measure(trees: List[tuple], rounds: int, say: Callable[[str], None]) -> List[TimedRun]:
    """`trees`: (name, build folder) x 2; `rounds` runs of `ctest -L ^property$` each."""
    runs = []
    for i, which in enumerate(order(rounds)):
        name, build_dir = trees[which]
        log = WORK / name / f"ctest-property.{i // 2 + 1}.log"
        result = procs.run(["ctest", "--test-dir", build_dir, "-L", "^property$", "--no-tests=error"],
                           log=log, timeout=RUN_TIMEOUT, nice=10, cwd=paths.ROOT)
        runs.append(TimedRun(name, i // 2 + 1, round(result.seconds, 1), result.ok, per_test(log)))
        say(f"    {name} round {i // 2 + 1}: {result.seconds:.1f} s{'' if result.ok else ' (FAILED)'}")
    return runs


def per_test(log: Path) -> Dict[str, list]:
    """Each test's seconds and status from a ctest log."""
    try:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    return {m.group(1): [float(m.group(3)), m.group(2).strip("* ")] for m in _TEST_LINE.finditer(text)}


def test_medians(runs: List[dict], name: str) -> Dict[str, tuple]:
    """test -> (median seconds, statuses other than Passed) over the runs of tree `name`."""
    out: Dict[str, tuple] = {}
    tests = sorted({t for r in runs if r["tree"] == name for t in r.get("tests", {})})
    for test in tests:
        mine = [r["tests"][test] for r in runs if r["tree"] == name and test in r.get("tests", {})]
        out[test] = (statistics.median(s for s, _ in mine), sorted({st for _, st in mine if st != "Passed"}))
    return out


@dataclass
class Comparison:
    before: str
    after: str
    median_before: float
    median_after: float
    failed: int

    @property
    def ratio(self) -> float:
        return self.median_after / self.median_before if self.median_before else float("inf")

    def within_limit(self) -> bool:
        return self.failed == 0 and self.ratio <= LIMIT


def compare(runs: List[dict], before: str, after: str) -> Comparison:
    """Medians of the passing runs of each tree; a failing run is counted (it is not a time)."""
    def median(name: str) -> float:
        times = [r["seconds"] for r in runs if r["tree"] == name and r["passed"]]
        return statistics.median(times) if times else float("nan")
    return Comparison(before, after, median(before), median(after), sum(1 for r in runs if not r["passed"]))


def _median_text(seconds: float) -> str:
    return "no passing run" if math.isnan(seconds) else f"median {seconds:.1f} s"


def describe(document: dict) -> str:
    c = compare(document["runs"], document["before"], document["after"])
    times = {name: ", ".join(f"{r['seconds']:.1f}" for r in document["runs"] if r["tree"] == name)
             for name in (c.before, c.after)}
    verdict = ("not judged (a run failed)" if c.failed else
               ("within" if c.within_limit() else "OVER") + f" the limit of +{LIMIT - 1:.0%}")
    before, after = test_medians(document["runs"], c.before), test_medians(document["runs"], c.after)
    rows = "; ".join(f"{t} {before[t][0]:.1f} → {after[t][0]:.1f} s"
                     + (f" ({'/'.join(before[t][1] + after[t][1])})" if before[t][1] or after[t][1] else "")
                     for t in before if t in after)
    passing = [t for t in before if t in after and not before[t][1] and not after[t][1]]
    sum_before, sum_after = sum(before[t][0] for t in passing), sum(after[t][0] for t in passing)
    passing_text = (f" The {len(passing)} tests that passed in every run: {sum_before:.1f} → {sum_after:.1f} s "
                    f"(ratio {sum_after / sum_before:.2f})." if sum_before else "")
    return (f"`ctest -L property` in {document['preset']}, {document['rounds']} interleaved rounds "
            f"({document['date']}, load average {document['load_before']} before, "
            f"{document['load_after']} after): {c.before} {_median_text(c.median_before)} ({times[c.before]} s); "
            f"{c.after} {_median_text(c.median_after)} ({times[c.after]} s); "
            + (f"ratio {c.ratio:.2f}: " if not math.isnan(c.ratio) else "") + f"{verdict}. "
            f"Per test (median, before → after): {rows}.{passing_text}")
