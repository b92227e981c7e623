"""ci/replay.sh: naming the failing input, what failed, what is replayed next."""
from pathlib import Path

from dispatch_ci import replay_rules as rules


def test_list_inputs_per_root_sorted_without_hidden_files(tmp_path):
    for root, names in (("corpus", ["b", "a", ".hidden"]), ("regressions", ["c"])):
        (tmp_path / root / "t").mkdir(parents=True)
        for n in names:
            (tmp_path / root / "t" / n).write_text(n)
    inputs = rules.list_inputs([tmp_path / "corpus", tmp_path / "regressions", tmp_path / "none"], "t")
    assert [p.relative_to(tmp_path).as_posix() for p in inputs] == ["corpus/t/a", "corpus/t/b", "regressions/t/c"]


def test_the_replay_main_names_the_last_running_input():
    out = "Running: fuzz/corpus/t/a\nRunning: fuzz/corpus/t/b\n==1==ERROR: AddressSanitizer: x\n"
    assert rules.culprit_from_output(out, {}) == Path("fuzz/corpus/t/b")
    resumed = {"w/in/000001.b": Path("fuzz/corpus/t/b")}
    assert rules.culprit_from_output("Running: w/in/000001.b\n", resumed) == Path("fuzz/corpus/t/b")


def test_a_failure_after_all_inputs_ran_names_no_input():
    # e.g. a leak reported at exit: the last "Running:" input is not the culprit
    out = "Running: a\nRunning: b\nExecuted 2 inputs\n==1==ERROR: LeakSanitizer: detected memory leaks\n"
    assert rules.culprit_from_output(out, {}) is None
    assert rules.culprit_from_output("crashed before any input\n", {}) is None


def test_libfuzzer_artifact_maps_back_by_content(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"one")
    b.write_bytes(b"two")
    art = tmp_path / "crash-x"
    art.write_bytes(b"two")
    assert rules.culprit_from_artifact(art, [a, b]) == b
    assert rules.culprit_from_artifact(None, [a, b]) is None


def test_failure_text():
    assert rules.failure_text(124, True, None, "", 25, 900, False).startswith("hangs (killed: more than 25s")
    assert rules.failure_text(70, False, Path("timeout-1"), "", 25, 900, True) == "timeout (libFuzzer -timeout=25)"
    out = "noise\n/x.cpp:3:4: runtime error: signed integer overflow\nmore\n"
    assert rules.failure_text(1, False, None, out, 25, 900, False) == "/x.cpp:3:4: runtime error: signed integer overflow"
    assert rules.failure_text(3, False, None, "nothing useful\n", 25, 900, False) == "exit code 3"


def test_what_is_replayed_after_a_failure():
    files = [Path(x) for x in ("a", "b", "c", "d")]
    # replay main: a and b ran (b failed); c and d are left
    assert rules.still_to_replay(files, [Path("b")], [Path("a"), Path("b")]) == [Path("c"), Path("d")]
    # libFuzzer: everything but the failing inputs again
    assert rules.still_to_replay(files, [Path("b")], []) == [Path("a"), Path("c"), Path("d")]


def test_inputs_per_second():
    assert rules.inputs_per_second(100, 4.0) == "25" and rules.inputs_per_second(5, 0) == "0"


def test_the_run_verdict():
    assert not rules.replay_failed(["passed", "passed"])
    assert rules.replay_failed([])                                  # nothing replayed
    assert rules.replay_failed(["passed", rules.NO_INPUTS])         # an empty input set
    assert rules.replay_failed(["passed", "FAILED (2)"])
    assert rules.replay_failed(["CONFIG-FAIL"]) and rules.replay_failed(["BUILD-FAIL"])


def test_junit_outcome_of_a_summary_row():
    assert rules.junit_outcome("passed") == "passed"
    assert rules.junit_outcome("FAILED (2)") == "failure"
    # nothing replayed is never a pass: an error, like a broken build
    assert rules.junit_outcome(rules.NO_INPUTS) == "error"
    assert rules.junit_outcome("BUILD-FAIL") == "error" and rules.junit_outcome("CONFIG-FAIL") == "error"
