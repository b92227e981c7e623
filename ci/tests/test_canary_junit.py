"""junit.xml of ci/canaries.sh: caught passes, ESCAPED and LUCK fail, ERROR is an error, a
missing verdict table or a stopped job is an error; selftest cases compare with `expect:`."""
import xml.etree.ElementTree as ET

import pytest

from dispatch_ci import junit
from dispatch_ci.canaries import junit_cases
from dispatch_ci.canaries.verdict import CAUGHT, ESCAPED, Outcome, Row, Verdict


def rows():
    return [Row("c1", "mobile", "hardened", "unit", "dispatcher_test", Outcome(CAUGHT, "exit 1", 0.5, "gtest")),
            Row("c1", "mobile", "plain-asan", "unit", "dispatcher_test", Outcome(CAUGHT, "exit 1", 0.3, "gtest")),
            Row("c2", "full", "hardened", "fuzz", "keyset_fuzzer", Outcome(ESCAPED, "0/5 seeds", 60.0))]


@pytest.mark.parametrize("verdict,outcome", [("caught", "passed"), ("ESCAPED", "failure"), ("LUCK", "failure"),
                                             ("ERROR", "error")])
def test_each_verdict_has_its_outcome(verdict, outcome):
    assert junit_cases.verdict_outcome(verdict) == outcome


def test_selftest_passes_only_the_expected_verdict():
    assert junit_cases.verdict_outcome("ESCAPED", "ESCAPED") == "passed"
    assert junit_cases.verdict_outcome("caught", "ERROR") == "failure"


def test_one_case_per_verdict_with_its_rows_and_the_file_parses(tmp_path):
    table = [Verdict("c1", "mobile", "caught", "0.5", "unit dispatcher_test"), Verdict("c2", "full", "ESCAPED")]
    out = tmp_path / "junit.xml"
    junit.write_suite(out, "canaries full", junit_cases.cases("full", table, rows()))
    suite = ET.parse(out).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    first, second = suite.findall("testcase")
    assert (first.get("classname"), first.get("name")) == ("canaries.full", "c1 [mobile]")
    assert first.find("failure") is None and "plain-asan unit dispatcher_test: caught" in first.find("system-out").text
    assert second.find("failure").get("message").startswith("ESCAPED")
    assert "fuzz keyset_fuzzer: escaped" in second.find("failure").text


def test_no_verdicts_is_an_error_not_an_empty_pass():
    (case,) = junit_cases.cases("fast", [], [])
    assert case.outcome == "error"


def test_a_stopped_job_is_an_error_case():
    (case,) = junit_cases.stopped("full", "ci/canaries/x.patch: does not apply\nerror: patch failed")
    assert (case.outcome, case.name, case.message) == ("error", "patches", "ci/canaries/x.patch: does not apply")
