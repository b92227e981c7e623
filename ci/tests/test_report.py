"""The report's data model (what makes a night red, campaign numbers, corpus commands) and its
rendering (HTML escaped, self-contained, the same data in report.md and report.html)."""
import json

from dispatch_ci.nightly import report, report_model


def test_overall_verdict():
    ok = [["build full-fuzz", "ok", "3", ""], ["triage", "ok", "1", ""]]
    assert report_model.overall_verdict(ok, 0) == "passed: no failures"
    assert report_model.overall_verdict(ok, 2) == "FAILED: 2 failure bucket(s)"
    broken = ok + [["corpus merge", "FAILED", "2", "x"]]
    assert report_model.overall_verdict(broken, 0) == "FAILED: broken: corpus merge"
    assert report_model.overall_verdict(broken, 1) == "FAILED: 1 failure bucket(s); broken: corpus merge"
    # "FAILURES" (triage found buckets) is counted through the buckets; skipped breaks nothing
    assert report_model.overall_verdict([["property suite", "skipped", "0", ""]], 0) == "passed: no failures"
    # a property run that timed out decided nothing: the night is red
    slow = ok + [["property suite", "INCONCLUSIVE (a property run timed out)", "9", ""]]
    assert report_model.overall_verdict(slow, 0) == "FAILED: broken: property suite"


def test_property_timeout_and_missing_suite_are_not_ok():
    from dispatch_ci.nightly import property_step, property_suite
    assert property_step.RESULT_OF_EXIT[property_suite.PASSED] == "ok"
    assert property_step.RESULT_OF_EXIT[property_suite.SLOW].startswith("INCONCLUSIVE")
    assert property_step.RESULT_OF_EXIT.get(property_suite.UNLISTED, "FAILED") == "FAILED"


LOG = """\
INFO: Seed: 1
#2\tINITED cov: 10 ft: 12 corp: 3/30b exec/s: 0 rss: 30Mb
#512\tpulse  cov: 14 ft: 20 corp: 5/50b lim: 4 exec/s: 256 rss: 31Mb
Test unit written to build/x/slow-unit-1
#1000\tDONE   cov: 15 ft: 22 corp: 6/60b lim: 4 exec/s: 333 rss: 32Mb
stat::number_of_executed_units: 1003
stat::average_exec_per_sec:     334
stat::new_units_added:          3
stat::peak_rss_mb:              40
"""
TIMELINE = "0.500\t#2\tINITED cov: 10 ft: 12 corp: 3/30b exec/s: 0 rss: 30Mb\n3.000\t#1000\tDONE   cov: 15 ft: 22 corp: 6/60b lim: 4 exec/s: 333 rss: 32Mb\n"


def test_parse_run_log_prefers_final_stats():
    s = report_model.parse_run_log(LOG, TIMELINE)
    assert (s["cov0"], s["cov"], s["units0"], s["units"], s["ft"]) == (10, 15, 3, 6, 22)
    assert (s["execs"], s["eps"], s["rss"], s["new_units"], s["slow_units"]) == (1003, 334, 40, 3, 1)
    assert s["points"] == [(0.5, 10, 3), (3.0, 15, 6)]


def test_final_stats_give_the_run_its_own_rate():
    s = report_model.parse_run_log(LOG, TIMELINE)
    assert (s["final_execs"], s["final_eps"]) == (1003, 334)
    # killed before libFuzzer printed its final stats: the status line's exec/s is no figure
    cut = report_model.parse_run_log(LOG.split("stat::")[0], TIMELINE)
    assert (cut["final_execs"], cut["final_eps"]) == (None, None)
    # shorter than a second: libFuzzer prints exec/s 0, which is no figure either
    short = report_model.parse_run_log("stat::number_of_executed_units: 50\nstat::average_exec_per_sec: 0\n", "")
    assert short["final_eps"] is None


def test_campaign_rate_is_execs_over_the_time_libfuzzer_measured():
    runs = [_run(final_execs=1000, final_eps=100), _run(final_execs=3000, final_eps=1000)]
    assert report_model.campaign_rate(runs) == str(round(4000 / 13))   # 10 s + 3 s


def test_a_campaign_with_runs_lacking_final_stats_says_how_many_had_them():
    runs = [_run(final_execs=1000, final_eps=100), _run(final_execs=None, final_eps=None)]
    assert report_model.campaign_rate(runs) == "100 (1/2 runs)"


