"""The bug benchmark's verdict of one fuzzing run (one bug x target x mutator x seed, from an empty
corpus), as a pure function of what was recorded (no process is started here).

  found      the canary rules hold (canaries/verdict.py run_outcome): the failure is a detection
             of this bug (a report at the faulty access lies in code the patch changed, or in a
             caller of it), a crash artifact exists, fails the same way again on the patched
             build and passes on the unpatched one. Time to detection is the run's wall-clock
             seconds; executions are libFuzzer's count at the stop (stable under load).
  not found  the run went its whole budget, executed inputs, and stopped cleanly.
  error      anything else, never found: a missing binary, a run killed for overrunning its
             budget, an empty run (no input executed), a clean stop well before the budget, a
             timeout / OOM / leak report, a crash that is not this bug's detection, an artifact
             that does not reproduce or fails on the unpatched build too.
"""
import re
from dataclasses import dataclass
from typing import Optional

from ..canaries.patches import Touched
from ..canaries.verdict import CAUGHT, ESCAPED, Seed, SourceReader, run_outcome
from ..canaries.enclosing import function_body

FOUND, NOT_FOUND, ERROR = "found", "not found", "error"
# A clean stop earlier than this share of the budget did not search for the whole budget.
FULL_BUDGET_SHARE = 0.9

_EXECUTED = re.compile(r"stat::number_of_executed_units:\s*(\d+)")
_DONE = re.compile(r"^Done (\d+) runs in", re.M)
_STATUS = re.compile(r"^#(\d+)\s", re.M)


@dataclass
class Judged:
    result: str
    seconds: float = 0.0
    executions: Optional[int] = None
    how: str = ""


def executions(log: str) -> Optional[int]:
    """Inputs libFuzzer executed: its final stats (-print_final_stats=1, printed on a crash too),
    else its "Done N runs", else its last status line; None when it shows none of them."""
    for pattern in (_EXECUTED, _DONE, _STATUS):
        found = pattern.findall(log)
        if found:
            return int(found[-1])
    return None


def judge(binary_exists: bool, seed: Seed, budget_seconds: float, touched: Touched,
          source: SourceReader = function_body) -> Judged:
    if not binary_exists:
        return Judged(ERROR, how="missing binary")
    run = seed.run
    if run.timed_out:
        return Judged(ERROR, run.seconds, how=f"killed after {run.seconds:.0f}s: overran its budget")
    executed = executions(run.log)
    if not executed:
        return Judged(ERROR, run.seconds, executed, "empty run: no input was executed")
    result, how = run_outcome(seed, touched, source)
    if result == CAUGHT:
        return Judged(FOUND, run.seconds, executed, how)
    if result == ESCAPED:
        if run.seconds < FULL_BUDGET_SHARE * budget_seconds:
            return Judged(ERROR, run.seconds, executed,
                          f"stopped cleanly after {run.seconds:.0f}s of a {budget_seconds:.0f}s budget")
        return Judged(NOT_FOUND, run.seconds, executed)
    return Judged(ERROR, run.seconds, executed, how)
