import xml.etree.ElementTree as ET

from dispatch_ci import junit


def test_single_failure_carries_message_and_log_tail(tmp_path):
    log = tmp_path / "b.log"
    log.write_text("".join(f"line {i}\n" for i in range(300)) + "end ]]> x\n")
    out = tmp_path / "r.xml"
    junit.write_single(out, "p.build", "build", False, 'cmake "failed" <rc=1>', log)
    suite = ET.parse(out).getroot()
    assert suite.get("failures") == "1" and suite.get("tests") == "1"
    failure = suite.find("testcase/failure")
    assert failure.get("message") == 'cmake "failed" <rc=1>'
    assert "line 299" in failure.text and "line 50\n" not in failure.text
    assert "end ]] > x" in failure.text


def test_single_pass_has_no_failure(tmp_path):
    out = tmp_path / "r.xml"
    junit.write_single(out, "canary", "ci/canaries.sh --fast", True)
    suite = ET.parse(out).getroot()
    assert suite.get("failures") == "0" and suite.find("testcase/failure") is None


def test_relabel_ctest(tmp_path):
    out = tmp_path / "c.xml"
    out.write_text('<testsuite name="(empty)" tests="1"><testcase name="t" classname="t"/></testsuite>')
    junit.relabel_ctest(out, "full-release.unit")
    case = ET.parse(out).getroot()
    assert case.get("name") == "full-release.unit"
    assert case.find("testcase").get("classname") == "full-release.unit.t"


def test_write_suite_counts_every_outcome_and_parses(tmp_path):
    out = tmp_path / "s.xml"
    junit.write_suite(out, "nightly x", [
        junit.Case("nightly.steps", "build", seconds=2.5),
        junit.Case("nightly.failures", "b1", "failure", "new: key", "trace ]]> end"),
        junit.Case("nightly.failures", "b2", "error", "stored input missing"),
        junit.Case("nightly.failures", "b3", "skipped", "known upstream", output="note"),
    ])
    suite = ET.parse(out).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    assert suite.get("time") == "2.500"
    cases = suite.findall("testcase")
    assert cases[1].find("failure").get("message") == "new: key" and "]] > end" in cases[1].find("failure").text
    assert cases[2].find("error") is not None and cases[3].find("skipped") is not None
    assert cases[3].find("system-out").text == "note"


def test_case_refuses_an_unknown_outcome():
    import pytest
    with pytest.raises(ValueError):
        junit.Case("c", "n", "flaky")
