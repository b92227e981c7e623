"""The sound canary verdict over recorded runs: what counts as caught, and what is ERROR."""
from dispatch_ci.canaries.classify import classify
from dispatch_ci.canaries.patches import Touched
from dispatch_ci.canaries.verdict import (CAUGHT, ERROR, ESCAPED, LUCK, Outcome, Row, Run, Seed,
                                          ctest_outcome, fuzz_outcome, verdicts)

TOUCHED = Touched(files={"dispatch/src/dispatcher.cpp"}, functions={"registerFallback"})
PASS = Run(0, seconds=1.0, log="100% tests passed, 0 tests failed out of 1")

ASAN_IN_DISPATCHER = """
==123==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55 bp 0x7f
WRITE of size 8 at 0x602 thread T0
    #0 0x55d in std::array<int, 3>::operator[](unsigned long) /usr/include/c++/12/array:208:9
    #1 0x55e in dispatch::BasicDispatcher<dispatch::MobileLayout>::registerFallback(dispatch::DispatchKey) /w/build/canary-work/x/src/dispatch/src/dispatcher.cpp:172:16
    #2 0x55f in main /w/src/fuzz/fallback_fuzzer.cpp:40:3
SUMMARY: AddressSanitizer: heap-buffer-overflow
"""
ASAN_ELSEWHERE = ASAN_IN_DISPATCHER.replace("dispatch/src/dispatcher.cpp", "dispatch/src/schema.cpp") \
    .replace("registerFallback", "parseSchema")
GTEST_FAILURE = "[ RUN      ] OperatorEntry.Remove\nexpected 1, got 2\n[  FAILED  ] OperatorEntry.Remove (3 ms)\n"
HANG = "Test #3: dispatch_key_set_test ...***Timeout 20.01 sec\n"


def failing(log, rc=1, seconds=2.0):
    return Run(rc, seconds=seconds, log=log)


# --- classification -------------------------------------------------------------------------

def test_classify_names_each_detection_and_its_frame():
    asan = classify(ASAN_IN_DISPATCHER)
    assert asan.kind == "ASan report" and asan.frame_file.endswith("/src/dispatch/src/dispatcher.cpp")
    assert classify("/x/src/dispatch/src/operator_entry.cpp:328:5: runtime error: index 16 out of "
                    "bounds").frame_file == "/x/src/dispatch/src/operator_entry.cpp"
    assert classify(GTEST_FAILURE).kind == "test expectation"
    assert classify("internal assert failed at /s/dispatch/src/dispatcher.cpp:9: x. "
                    "checkInvariants: recomputation gives B").kind == "invariant check"
    assert classify("==== DISPATCH FUZZ BUG in fallback_fuzzer: model says CPU, table says "
                    "Autograd").kind == "model disagreement"
    assert classify("/usr/include/c++/12/array:208: ... Assertion '__n < this->size()' failed."
                    ).kind == "hardened assertion"


def test_classify_errors_win_over_detections():
    assert classify("WARNING: unrecognized flag '-bogus=1'\n" + GTEST_FAILURE).kind == "bad option"
    assert classify("==1==ERROR: LeakSanitizer: detected memory leaks").kind == "leak report"
    assert classify("==1== ERROR: libFuzzer: out-of-memory (used: 2100Mb)").kind == "out of memory"
    assert classify("ALARM: working on the last Unit for 26 seconds").kind == "timeout"
    assert classify(HANG).kind == "timeout"
    assert classify("Could not find executable build/x").kind == "missing file"
    assert classify("==1==ERROR: AddressSanitizer: ABRT on unknown address\n").kind == "crash"
    assert not classify("some unrelated failure text").is_detection


# --- ctest layers (the three selftest shapes first) -------------------------------------------

def test_a_no_op_patch_is_escaped():
    assert ctest_outcome(PASS, PASS, TOUCHED).result == ESCAPED


def test_a_patch_that_makes_a_test_hang_is_error():
    hung = Run(8, timed_out=False, seconds=20.0, log=HANG)
    assert ctest_outcome(hung, PASS, TOUCHED).result == ERROR
    killed = Run(124, timed_out=True, seconds=120.0, log="")
    assert ctest_outcome(killed, PASS, TOUCHED).result == ERROR


def test_a_failing_baseline_makes_every_failure_error():
    assert ctest_outcome(failing(GTEST_FAILURE), failing(GTEST_FAILURE), TOUCHED).result == ERROR
    assert ctest_outcome(failing(GTEST_FAILURE), None, TOUCHED).result == ERROR


def test_detections_in_changed_code_are_caught():
    assert ctest_outcome(failing(ASAN_IN_DISPATCHER), PASS, TOUCHED).result == CAUGHT
    assert ctest_outcome(failing(GTEST_FAILURE), PASS, TOUCHED).result == CAUGHT