def test_a_campaign_without_final_stats_says_so_never_0():
    runs = [_run(execs=500, eps=50), _run(execs=0, eps=0, final_execs=None, final_eps=None)]
    assert report_model.campaign_rate(runs) == report_model.NO_RATE
    assert report_model.summarise_campaign(runs, 0, {})["eps"] == report_model.NO_RATE


def test_parse_run_log_of_a_run_that_printed_nothing():
    s = report_model.parse_run_log("", "")
    assert s["cov"] is None and s["points"] == []


def _run(**kw):
    r = {"execs": 100, "eps": 10, "cov0": 5, "cov": 9, "ft": 11, "units0": 2, "units": 4, "rss": 30,
         "slow_units": 0, "points": [], "worker": "1", "run": "1", "secs": 10, "artifacts": []}
    r.update(kw)
    return r


def test_campaign_summary_adds_runs_and_maps_artifacts_to_buckets():
    runs = [_run(artifacts=["a/crash-1"], points=[(1.0, 5, 2)]),
            _run(run="2", execs=300, secs=30, cov=12, artifacts=["a/crash-2"], points=[(2.0, 12, 4)])]
    c = report_model.summarise_campaign(runs, 7, {"crash-1": "bucket-a"})
    assert (c["execs"], c["secs"], c["eps"], c["cov"], c["new_files"]) == (400, 40, report_model.NO_RATE, 12, 7)
    assert c["buckets"] == ["?", "bucket-a"]   # an artifact no bucket claims shows as "?"
    assert c["series"]["1"] == [(1.0, 5), (12.0, 12)]   # run 2 continues after run 1's 10 s


def test_corpus_commands_only_for_changed_and_merged_targets():
    corpus = [["a", "3", "0", "3", "ok"], ["b", "3", "2", "4", "ok"], ["c", "3", "2", "4", "FAILED"],
              ["d", "3", "0", "2", "ok"]]
    cmds = report_model.corpus_commands("build/nightly/x", corpus)
    assert [c.split()[2] for c in cmds] == ["fuzz/corpus/b", "fuzz/corpus/d"]


def _write_run(tmp_path, bucket_headline):
    run = tmp_path / "20260101T000000Z"
    for d in ("state", "logs/fuzz/full-fuzz/t", "failures/b1", "new-units/full-fuzz/t"):
        (run / d).mkdir(parents=True)
    log = run / "logs/fuzz/full-fuzz/t/w1-r1.log"
    log.write_text(LOG)
    (run / "logs/fuzz/full-fuzz/t/w1-r1.timeline.tsv").write_text(TIMELINE)
    (run / "state/meta.tsv").write_text("budget\t60\ncanary\tnone\ncommand\tci/nightly.sh --budget 60\n")
    (run / "state/steps.tsv").write_text("fuzz\tok\t40\t1 campaigns\ntriage\tFAILURES\t3\t1 artifacts -> 1 buckets\n")
    (run / "state/plan.tsv").write_text("full-fuzz\tt\n")
    (run / "state/runs.tsv").write_text(
        f"full-fuzz\tt\t1\t1\t77\t1\t40\t{log}\t{run}/logs/fuzz/full-fuzz/t/w1-r1.timeline.tsv\tx/crash-1\n")
    (run / "state/corpus.tsv").write_text("t\t3\t1\t4\tok\n")
    (run / "state/property.tsv").write_text("result\tskipped\ndetail\t--no-property\n")
    (run / "failures/b1/bucket.json").write_text(json.dumps({
        "bucket_id": "b1", "key_string": "asan: x | a | k | full", "headline": bucket_headline,
        "key": {"kind": "asan: <x>", "action": "a", "dispatch_key": "k", "flavour": "full"},
        "artifacts": [{"artifact": "x/crash-1", "preset": "full-fuzz", "target": "t"}],
        "frames": [], "notes": ["n1"], "input_size": 9, "minimized_size": 2}))
    (run / "failures/b1/stack.txt").write_text("==1==ERROR: AddressSanitizer: x\n")
    (run / "failures/b1/trace.txt").write_text("step 1\n")
    return run


