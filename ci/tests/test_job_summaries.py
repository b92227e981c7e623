"""The verdicts of ci/test.sh and ci/premerge.sh: which cells pass, what the summary says."""
from dispatch_ci.jobs import premerge, test as test_job
from dispatch_ci.jobs.premerge import LabelResult, Premerge, PresetResult


def test_label_cells():
    assert LabelResult(listed=0).cell() == "n/a" and LabelResult(listed=0).ok
    assert LabelResult(listed=3, passed=3, seconds=4).cell() == "pass 3 4s"
    bad = LabelResult(listed=3, returncode=8, passed=2, failed=1, seconds=5)
    assert bad.cell() == "FAIL 1/3 5s" and not bad.ok
    assert LabelResult(not_run=True).cell() == "not run" and not LabelResult(not_run=True).ok


def _job(results, canary_ok=True):
    job = Premerge(["p"], ["unit", "canary"], 2)
    job.results = results
    job.canary_ok = canary_ok
    return job


def test_premerge_fails_on_any_failed_cell_build_or_canary():
    good = PresetResult("p", "ok 1s", True, {"unit": LabelResult(listed=2, passed=2)})
    assert not _job([good]).failed()
    assert _job([good], canary_ok=False).failed()
    broken_build = PresetResult("p", "FAIL 1s", False, {"unit": LabelResult(listed=2, passed=2)})
    assert _job([broken_build]).failed()
    failed_label = PresetResult("p", "ok 1s", True, {"unit": LabelResult(listed=2, returncode=1, failed=2)})
    assert _job([failed_label]).failed()
    assert "RESULT: FAILED" in _job([failed_label]).summary(3)
    assert "RESULT: passed" in _job([good]).summary(3)


def test_build_progress_shows_every_25th_step_and_errors():
    assert premerge.build_progress("p", "[25/100] Building x") == "    p build [25/100]"
    assert premerge.build_progress("p", "[26/100] Building x") is None
    assert premerge.build_progress("p", "[7/7] Linking") == "    p build [7/7]"
    assert premerge.build_progress("p", "FAILED: x.o") == "    FAILED: x.o"
    assert premerge.build_progress("p", "x.cpp:1:2: error: no") == "    x.cpp:1:2: error: no"


def test_test_summary_counts_and_verdict():
    ok = test_job.PresetRun("a", 0, 10, 5, 7, 0)
    bad = test_job.PresetRun("b", 2, 11, None, None, None)
    text = test_job.summary([ok, bad], 30)
    assert "FAILED(rc=2)" in text and "ci/test.sh: FAILED" in text
    assert text.endswith("tests: 7 passed, 0 failed")
    assert "ci/test.sh: FAILED" not in test_job.summary([ok], 30)


def test_test_summary_fails_on_a_failed_canary_job():
    ok = test_job.PresetRun("a", 0, 10, 5, 7, 0)
    caught = test_job.CanaryJobRun(0, 600)
    escaped = test_job.CanaryJobRun(1, 610)
    assert not test_job.failed([ok], caught)
    assert test_job.failed([ok], escaped)
    text = test_job.summary([ok], 700, escaped)
    assert "canaries --fast" in text and "FAILED(rc=1)" in text and "ci/test.sh: FAILED" in text
    assert "ci/test.sh: FAILED" not in test_job.summary([ok], 700, caught)


def test_canary_job_runs_with_the_default_presets_or_when_asked():
    class Args:
        def __init__(self, presets, canaries):
            self.presets, self.canaries = presets, canaries
    assert test_job.wants_canaries(Args(test_job.DEFAULT_PRESETS, None))
    assert not test_job.wants_canaries(Args("full-tsan", None))
    assert test_job.wants_canaries(Args("full-tsan", True))
    assert not test_job.wants_canaries(Args(test_job.DEFAULT_PRESETS, False))
    assert "full-tsan" in test_job.DEFAULT_PRESETS.split(",")


def test_test_job_exit_status_counts_the_canary_job(monkeypatch):
    monkeypatch.setattr(test_job.project, "install_packages", lambda say, no_setup: True)
    monkeypatch.setattr(test_job, "run_preset",
                        lambda p, fresh, say, i, n: test_job.PresetRun(p, 0, 1, 1, 3, 0))
    monkeypatch.setattr(test_job.flavours, "listing", lambda build_dir: "full")
    ran = []

    def canaries(rc):
        def run(say):
            ran.append(rc)
            return test_job.CanaryJobRun(rc, 5)
        return run

    class Args:
        presets, fresh, no_setup, canaries = test_job.DEFAULT_PRESETS, False, True, None
    monkeypatch.setattr(test_job, "run_canaries", canaries(1))
    assert test_job.run(Args()) == 1
    monkeypatch.setattr(test_job, "run_canaries", canaries(0))
    assert test_job.run(Args()) == 0
    assert ran == [1, 0]
    Args.presets = "full-release"
    assert test_job.run(Args()) == 0 and ran == [1, 0]
