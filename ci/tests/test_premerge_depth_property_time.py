"""The property label's time, before and after, in one run (bugbench/property_time.py): the runs
interleave so neither tree always goes first, the medians compare passing runs only, and the
limit (+50%) is judged only when no run failed."""
from dispatch_ci.bugbench import property_time


def runs(name, seconds, passed=True):
    return [{"tree": name, "round": i, "seconds": s, "passed": passed} for i, s in enumerate(seconds, 1)]


def test_the_trees_take_turns_at_going_first():
    assert property_time.order(3) == [0, 1, 1, 0, 0, 1]


def test_within_the_limit_at_one_and_a_half_times():
    c = property_time.compare(runs("a", [100, 110, 90]) + runs("b", [150, 140, 160]), "a", "b")
    assert c.median_before == 100 and c.median_after == 150 and c.within_limit()


def test_over_the_limit():
    c = property_time.compare(runs("a", [100, 100, 100]) + runs("b", [151, 160, 170]), "a", "b")
    assert not c.within_limit()


def test_a_failed_run_is_no_time_and_leaves_the_limit_unjudged():
    c = property_time.compare(runs("a", [100, 100]) + runs("b", [100]) + runs("b", [5], passed=False), "a", "b")
    assert c.median_after == 100 and c.failed == 1 and not c.within_limit()
    document = {"runs": runs("a", [100]) + runs("b", [5], passed=False), "before": "a", "after": "b",
                "preset": "full-asan-ubsan", "rounds": 1, "date": "d", "load_before": [1], "load_after": [1]}
    assert "not judged" in property_time.describe(document)


def test_per_test_times_are_read_from_the_ctest_log(tmp_path):
    log = tmp_path / "ctest.log"
    log.write_text("4/9 Test #41: stateful_props ...................   Passed   12.85 sec\n"
                   "8/9 Test #45: checker_agreement_props ..........***Timeout 300.21 sec\n")
    assert property_time.per_test(log) == {"stateful_props": [12.85, "Passed"],
                                           "checker_agreement_props": [300.21, "Timeout"]}


def test_a_test_that_timed_out_is_named_and_left_out_of_the_passing_sum():
    def run(tree, stateful, checker_status):
        return {"tree": tree, "round": 1, "seconds": 400.0, "passed": False,
                "tests": {"stateful_props": [stateful, "Passed"], "checker_agreement_props": [300.2, checker_status]}}
    document = {"runs": [run("a", 10.0, "Timeout"), run("b", 14.0, "Passed")], "before": "a", "after": "b",
                "preset": "full-asan-ubsan", "rounds": 1, "date": "d", "load_before": [1], "load_after": [1]}
    text = property_time.describe(document)
    assert "checker_agreement_props 300.2 → 300.2 s (Timeout)" in text
    assert "The 1 tests that passed in every run: 10.0 → 14.0 s (ratio 1.40)" in text