def test_a_report_in_code_the_patch_does_not_change_is_error():
    outcome = ctest_outcome(failing(ASAN_ELSEWHERE), PASS, TOUCHED)
    assert outcome.result == ERROR and "dispatch/src/schema.cpp" in outcome.how


def test_an_unclassified_failure_is_error_not_caught():
    assert ctest_outcome(failing("Segmentation fault (core dumped)"), PASS, TOUCHED).result == ERROR
    assert ctest_outcome(failing("nothing recognisable"), PASS, TOUCHED).result == ERROR


# --- fuzz layer ----------------------------------------------------------------------------

def caught_seed(seconds=5.0, **changes):
    seed = Seed(run=failing(ASAN_IN_DISPATCHER, seconds=seconds), baseline=PASS,
                artifact="crash-1", rerun_patched=failing(ASAN_IN_DISPATCHER), rerun_baseline=PASS)
    for key, value in changes.items():
        setattr(seed, key, value)
    return seed


def clean_seed():
    return Seed(run=Run(0, seconds=60.0), baseline=PASS)


def test_fuzz_four_of_five_verified_seeds_catch():
    out = fuzz_outcome([caught_seed(s) for s in (1, 2, 3, 4)] + [clean_seed()], TOUCHED, 60)
    assert (out.result, out.detail, out.seconds) == (CAUGHT, "4/5 seeds", 2)


def test_fuzz_fewer_seeds_is_luck_and_none_is_escaped():
    assert fuzz_outcome([caught_seed()] * 3 + [clean_seed()] * 2, TOUCHED, 60).result == LUCK
    assert fuzz_outcome([clean_seed()] * 5, TOUCHED, 60).result == ESCAPED


def test_fuzz_seed_without_artifact_or_reproduction_is_error():
    for broken in (caught_seed(artifact=None),
                   caught_seed(rerun_patched=PASS),
                   caught_seed(rerun_patched=failing(GTEST_FAILURE)),
                   caught_seed(rerun_baseline=failing(ASAN_IN_DISPATCHER)),
                   caught_seed(baseline=failing("ERROR: libFuzzer: deadly signal"))):
        assert fuzz_outcome([broken] + [caught_seed()] * 4, TOUCHED, 60).result == ERROR


def test_fuzz_non_detections_are_error():
    for log in ("ERROR: libFuzzer: timeout after 25 seconds", "WARNING: unrecognized flag '-x=1'",
                "==1== ERROR: libFuzzer: out-of-memory", "ERROR: LeakSanitizer: detected memory leaks",
                "ERROR: The required directory \"corpus\" does not exist"):
        seed = caught_seed(run=failing(log))
        assert fuzz_outcome([seed] + [caught_seed()] * 4, TOUCHED, 60).result == ERROR, log


def test_fuzz_missing_seed_results_are_error():
    assert fuzz_outcome([caught_seed()] * 4, TOUCHED, 60).result == ERROR


# --- the verdict table -----------------------------------------------------------------------

def row(canary, flavour, result, setup="hardened", seconds=1.0):
    return Row(canary, flavour, setup, "unit", "t", Outcome(result, "", seconds))


def test_one_verdict_per_expected_canary_and_flavour_and_a_missing_one_is_error():
    table = verdicts([row("a", "full", CAUGHT)], [("a", "full"), ("a", "mobile"), ("b", "full")])
    assert [(v.canary, v.flavour, v.verdict) for v in table] == [
        ("a", "full", "caught"), ("a", "mobile", "ERROR"), ("b", "full", "ERROR")]


def test_verdict_combines_rows():
    expected = [("a", "full")]
    assert verdicts([row("a", "full", ESCAPED), row("a", "full", CAUGHT)], expected)[0].verdict == "caught"
    assert verdicts([row("a", "full", CAUGHT), row("a", "full", ERROR)], expected)[0].verdict == "ERROR"
    assert verdicts([row("a", "full", LUCK), row("a", "full", ESCAPED)], expected)[0].verdict == "LUCK"
    assert verdicts([row("a", "full", ESCAPED)], expected)[0].verdict == "ESCAPED"
    # plain-asan rows are information only
    assert verdicts([row("a", "full", CAUGHT, "plain-asan")], expected)[0].verdict == "ERROR"


def test_rows_for_unplanned_canaries_and_an_empty_table_fail():
    table = verdicts([row("z", "full", CAUGHT)], [("a", "full")])
    assert {(v.canary, v.verdict) for v in table} == {("a", "ERROR"), ("z", "ERROR")}
    assert verdicts([], []) == []
