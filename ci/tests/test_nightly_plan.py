"""How the nightly spends its budget and when a fuzz worker restarts."""
from dispatch_ci.nightly import plan


def test_budget_split():
    assert plan.property_seconds(300, True) == 75 and plan.property_seconds(300, False) == 0
    assert plan.property_cases(300) == 2000 and plan.property_cases(10) == 100
    assert [plan.minimize_seconds(b) for b in (10, 300, 3600)] == [20, 75, 120]


def test_spare_slots_go_to_the_first_campaigns():
    p = plan.fuzz_plan(campaigns=3, jobs=8, fuzz_budget=100)
    assert p.waves == 1 and p.workers == [3, 3, 2] and p.tasks == 8 and p.seconds_per_run == 93


def test_more_campaigns_than_slots_run_in_waves():
    p = plan.fuzz_plan(campaigns=5, jobs=2, fuzz_budget=100)
    assert p.waves == 3 and p.workers == [1] * 5 and p.seconds_per_run == 100 // 3 - 7


def test_a_run_is_never_shorter_than_the_minimum():
    assert plan.fuzz_plan(10, 1, 30).seconds_per_run == plan.MIN_RUN_S
    assert plan.fuzz_plan(0, 2, 100).tasks == 0


def test_seeds_differ_per_worker_and_run():
    seeds = {plan.seed(1000, w, r, 0) for w in (1, 2) for r in (1, 2)}
    assert len(seeds) == 4 and all(1 <= s <= 2147483647 for s in seeds)


def test_restart_rules():
    assert plan.should_restart(1, ["crash-a"], True, [], 1)
    assert not plan.should_restart(0, [], True, [], 1)                  # clean run
    assert not plan.should_restart(1, [], True, [], 1)                  # broken: no artifact
    assert not plan.should_restart(1, ["crash-a"], False, [], 1)        # failed in the seeds
    assert not plan.should_restart(1, ["crash-a"], True, ["crash-a"], 2)  # the same artifact again
    assert not plan.should_restart(1, ["crash-b"], True, ["crash-a"], plan.MAX_RUNS_PER_WORKER)


def test_stop_on_first_failure_never_restarts():
    assert not plan.should_restart(1, ["crash-a"], True, [], 1, stop_on_first_failure=True)
    assert plan.should_restart(1, ["crash-a"], True, [], 1, stop_on_first_failure=False)


class _FakeEngine:
    """Each fuzz run 'finds' crash-<worker>-<run> (exit 1) and says it can go on."""

    def __init__(self):
        self.runs = []

    def fuzz(self, binary, seconds, seed, prefix, log, timeline, extra, corpora, env):
        self.runs.append(log.name)
        log.write_text(f"INITED\nTest unit written to {prefix}crash-{log.stem}\n")
        return 1

    def artifacts(self, text):
        return [line.split(" to ", 1)[1] for line in text.splitlines() if " written to " in line]

    def restart_after_failure(self, text):
        return True


def _night(tmp_path, stop):
    from types import SimpleNamespace
    from dispatch_ci.nightly.context import Night, Options
    folder = SimpleNamespace(path=tmp_path, rows=[],
                             append_row=lambda name, *cols: folder.rows.append(cols))
    return Night(Options(stop_on_first_failure=stop), folder, {}, _FakeEngine(), say=lambda *_: None)


def test_the_first_failure_ends_every_workers_fuzzing(tmp_path):
    from dispatch_ci.nightly.fuzz_step import fuzz_worker
    night = _night(tmp_path, stop=True)
    fuzz_worker(night, "full-fuzz", "registration_fuzzer", 1, 100)
    fuzz_worker(night, "full-fuzz", "registration_fuzzer", 2, 100)   # starts after the failure
    assert night.engine.runs == ["w1-r1.log"] and night.first_failure.is_set()
    # Without the option the same worker restarts after each new artifact.
    night = _night(tmp_path / "go-on", stop=False)
    fuzz_worker(night, "full-fuzz", "registration_fuzzer", 1, 100)
    assert len(night.engine.runs) == plan.MAX_RUNS_PER_WORKER
