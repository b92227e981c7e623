"""The pre-merge depth benchmark's verdict of one bug x layer x seed (bugbench/premerge_verdict.py):
caught only when the unpatched tree passes the same run and the patched one fails with a
detection of this bug; a build failure, a timeout, an unrelated crash or a run that fails on the
unpatched tree too is an error, never caught; a deterministic part stands for every seed."""
from dispatch_ci.bugbench.premerge_verdict import (CAUGHT, ERROR, NOT_CAUGHT, Part, build_error,
                                                   seed_verdict, summarize)
from dispatch_ci.canaries.patches import Touched
from dispatch_ci.canaries.verdict import Run

TOUCHED = Touched(files={"dispatch/src/operator_entry.cpp"}, functions={"deregisterKernel"})
NO_SOURCE = ("", "")
PASSED = Run(0, seconds=3.0, log="100% tests passed, 0 tests failed out of 6\n")
MODEL_DISAGREEMENT = Run(8, seconds=9.0, log=(
    "[ RUN      ] StatefulOneOperator/full.DeepStatesAgreeWithModel\n"
    "Falsifiable after 12 tests and 9 shrinks\n"
    "full flavour, step 6 of this case: the model and the dispatcher differ on fz::op0\n"
    "[  FAILED  ] StatefulOneOperator/full.DeepStatesAgreeWithModel\n"))
INVARIANT = Run(8, seconds=2.0, log="internal assert failed at operator_entry.cpp:240: "
                                    "checkInvariants: the recomputation gives another row\n")
TIMEOUT = Run(8, seconds=900.0, log="  1/1 Test #4: stateful_props ...***Timeout 900.01 sec\n")
KILLED = Run(124, timed_out=True, seconds=900.0, log=MODEL_DISAGREEMENT.log)
ASAN_ELSEWHERE = Run(1, seconds=1.0, log=(
    "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602 at pc 0x55 bp 0x7f\n"
    "    #0 0x55d in dispatch::parseSchema(std::string_view) /w/build/canary-work/x/src/dispatch/src/schema.cpp:40:3\n"))
ASAN_IN_PATCH = Run(1, seconds=1.0, log=(
    "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602 at pc 0x55 bp 0x7f\n"
    "    #0 0x55d in dispatch::BasicOperatorEntry<L>::deregisterKernel() "
    "/w/build/canary-work/x/src/dispatch/src/operator_entry.cpp:233:3\n"))


def judge(*parts):
    return seed_verdict(list(parts), TOUCHED, lambda f, l: NO_SOURCE)


def test_a_detection_that_passes_unpatched_is_caught():
    verdict = judge(Part("seeded", MODEL_DISAGREEMENT, PASSED))
    assert verdict.result == CAUGHT and "model disagreement" in verdict.how


def test_an_invariant_check_is_caught():
    assert judge(Part("seeded", INVARIANT, PASSED)).result == CAUGHT


def test_a_passing_run_is_not_caught():
    assert judge(Part("seeded", PASSED, PASSED)).result == NOT_CAUGHT


def test_a_run_that_fails_on_the_unpatched_tree_too_is_an_error():
    verdict = judge(Part("seeded", MODEL_DISAGREEMENT, MODEL_DISAGREEMENT))
    assert verdict.result == ERROR and "unpatched" in verdict.how


def test_an_unpatched_tree_that_did_not_build_is_an_error():
    assert judge(Part("seeded", MODEL_DISAGREEMENT, None)).result == ERROR


def test_a_ctest_timeout_is_an_error_not_a_catch():
    assert judge(Part("seeded", TIMEOUT, PASSED)).result == ERROR


def test_a_run_killed_for_overrunning_the_layer_limit_is_an_error():
    assert judge(Part("seeded", KILLED, PASSED)).result == ERROR


def test_a_crash_in_code_the_patch_does_not_touch_is_an_error():
    verdict = judge(Part("seeded", ASAN_ELSEWHERE, PASSED))
    assert verdict.result == ERROR and "does not change" in verdict.how


def test_a_memory_report_in_patched_code_is_caught():
    assert judge(Part("seeded", ASAN_IN_PATCH, PASSED)).result == CAUGHT


def test_a_build_failure_is_an_error():
    assert build_error("build failed: see build.log").result == ERROR


def test_a_layer_without_entries_is_an_error():
    assert judge().result == ERROR


def test_an_error_in_either_part_makes_the_seed_an_error_even_beside_a_catch():
    assert judge(Part("deterministic", MODEL_DISAGREEMENT, PASSED), Part("seeded", TIMEOUT, PASSED)).result == ERROR
    assert judge(Part("deterministic", TIMEOUT, PASSED), Part("seeded", MODEL_DISAGREEMENT, PASSED)).result == ERROR


def test_a_catch_by_the_deterministic_part_counts_for_the_seed():
    assert judge(Part("deterministic", MODEL_DISAGREEMENT, PASSED), Part("seeded", PASSED, PASSED)).result == CAUGHT


def test_errors_are_never_counted_as_caught_and_four_of_five_is_needed():
    four = summarize([CAUGHT, CAUGHT, CAUGHT, CAUGHT, ERROR])
    assert (four.caught, four.errors, four.meets()) == (4, 1, True)
    three = summarize([CAUGHT, CAUGHT, CAUGHT, ERROR, ERROR])
    assert (three.caught, three.meets()) == (3, False)
    assert not summarize([CAUGHT, CAUGHT, CAUGHT, NOT_CAUGHT, NOT_CAUGHT]).meets()
    assert not summarize([]).meets()


def test_a_crash_without_a_report_is_an_error():
    crash = Run(139, seconds=1.0, log="    Start 4: stateful_props\nSegmentation fault (core dumped)\n")
    assert judge(Part("seeded", crash, PASSED)).result == ERROR
