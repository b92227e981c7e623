"""The bug benchmark's verdict of one fuzzing run (bugbench/verdict.py): only a sound detection
with a reproducing artifact is found; a timeout, an unrelated crash, a missing binary, an empty
run or a short clean stop is an error, never found, never not found."""
from dispatch_ci.bugbench.verdict import ERROR, FOUND, NOT_FOUND, executions, judge
from dispatch_ci.canaries.patches import Touched
from dispatch_ci.canaries.verdict import Run, Seed

TOUCHED = Touched(files={"dispatch/src/operator_entry.cpp"}, functions={"deregisterKernel"})
BUDGET = 90.0
STATS = "stat::number_of_executed_units: 4242\n"
DISAGREEMENT = ("==== DISPATCH FUZZ BUG in registration_fuzzer: dispatcher and model disagree\n"
                "==1== ERROR: libFuzzer: deadly signal\n" + STATS)
ASAN_ELSEWHERE = """
==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602 at pc 0x55 bp 0x7f
    #0 0x55d in dispatch::parseSchema(std::string_view) /w/build/canary-work/x/src/dispatch/src/schema.cpp:40:3
""" + STATS
CLEAN = "#4242\tDONE   cov: 10 ft: 20 corp: 3/9b exec/s: 47 rss: 40Mb\nDone 4242 runs in 90 second(s)\n" + STATS
NO_SOURCE = ("", "")  # the source reader of a report outside the patch: nothing calls it


def found_seed(log=DISAGREEMENT, rerun_patched=None, rerun_baseline=None, artifact="crash-1"):
    return Seed(Run(1, seconds=12.5, log=log), None, artifact,
                rerun_patched if rerun_patched is not None else Run(1, log=DISAGREEMENT),
                rerun_baseline if rerun_baseline is not None else Run(0, log="ok"))


def verdict(seed, exists=True):
    return judge(exists, seed, BUDGET, TOUCHED, lambda f, l: NO_SOURCE)


def test_a_reproducing_detection_is_found_with_seconds_and_executions():
    judged = verdict(found_seed())
    assert judged.result == FOUND
    assert judged.seconds == 12.5 and judged.executions == 4242
    assert judged.how.startswith("model disagreement")


def test_a_clean_run_over_the_whole_budget_is_not_found():
    judged = verdict(Seed(Run(0, seconds=91.0, log=CLEAN), None))
    assert judged.result == NOT_FOUND and judged.executions == 4242


def test_a_missing_binary_is_an_error():
    assert verdict(Seed(Run(127, log="cannot run x"), None), exists=False).result == ERROR


def test_a_run_killed_for_overrunning_its_budget_is_an_error():
    seed = Seed(Run(-9, timed_out=True, seconds=240.0, log=DISAGREEMENT), None)
    assert verdict(seed).result == ERROR


def test_an_empty_run_is_an_error_whether_it_passed_or_failed():
    assert verdict(Seed(Run(0, seconds=95.0, log="INFO: Seed: 1\n"), None)).result == ERROR
    assert verdict(Seed(Run(0, seconds=95.0, log="Executed 0 inputs in 0.001 s"), None)).result == ERROR
    no_stats = DISAGREEMENT.replace(STATS, "")
    assert verdict(found_seed(log=no_stats)).result == ERROR


def test_a_clean_stop_well_before_the_budget_is_an_error():
    judged = verdict(Seed(Run(0, seconds=3.0, log=CLEAN), None))
    assert judged.result == ERROR and "stopped cleanly" in judged.how


def test_a_libfuzzer_timeout_is_an_error():
    log = "==1== ERROR: libFuzzer: timeout after 25 seconds\n" + STATS
    assert verdict(found_seed(log=log)).result == ERROR


def test_a_crash_in_code_the_bug_does_not_touch_is_an_error():
    judged = verdict(found_seed(log=ASAN_ELSEWHERE, rerun_patched=Run(1, log=ASAN_ELSEWHERE)))
    assert judged.result == ERROR and "does not change" in judged.how


def test_a_detection_without_an_artifact_is_an_error():
    assert verdict(found_seed(artifact="")).result == ERROR


def test_an_artifact_that_passes_again_or_fails_unpatched_is_an_error():
    assert verdict(found_seed(rerun_patched=Run(0, log="ok"))).result == ERROR
    assert verdict(found_seed(rerun_baseline=Run(1, log=DISAGREEMENT))).result == ERROR


def test_executions_are_read_from_the_final_stats_then_done_then_status_lines():
    assert executions("#12\tNEW cov: 1\n#40\tpulse\n") == 40
    assert executions("Done 77 runs in 5 second(s)\n#70\tpulse\n") == 77
    assert executions(CLEAN) == 4242
    assert executions("nothing here") is None
