"""How a nightly spends its budget: the property share, the fuzz worker slots and waves, the
minimisation time and the property case counts. Pure arithmetic, so it is tested directly."""
from dataclasses import dataclass
from typing import List

# A libFuzzer run takes 5-7 s more than -max_total_time (start-up, final stats, the leak
# check at exit); the waves are kept inside the budget with this margin.
RUN_OVERHEAD_S = 7
MIN_RUN_S = 5
MAX_RUNS_PER_WORKER = 5


def property_seconds(budget: int, run_property: bool) -> int:
    """A quarter of the budget for the large property run (when on); the rest fuzzes."""
    return budget // 4 if run_property else 0


def property_cases(budget: int) -> int:
    """max_success 2000 at a 300 s budget, scaled, at least 100."""
    return max(2000 * budget // 300, 100)


def minimize_seconds(budget: int) -> int:
    return min(max(budget // 4, 20), 120)


@dataclass
class FuzzPlan:
    waves: int
    workers: List[int]       # worker slots per campaign
    seconds_per_run: int

    @property
    def tasks(self) -> int:
        return sum(self.workers)


def fuzz_plan(campaigns: int, jobs: int, fuzz_budget: int) -> FuzzPlan:
    """Every campaign gets at least one slot; spare slots go to the first campaigns. More
    campaigns than slots: they run in waves, and the budget is split over the waves."""
    if campaigns <= 0:
        return FuzzPlan(0, [], 0)
    if jobs >= campaigns:
        waves = 1
        workers = [jobs // campaigns + (1 if i < jobs % campaigns else 0) for i in range(campaigns)]
    else:
        waves = -(-campaigns // jobs)
        workers = [1] * campaigns
    return FuzzPlan(waves, workers, max(fuzz_budget // waves - RUN_OVERHEAD_S, MIN_RUN_S))


def seed(start: int, worker: int, run: int, noise: int) -> int:
    """A different libFuzzer seed per worker and run (`noise`: a random number)."""
    return (start * 7919 + worker * 104729 + run * 1299709 + noise) % 2147483647 + 1


def should_restart(returncode: int, artifacts: List[str], restartable: bool, seen: List[str],
                   runs_done: int, stop_on_first_failure: bool = False) -> bool:
    """After one run of a worker: restart libFuzzer (new seed, same new-units folder) so one
    campaign can find more than one bug -- unless the run was clean, failed without an
    artifact (broken, not a finding), the engine cannot find more after a failure, the same
    artifact came back (a crashing seed), the worker has had its runs, or the night stops at
    its first failure."""
    if returncode == 0 or not artifacts or not restartable or stop_on_first_failure:
        return False
    if any(a in seen for a in artifacts):
        return False
    return runs_done < MAX_RUNS_PER_WORKER
