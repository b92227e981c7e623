"""The pre-merge depth benchmark's verdict of one bug x layer x RapidCheck seed, as pure functions
over recorded ctest runs (no process is started here). A layer runs as up to two parts: its
seeded entries (RapidCheck tests, run with RC_PARAMS="seed=N") and its deterministic entries
(run once per tree; that run stands for every seed).

Each part is judged by the canary job's ctest rule (canaries/verdict.py ctest_outcome):
  caught      the part passes on the unpatched tree with the same seed, and fails on the patched
              tree with a detection of this bug (a sanitizer or hardened report must lie in code
              the patch changed or in a caller of it)
  not caught  it passes on the patched tree (and on the unpatched one)
  error       anything else: a build that failed (patched or unpatched), a part that fails on
              the unpatched tree too, a timeout, a crash, OOM, leak or unclassified failure, a
              report in code the patch does not touch. Never caught.

A seed's layer verdict: error if any part is an error; else caught if any part caught it; else
not caught. A bug x layer counts the seeds that caught it; errors are counted apart, never as
caught.
"""
from dataclasses import dataclass
from typing import List, Optional

from ..canaries.patches import Touched
from ..canaries.verdict import CAUGHT as PART_CAUGHT, ERROR as PART_ERROR, Run, SourceReader, ctest_outcome
from ..canaries.enclosing import function_body

CAUGHT, NOT_CAUGHT, ERROR = "caught", "not caught", "error"
NEEDED = 4          # the target: caught in at least 4 of 5 seeds
SEEDS = 5


@dataclass
class Part:
    """One ctest run of a layer's seeded or deterministic entries, on both trees. `baseline`
    None: the unpatched tree did not build."""
    what: str                      # "seeded" | "deterministic"
    patched: Run
    baseline: Optional[Run]


@dataclass
class SeedVerdict:
    result: str
    how: str = ""
    seconds: float = 0.0


def part_verdict(part: Part, touched: Touched, source: SourceReader = function_body) -> SeedVerdict:
    outcome = ctest_outcome(part.patched, part.baseline, touched, source)
    result = {PART_CAUGHT: CAUGHT, PART_ERROR: ERROR}.get(outcome.result, NOT_CAUGHT)
    how = outcome.how if outcome.how != "-" else ""
    return SeedVerdict(result, f"{part.what}: {how}" if how else "", part.patched.seconds)


def seed_verdict(parts: List[Part], touched: Touched, source: SourceReader = function_body) -> SeedVerdict:
    """One seed of one layer: an error in any part makes it an error (it measured nothing)."""
    if not parts:
        return SeedVerdict(ERROR, "the layer has no ctest entry in this tree")
    judged = [part_verdict(p, touched, source) for p in parts]
    seconds = sum(j.seconds for j in judged)
    errors = [j for j in judged if j.result == ERROR]
    if errors:
        return SeedVerdict(ERROR, "; ".join(j.how for j in errors), seconds)
    caught = [j for j in judged if j.result == CAUGHT]
    if caught:
        return SeedVerdict(CAUGHT, caught[0].how, seconds)
    return SeedVerdict(NOT_CAUGHT, "", seconds)


def build_error(why: str) -> SeedVerdict:
    """A tree that did not apply or build: every seed of every layer is an error."""
    return SeedVerdict(ERROR, why)


@dataclass
class LayerSummary:
    caught: int
    errors: int
    seeds: int

    def meets(self) -> bool:
        """Caught in at least NEEDED of SEEDS seeds (scaled to the seeds run); an error seed
        is never caught, so it can only lower the count."""
        return self.seeds > 0 and self.caught * SEEDS >= NEEDED * self.seeds


def summarize(results: List[str]) -> LayerSummary:
    return LayerSummary(sum(1 for r in results if r == CAUGHT), sum(1 for r in results if r == ERROR),
                        len(results))
