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
