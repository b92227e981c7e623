"""Engine flags from the targets' options files, and the property suite's case planning and verdicts."""
from dispatch_ci.nightly import engines, property_suite


def test_options_flags_read_the_libfuzzer_section(tmp_path):
    opts = tmp_path / "t.options"
    opts.write_text("[libfuzzer]\nmax_len = 512   # comment\ndict = t.dict\n; other\n[afl]\nmax_len = 9\n")
    assert engines.options_flags(opts, tmp_path / "dicts" / "t.dict") == \
        ["-max_len=512", f"-dict={tmp_path / 'dicts' / 't.dict'}"]


def test_options_flags_add_the_default_dictionary(tmp_path):
    d = tmp_path / "t.dict"
    d.write_text('"x"\n')
    assert engines.options_flags(tmp_path / "missing.options", d) == [f"-dict={d}"]
    assert engines.options_flags(tmp_path / "missing.options", tmp_path / "missing.dict") == []


def test_libfuzzer_artifacts_and_restarts():
    e = engines.LibFuzzer({})
    log = "#2\tINITED cov: 1\n==1==ERROR\nTest unit written to build/a/crash-12\n"
    assert e.artifacts(log) == ["build/a/crash-12"]
    assert e.restart_after_failure(log)
    assert not e.restart_after_failure("==1==ERROR in a seed\nTest unit written to crash-1\n")
    assert e.rerun_cmd("bin", "f") == ["bin", "-timeout=25", "-rss_limit_mb=2560", "f"]


def test_large_cases_fit_the_share():
    cases, per_case = property_suite.large_cases(startup_s=1.0, calibration_s=3.4, share_s=100, target=2000)
    assert abs(per_case - 0.1) < 1e-9 and cases == 790
    assert property_suite.large_cases(1.0, 3.4, 100, target=500)[0] == 500


def _record(cal="passed", large=None):
    r = {"name": "t", "calibration": {"cases": 25, "result": cal, "reproduce": ["r1"], "seconds": 2}}
    if large:
        r["large"] = large
    return r


def test_property_verdicts():
    ok = property_suite.final_result(_record(large={"cases": 900, "result": "passed", "reproduce": [], "seconds": 5}))
    assert ok["result"] == "passed" and ok["cases"] == 900
    bad = property_suite.final_result(_record(large={"cases": 900, "result": "FAILED (exit 1)",
                                                     "reproduce": ["r2"], "seconds": 5}))
    assert bad["result"] == "FAILED (exit 1)" and bad["reproduce"] == ["r1", "r2"]
    slow = property_suite.final_result(_record(large={"cases": 900, "result": "timeout", "reproduce": [], "seconds": 80}))
    assert slow["result"] == "passed" and slow["cases"] == 25 and "did not finish" in slow["note"]
    assert property_suite.suite_exit_code([ok]) == property_suite.PASSED
    assert property_suite.suite_exit_code([ok, slow]) == property_suite.SLOW
    assert property_suite.suite_exit_code([slow, bad]) == property_suite.FAILED
    # a calibration failure is a failure even without a large run
    failed_cal = property_suite.final_result(_record(cal="FAILED (exit 1)"))
    assert property_suite.suite_exit_code([failed_cal]) == property_suite.FAILED


def test_executables_are_named_after_tests_not_yet_built():
    tests = [{"name": "a", "command": ["/b/properties/prop_a"]}, {"name": "prop_b", "command": []}]
    assert property_suite.executables(tests) == ["prop_a", "prop_b"]


def test_a_test_a_script_runs_is_not_a_property_of_the_tree():
    # c10's upstream-fixes replay is `bash replay.sh` under the c10 label: asking ninja to build
    # "bash" broke the c10 night's property step.
    bash_test = {"name": "c10_upstream_fixes_replay", "command": ["/usr/bin/bash", "/src/replay.sh"]}
    built = {"name": "c10_props", "command": ["/b/fuzz/c10/c10_props"]}
    unbuilt = {"name": "c10_release_status_test", "command": []}
    assert not property_suite.is_tree_executable(bash_test, "/b")
    assert property_suite.is_tree_executable(built, "/b") and property_suite.is_tree_executable(unbuilt, "/b")
    assert not property_suite.is_tree_executable({"name": "x", "command": ["/bx/x"]}, "/b")
