"""A c10 night says which known upstream bugs its inputs showed, per release: the targets' lines
counted over every run, judged against fuzz/c10/known_upstream.status, in the report, the SARIF
notes and the history; a bug seen where the status file says fixed breaks the night."""
import io

import pytest

from dispatch_ci import c10_known
from dispatch_ci.log import Say
from dispatch_ci.nightly import history, history_step, known_upstream_step, report_md, report_model, sarif
from dispatch_ci.nightly.context import Night, Options
from dispatch_ci.nightly.engines import LibFuzzer
from dispatch_ci.nightly.run_folder import RunFolder

STATUS = {"stale-autogradother": {"1.13": "shows", "2.14": "shows"},
          "guard-backend-bits": {"1.13": "shows", "2.14": "fixed"},
          "refused-kernel-keeps-signature": {"2.14": "model-only"}}


def test_a_log_says_the_last_count_of_each_bug():
    log = ("#2 INITED cov: 9\nc10 known upstream: stale-autogradother seen in 1 inputs\n"
           "c10 known upstream: stale-autogradother seen in 2 inputs\n"
           "c10 known upstream: stale-autogradnestedtensor seen in 1 inputs\n"
           "c10 known upstream: stale-autogradother seen in 3 inputs\n")
    assert c10_known.seen_in(log) == {"stale-autogradother": 3, "stale-autogradnestedtensor": 1}
    assert c10_known.seen_in("c10 known upstream: x seen in 2 inputs (tail)") == {}


def test_each_bug_is_judged_against_the_status_file_of_its_release():
    rows = {r.bug_id: r for r in c10_known.sightings({"stale-autogradother": 37}, "2.14", STATUS)}
    assert rows["stale-autogradother"].verdict == "shows" and rows["stale-autogradother"].inputs == 37
    assert rows["guard-backend-bits"].verdict == "fixed"
    assert rows["refused-kernel-keeps-signature"].verdict == "model-only"
    assert not any(r.contradicts_status for r in rows.values())
    on_113 = {r.bug_id: r.verdict for r in c10_known.sightings({}, "1.13", STATUS)}
    assert on_113["guard-backend-bits"] == "not seen tonight"


def test_a_bug_seen_where_the_status_file_says_fixed_contradicts_it():
    rows = {r.bug_id: r for r in c10_known.sightings({"guard-backend-bits": 2}, "2.14", STATUS)}
    assert rows["guard-backend-bits"].contradicts_status
    assert rows["guard-backend-bits"].verdict.startswith("SEEN")


def test_a_seen_bug_missing_from_the_status_file_is_listed_too():
    rows = c10_known.sightings({"new-signature": 1}, "2.14", STATUS)
    assert rows[-1].bug_id == "new-signature" and rows[-1].verdict == "shows"


def test_the_headline_names_what_shows_and_what_is_fixed():
    rows = c10_known.sightings({"stale-autogradother": 37}, "2.14", STATUS)
    assert c10_known.headline(rows, "2.14") == ("c10 2.14 still shows stale-autogradother (37 inputs); "
                                                "fixed in 2.14: guard-backend-bits")
    assert c10_known.headline(c10_known.sightings({}, "2.14", STATUS), "2.14").startswith(
        "c10 2.14 showed no known upstream bug tonight")


def test_the_committed_status_file_reads():
    status = c10_known.read_status()
    assert status["guard-backend-bits"]["2.14"] == "fixed"
    assert set(status) == {bug_id for bug_id, _ in c10_known.read()}


@pytest.fixture
def c10_night(tmp_path):
    n = Night(Options(presets=["full-c10-2.14"], system="c10"), RunFolder(tmp_path / "nightly"), {},
              LibFuzzer({}, 1), say=Say("test", io.StringIO()))
    return n


def fuzz_log(night, name, text):
    log = night.folder.path / "logs" / "fuzz" / "full-c10-2.14" / "c10_registration_fuzzer" / name
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(text)


def steps(night):
    return {row[0]: row for row in report_model.read_tsv(str(night.folder.state("steps.tsv")), 4)}


def test_the_step_sums_every_run_and_writes_the_release(c10_night):
    fuzz_log(c10_night, "w1-r1.log", "c10 known upstream: stale-autogradother seen in 4 inputs\n")
    fuzz_log(c10_night, "w1-r2.log", "c10 known upstream: stale-autogradother seen in 2 inputs\n")
    rows = {r.bug_id: r for r in known_upstream_step.run(c10_night)}
    assert rows["stale-autogradother"].inputs == 6
    assert rows["guard-backend-bits"].verdict == "fixed"
    step = steps(c10_night)["known upstream"]
    assert step[1] == "ok" and "still shows stale-autogradother (6 inputs)" in step[3]
    assert report_model.read_kv(str(c10_night.folder.state("meta.tsv")))["libtorch"] == "2.14"


def test_the_step_breaks_the_night_on_a_contradiction(c10_night):
    fuzz_log(c10_night, "w1-r1.log", "c10 known upstream: guard-backend-bits seen in 1 inputs\n")
    known_upstream_step.run(c10_night)
    step = steps(c10_night)["known upstream"]
    assert step[1] == "FAILED" and "guard-backend-bits" in step[3]


def test_our_dispatchers_night_has_no_such_step(tmp_path):
    n = Night(Options(presets=["full-fuzz"]), RunFolder(tmp_path / "n"), {}, LibFuzzer({}, 1),
              say=Say("test", io.StringIO()))
    assert known_upstream_step.run(n) == [] and "known upstream" not in steps(n)


def test_report_sarif_and_history_carry_the_sightings(c10_night):
    fuzz_log(c10_night, "w1-r1.log", "c10 known upstream: stale-autogradother seen in 5 inputs\n")
    known_upstream_step.run(c10_night)
    report = report_model.load(str(c10_night.folder.path))
    assert report.libtorch == "2.14"
    md = "\n".join(report_md._known_upstream(report))
    assert "## Known upstream bugs of c10 2.14" in md and "| stale-autogradother | 5 | shows | shows |" in md
    doc = sarif.build({}, {}, "n", top_dirs=(), known_upstream=report.known_upstream, release=report.libtorch)
    notes = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in notes] == ["c10-known-upstream/stale-autogradother"]
    assert notes[0]["level"] == "note" and notes[0]["properties"]["inputs"] == 5
    store = history.empty()
    history.note_known_upstream(store, "night-1", history_step.known_upstream_tonight(c10_night))
    history.note_known_upstream(store, "night-2", {"2.14": {"stale-autogradother": 0}})
    entry = store["known_upstream"]["2.14"]["stale-autogradother"]
    assert entry == {"nights_seen": 1, "last_seen": "night-1", "inputs_last_seen": 5, "last_checked": "night-2"}
    assert history.validate(store) is store
