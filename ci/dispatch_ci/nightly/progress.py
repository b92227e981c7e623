"""Progress of a long nightly: a status line at least every 30 s, whatever step is running:

  progress: 6m10s elapsed, budget 2m05s/1h00m | fuzz | campaigns 3/10 done | execs 1,234,567 | cov 812 | failures 2

The budget (fuzzing + property run) starts after the builds, which come on top: before that the
line says "budget not started".

execs and cov are read from the fuzzers' logs as they grow (libFuzzer's "#N ... cov: C" lines;
cov is the sum over campaigns of each campaign's best run); failures counts the artifacts so far."""
import re
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .report_model import STATUS_LINE

INTERVAL_S = 30
TAIL_BYTES = 64 * 1024
NOT_FAILURES = ("slow-unit-", "minimized-from-")
EXECUTED = re.compile(r"^stat::number_of_executed_units:\s+(\d+)", re.M)


def duration(seconds: float) -> str:
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s"


def log_stats(text: str) -> Tuple[int, int]:
    """(execs, cov) of one fuzzer run's log (or its tail) so far; (0, 0) before its first status line."""
    execs, cov = 0, 0
    for m in map(STATUS_LINE.match, text.splitlines()):
        if m:
            execs, cov = int(m.group("n")), int(m.group("cov"))
    final = EXECUTED.findall(text)
    if final:
        execs = int(final[-1])
    return execs, cov


def aggregate(runs: Dict[Tuple[str, str], List[Tuple[int, int]]]) -> Tuple[int, int]:
    """(total execs over every run, sum over campaigns of the best cov of its runs)."""
    execs = sum(e for stats in runs.values() for e, _ in stats)
    cov = sum(max((c for _, c in stats), default=0) for stats in runs.values())
    return execs, cov


def format_line(elapsed: float, budget_used: Optional[float], budget: int, step: str, done: int, total: int,
                execs: int, cov: int, failures: int) -> str:
    spent = "not started" if budget_used is None else f"{duration(budget_used)}/{duration(budget)}"
    campaigns = f"campaigns {done}/{total} done" if total else "campaigns -"
    return (f"progress: {duration(elapsed)} elapsed, budget {spent} | {step} | {campaigns} | "
            f"execs {execs:,} | cov {cov} | failures {failures}")


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - TAIL_BYTES, 0))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def scan(run_dir: Path) -> Tuple[Dict[Tuple[str, str], List[Tuple[int, int]]], int]:
    """Per campaign, (execs, cov) of each run log under logs/fuzz/<preset>/<target>/; and the
    number of failure artifacts under artifacts/."""
    runs: Dict[Tuple[str, str], List[Tuple[int, int]]] = {}
    for log in sorted((run_dir / "logs" / "fuzz").glob("*/*/w*-r*.log")):
        runs.setdefault((log.parent.parent.name, log.parent.name), []).append(log_stats(_tail(log)))
    failures = sum(1 for f in (run_dir / "artifacts").glob("*/*/*")
                   if f.is_file() and not f.name.startswith(NOT_FAILURES))
    return runs, failures


class Ticker:
    """Prints a status line every `interval` seconds from a background thread until stopped.
    The job sets `step` as it goes; the fuzz step sets `campaigns_total` and `campaigns_done`."""

    def __init__(self, say, run_dir: Path, budget: int, interval: float = INTERVAL_S,
                 clock=time.time, scanner=scan):
        self.say, self.run_dir, self.budget, self.interval = say, Path(run_dir), budget, interval
        self.clock, self.scanner = clock, scanner
        self.started = clock()
        self.budget_started: Optional[float] = None
        self.step = "start"
        self.campaigns_total = 0
        self.campaigns_done = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start_budget(self) -> None:
        """The builds are done: the budgeted part (fuzzing, then the property run) starts."""
        self.budget_started = self.clock()

    def line(self) -> str:
        runs, failures = self.scanner(self.run_dir)
        execs, cov = aggregate(runs)
        now = self.clock()
        used = None if self.budget_started is None else now - self.budget_started
        return format_line(now - self.started, used, self.budget, self.step, self.campaigns_done,
                           self.campaigns_total, execs, cov, failures)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.say(self.line())
            except Exception as e:   # a progress line must never break the night
                self.say(f"progress: (could not read the run folder: {type(e).__name__}: {e})")

    def start(self) -> "Ticker":
        self._thread = threading.Thread(target=self._loop, name="nightly-progress", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

