from dispatch_ci import ctest

LOG = """\
Test project /x/build/full-release
    Start 1: a
1/3 Test #1: a ....   Passed    0.01 sec
67% tests passed, 1 tests failed out of 3

The following tests FAILED:
\t  2 - dispatch.table (Failed)
==123==ERROR: AddressSanitizer: heap-use-after-free
SUMMARY: AddressSanitizer: heap-use-after-free x.cpp:3
Errors while running CTest
"""


def test_parse_totals():
    assert ctest.parse_totals("67% tests passed, 1 tests failed out of 3") == (1, 3)
    assert ctest.parse_totals("100% tests passed, 0 tests failed out of 1") == (0, 1)
    assert ctest.parse_totals("tests passed") is None


def test_failing_tests_and_problem_lines():
    assert ctest.failing_tests(LOG) == ["\t  2 - dispatch.table (Failed)"]
    assert ctest.problem_lines(LOG) == ["==123==ERROR: AddressSanitizer: heap-use-after-free",
                                        "SUMMARY: AddressSanitizer: heap-use-after-free x.cpp:3"]


def test_count_listed():
    assert ctest.count_listed("Test project x\n  Test #1: a\n\nTotal Tests: 7\n") == 7
    assert ctest.count_listed("No tests were found!!!\n") == 0


def test_pass_fail_counts_uses_the_totals_line():
    assert ctest.pass_fail_counts(LOG, listed=5, returncode=8) == (2, 1)


def test_a_failed_run_without_totals_fails_every_listed_test():
    # ctest killed or crashed before its totals: nothing may count as passed.
    assert ctest.pass_fail_counts("Test project x\n", listed=4, returncode=1) == (0, 4)
    assert ctest.pass_fail_counts("", listed=4, returncode=0) == (4, 0)


def test_workflow_test_step_pattern():
    assert ctest.WORKFLOW_TEST_STEP.search("Executing workflow step 3 of 3: test preset \"x\"")
    assert not ctest.WORKFLOW_TEST_STEP.search("Executing workflow step 2 of 3: build preset \"x\"")
