"""The nightly's TSan soak step: ok only for a passing run that printed every flavour's counts;
a TSan report, a failure, a timeout or a run that printed nothing turns the night red."""
from dispatch_ci.nightly.run_folder import step_breaks_night
from dispatch_ci.nightly.soak_step import soak_result

FLAVOURS = ["full", "mobile", "rand1"]
GOOD = ("full: 5120 calls, 310 registrations, 14 checkpoints in 20s\n"
        "mobile: 4800 calls, 290 registrations, 14 checkpoints in 20s\n"
        "rand1: 4700 calls, 280 registrations, 13 checkpoints in 20s\n[  PASSED  ] 3 tests.\n")


def test_a_passing_soak_reports_its_counts():
    res, detail = soak_result(0, False, GOOD, 540, FLAVOURS)
    assert res == "ok" and "full: 5120 calls, 310 registrations, 14 checkpoints" in detail
    assert "mobile: 4800 calls" in detail and "rand1: 4700 calls" in detail


def test_every_flavour_of_the_tree_must_report():
    res, detail = soak_result(0, False, GOOD, 540, FLAVOURS + ["lite"])
    assert res == "FAILED" and "lite" in detail
    assert soak_result(0, False, GOOD, 540, [])[0] == "FAILED"


def test_a_drawn_flavours_problem_line_is_the_detail():
    out = "x.cpp:240: Failure\nrand1: end: soak::op1 on Tensor(...): w1k2, model missing\n"
    res, detail = soak_result(1, False, out, 540, FLAVOURS)
    assert res == "FAILED" and detail.startswith("exit 1: rand1: end: soak::op1")


def test_a_tsan_report_fails_even_with_exit_0():
    out = GOOD + "WARNING: ThreadSanitizer: data race (pid=1)\nSUMMARY: ThreadSanitizer: data race a.h:3 in f\n"
    res, detail = soak_result(0, False, out, 540, FLAVOURS)
    assert res == "FAILED" and "data race a.h:3" in detail and step_breaks_night(res)


def test_a_model_disagreement_fails():
    out = "x.cpp:240: Failure\nfull: checkpoint 3: soak::op0 on Tensor(...): w0k5, model w0k7\n"
    res, detail = soak_result(1, False, out, 540, FLAVOURS)
    assert res == "FAILED" and "checkpoint 3: soak::op0" in detail


def test_a_timeout_is_inconclusive_and_red():
    res, _ = soak_result(137, True, GOOD, 540, FLAVOURS)
    assert res == "INCONCLUSIVE" and step_breaks_night(res)


def test_a_run_that_printed_no_counts_ran_nothing():
    assert soak_result(0, False, "[  PASSED  ] 0 tests.\n", 540, FLAVOURS)[0] == "FAILED"
    only_full = GOOD.splitlines()[0] + "\n"
    assert soak_result(0, False, only_full, 540, FLAVOURS)[0] == "FAILED"
    no_checkpoint = GOOD.replace("14 checkpoints", "0 checkpoints", 1)
    assert soak_result(0, False, no_checkpoint, 540, FLAVOURS)[0] == "FAILED"