def test_report_files_from_one_model(tmp_path):
    run = _write_run(tmp_path, "<script>alert(1)</script>")
    overall = report.write(str(run), str(tmp_path / "no-coverage"))
    assert overall == "FAILED: 1 failure bucket(s)"
    md = (run / "report.md").read_text()
    page = (run / "report.html").read_text()
    assert "**Result: FAILED: 1 failure bucket(s)**" in md and "[b1](failures/b1/)" in md
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "asan: &lt;x&gt;" in page and "<svg" in page and "<style>" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")   # self-contained
    assert page.count("<tr><td>full-fuzz</td><td>t</td>") == 2        # campaign row and run row
    assert (run / "failures/b1/README.md").read_text().startswith("# Failure bucket b1")
    assert (run / "state/campaigns.tsv").read_text() == "full-fuzz/t\t1\t1003\t334\t10->15\t3->6\t1\n"   # exec/s: libFuzzer's final stats


def test_a_passing_night_renders_no_failures(tmp_path):
    run = _write_run(tmp_path, "h")
    (run / "failures/b1/bucket.json").unlink()
    (run / "state/steps.tsv").write_text("fuzz\tok\t40\t1 campaigns\n")
    assert report.write(str(run), str(tmp_path / "none")) == "passed: no failures"
    assert '<p class="ok">None.</p>' in (run / "report.html").read_text()


def test_verdict_with_the_crash_history():
    ok = [["fuzz", "ok", "3", ""]]
    assert report_model.overall_verdict(ok, 1, {"b1": "new", "b2": "fixed"}) == \
        "FAILED: 1 failure bucket(s) (history: 1 new, 1 fixed)"
    # a known bucket still failing on re-check is a failure even though fuzzing did not find it
    assert report_model.overall_verdict(ok, 0, {"b1": "known"}) == "FAILED: 1 failure bucket(s) (history: 1 known)"
    assert report_model.overall_verdict(ok, 0, {"b1": "known"}, "new") == "passed: no new failures (history: 1 known)"
    assert report_model.overall_verdict(ok, 0, {"b1": "known upstream"}) == "passed: no failures (history: 1 known upstream)"
    assert report_model.overall_verdict(ok, 0, {"b1": "fixed"}) == "passed: no failures (history: 1 fixed)"


def _history_state(run, tonight):
    buckets = {bid: {"bucket_id": bid, "status": "fixed" if ev == "fixed" else "known", "first_seen": "n0",
                     "last_seen": "n1", "count": 2, "key_string": "asan: x | a | k | full", "target": "t",
                     "key": {"kind": "asan: x"}, "fixed_in": "abc1234", "trace": "step 1",
                     "last_check": {"outcome": "passes" if ev == "fixed" else "fails", "detail": "d"}}
               for bid, ev in tonight.items()}
    (run / "state/history.json").write_text(json.dumps({"store": "build/nightly/history.json", "commit": "abc1234",
                                                         "tonight": tonight, "buckets": buckets}))


def test_report_sarif_and_junit_with_the_history(tmp_path):
    import xml.etree.ElementTree as ET
    run = _write_run(tmp_path, "h")
    _history_state(run, {"b1": "known", "b0": "fixed"})
    assert report.write(str(run), str(tmp_path / "none")) == "FAILED: 1 failure bucket(s) (history: 1 known, 1 fixed)"
    md = (run / "report.md").read_text()
    assert "## Crash history" in md and "| b1 | known | known | n0 | n1 | 2 |" in md and "fixed in abc1234" in md
    assert "crash history</a>" in (run / "report.html").read_text()
    results = json.loads((run / "report.sarif").read_text())["runs"][0]["results"]
    assert [r["properties"]["bucket"] for r in results] == ["b1"]
    suite = ET.parse(run / "report.junit.xml").getroot()
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["b1"].find("failure") is not None and cases["b0"].find("failure") is None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "0")


def test_a_broken_step_is_a_junit_error(tmp_path):
    import xml.etree.ElementTree as ET
    run = _write_run(tmp_path, "h")
    (run / "state/steps.tsv").write_text("fuzz\tFAILED\t4\truns that failed without an artifact\n")
    report.write(str(run), str(tmp_path / "none"))
    suite = ET.parse(run / "report.junit.xml").getroot()
    assert suite.find("testcase[@name='fuzz']/error").get("message").startswith("FAILED")
    # no history (its step broke): tonight's bucket is still a failure
    assert suite.find("testcase[@name='b1']/failure") is not None
