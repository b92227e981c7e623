"""ci/test.sh -- THE test command (see README.md).

  ci/test.sh [--presets a,b,c] [--fresh] [--no-setup] [--canaries | --no-canaries]

Runs ci/setup.sh, then `cmake --workflow --preset <p>` (configure, build, test; see
CMakePresets.json) for each preset in turn, then the quick canary job (`ci/canaries.sh --fast`:
every canary patch, built in its own tree, must be caught and the unpatched baseline must
pass), and prints a summary table. The canary job runs with the default preset set, or with
--canaries; --no-canaries skips it. Exits non-zero if setup, any preset or the canary job fails.

Logs: build/ci-logs/<preset>.log, build/ci-logs/canaries.log; JUnit: build/<preset>/junit.xml.
"""
import argparse
import time
from dataclasses import dataclass
from typing import List, Optional

from .. import ctest, flavours, paths, procs, project, table
from ..log import Say
from ..presets import split_csv

SCRIPT = "ci/test.sh"
DEFAULT_PRESETS = "full-asan-ubsan,mobile-asan-ubsan,full-release,full-tsan"
CANARY_COMMAND = ["ci/canaries.sh", "--fast"]


def add_arguments(p):
    p.add_argument("--presets", default=DEFAULT_PRESETS,
                   help=f"workflow presets to run (default: the quick pre-merge set {DEFAULT_PRESETS})")
    p.add_argument("--fresh", action="store_true",
                   help="reconfigure from scratch (cmake --workflow --fresh)")
    p.add_argument("--no-setup", action="store_true",
                   help="skip ci/setup.sh (packages known to be present)")
    p.add_argument("--canaries", action=argparse.BooleanOptionalAction, default=None,
                   help="run ci/canaries.sh --fast after the presets (default: only with the "
                        "default preset set)")


@dataclass
class PresetRun:
    preset: str
    returncode: int = 0
    build_s: int = 0
    test_s: Optional[int] = None
    passed: Optional[int] = None
    failed: Optional[int] = None

    @property
    def result(self) -> str:
        return "passed" if self.returncode == 0 else f"FAILED(rc={self.returncode})"


class WorkflowWatcher:
    """Follows `cmake --workflow` output: when the test step starts, and the ctest totals."""

    def __init__(self, preset: str, say: Say, start: float):
        self.preset, self.say, self.start = preset, say, start
        self.test_started: Optional[float] = None
        self.totals = None

    def __call__(self, line: str) -> None:
        print(line, flush=True)
        if ctest.WORKFLOW_TEST_STEP.search(line):
            self.test_started = time.time()
            self.say(f"{self.preset}: configure+build done in {int(self.test_started - self.start)}s, testing")
        self.totals = ctest.parse_totals(line) or self.totals


def run_preset(preset: str, fresh: bool, say: Say, index: int, count: int) -> PresetRun:
    log = paths.BUILD / "ci-logs" / f"{preset}.log"
    say(f"({index}/{count}) cmake --workflow --preset {preset} {'--fresh' if fresh else ''}"
        f"  (log: {paths.rel(log)})")
    start = time.time()
    watcher = WorkflowWatcher(preset, say, start)
    cmd = ["cmake", "--workflow", "--preset", preset] + (["--fresh"] if fresh else [])
    result = procs.run(cmd, log=log, on_line=watcher, cwd=paths.ROOT)
    end = time.time()
    run = PresetRun(preset, result.returncode)
    if watcher.test_started is not None:
        run.build_s = int(watcher.test_started - start)
        run.test_s = int(end - watcher.test_started)
    else:
        run.build_s = int(end - start)
    if watcher.totals:
        failed, total = watcher.totals
        run.passed, run.failed = total - failed, failed
    say(f"{preset}: {run.result} (configure+build {run.build_s}s, test {_dash(run.test_s)}s)")
    return run


@dataclass
class CanaryJobRun:
    """The quick canary job: its exit status is its verdict (every canary caught, baseline clean)."""
    returncode: int
    seconds: int

    @property
    def result(self) -> str:
        return "passed" if self.returncode == 0 else f"FAILED(rc={self.returncode})"


def run_canaries(say: Say) -> CanaryJobRun:
    log = paths.BUILD / "ci-logs" / "canaries.log"
    say(f"{' '.join(CANARY_COMMAND)}  (log: {paths.rel(log)})")
    result = procs.run(["bash", *CANARY_COMMAND], log=log, on_line=lambda line: print(line, flush=True),
                       cwd=paths.ROOT)
    run = CanaryJobRun(result.returncode, int(result.seconds))
    say(f"canaries: {run.result} ({run.seconds}s)")
    return run


def wants_canaries(args) -> bool:
    return args.presets == DEFAULT_PRESETS if args.canaries is None else args.canaries


def _dash(value) -> str:
    return "-" if value is None else str(value)


def failed(runs: List[PresetRun], canaries: Optional[CanaryJobRun]) -> bool:
    return any(r.returncode != 0 for r in runs) or (canaries is not None and canaries.returncode != 0)


def summary(runs: List[PresetRun], seconds: int, canaries: Optional[CanaryJobRun] = None) -> str:
    widths = (22, 14, -10, -8, -8, -8)
    lines = [f"ci/test.sh summary ({seconds}s total)",
             table.row(widths, ("preset", "result", "build(s)", "test(s)", "passed", "failed"))]
    for r in runs:
        lines.append(table.row(widths, (r.preset, r.result, r.build_s, _dash(r.test_s),
                                        _dash(r.passed), _dash(r.failed))))
    if canaries is not None:
        lines.append(table.row(widths, ("canaries --fast", canaries.result, "-", canaries.seconds, "-", "-")))
    lines.append("")
    # Every preset compiles in every flavour (cmake/flavours.list); each test runs all of them.
    lines += [f"flavours of {r.preset}: {flavours.listing(paths.build_dir(r.preset))}" for r in runs]
    if failed(runs, canaries):
        lines.append("ci/test.sh: FAILED (see the logs in build/ci-logs/)")
    lines.append(f"tests: {sum(r.passed or 0 for r in runs)} passed, "
                 f"{sum(r.failed or 0 for r in runs)} failed")
    return "\n".join(lines)


def run(args) -> int:
    presets = split_csv(args.presets, "presets")
    say = Say(SCRIPT)
    if not project.install_packages(say, args.no_setup):
        return 1
    (paths.BUILD / "ci-logs").mkdir(parents=True, exist_ok=True)
    start = time.time()
    runs = [run_preset(p, args.fresh, say, i, len(presets)) for i, p in enumerate(presets, 1)]
    canaries = run_canaries(say) if wants_canaries(args) else None
    print()
    print(summary(runs, int(time.time() - start), canaries))
    return 1 if failed(runs, canaries) else 0
