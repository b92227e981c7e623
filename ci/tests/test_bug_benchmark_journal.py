"""The bug benchmark's journal (bugbench/journal.py): a run cut off goes on with --resume, running
only what no earlier sitting judged, and only if it measures the same thing."""
import json

import pytest

from dispatch_ci.bugbench import bugs, runner
from dispatch_ci.bugbench.journal import Journal, JournalError

from bugbench_doubles import bench_that_records

SETTINGS = {"version": 3, "source": "abc123", "seeds": 2, "budget_seconds": 60, "mutators": ["bytes"],
            "fake_stacks": ["default"], "jobs": 2, "shard": [2, 6], "bugs": {"m": ["registration_fuzzer"]}}


def record(seed, result="found", target="registration_fuzzer", mutator="bytes"):
    return runner.RunRecord("m", "mutant", target, mutator, seed, 60, result, 1.0, 10, "", "").to_json()


def test_a_resumed_journal_keeps_the_judged_runs_but_not_the_errors_and_counts_every_sitting(tmp_path):
    path = tmp_path / "journal.jsonl"
    first = Journal.start(path, SETTINGS)
    first.record(record(1))
    first.record(record(2, result="error"))   # measured nothing: the next sitting runs it again
    # cut off here: no close()
    second = Journal.resume(path, dict(SETTINGS))
    assert [r["seed"] for r in second.done] == [1]
    assert list(second.done_runs()) == [("m", "registration_fuzzer", "bytes", "default", 1)]
    assert len(second.sittings) == 2 and "cut_off_after" in second.sittings[0]
    second.close()
    third = Journal.resume(path, dict(SETTINGS))
    assert len(third.sittings) == 3 and third.sittings[1]["seconds"] >= 0
    assert third.minutes() >= 0


@pytest.mark.parametrize("change", [{"seeds": 5}, {"mutators": ["structure"]}, {"jobs": 1}, {"shard": [3, 6]},
                                    {"bugs": {"m": ["fallback_fuzzer"]}}, {"source": "def456"}, {"extra": 1}])
def test_a_resume_of_another_measurement_is_refused_and_names_what_differs(tmp_path, change):
    path = tmp_path / "journal.jsonl"
    Journal.start(path, SETTINGS)
    key = next(iter(change))
    with pytest.raises(JournalError, match=key):
        Journal.resume(path, dict(SETTINGS, **change))


def test_a_resume_needs_a_journal_and_committed_files(tmp_path):
    with pytest.raises(JournalError, match="cannot read"):
        Journal.resume(tmp_path / "missing.jsonl", SETTINGS)
    (tmp_path / "bare.jsonl").write_text(json.dumps({"run": record(1)}) + "\n")
    with pytest.raises(JournalError, match="settings"):
        Journal.resume(tmp_path / "bare.jsonl", SETTINGS)
    Journal.start(tmp_path / "j.jsonl", dict(SETTINGS, source="abc123+changes"))
    with pytest.raises(JournalError, match="known commit"):
        Journal.resume(tmp_path / "j.jsonl", dict(SETTINGS, source="abc123+changes"))


def test_a_bench_run_keeps_the_judged_runs_and_runs_and_records_only_the_rest(monkeypatch, tmp_path):
    ran, recorded = [], []
    bench = bench_that_records(monkeypatch, tmp_path, ran)
    bench.done = {("m", "registration_fuzzer", "bytes", "default", 1): record(1),
                  ("m", "keyset_fuzzer", "bytes", "default", 2): record(2, target="keyset_fuzzer")}
    bench.on_record = recorded.append
    bug = bugs.Bug(name="m", kind="mutant", flavour="full", targets=[], diff="")
    bench.run_bug(bug, ["registration_fuzzer", "keyset_fuzzer"], ["bytes", "structure"], 2)

    assert sorted((t, m, s) for t, m, _, s, _ in ran) == [
        ("keyset_fuzzer", "bytes", 1), ("registration_fuzzer", "bytes", 2),
        ("registration_fuzzer", "structure", 1), ("registration_fuzzer", "structure", 2)]
    assert sorted((r["target"], r["mutator"], r["seed"]) for r in recorded) == sorted(
        (t, m, s) for t, m, _, s, _ in ran)
    cells = {(r.target, r.mutator, r.seed): r for r in bench.records}
    assert len(bench.records) == 8 and len(cells) == 8
    assert cells[("keyset_fuzzer", "structure", 2)].same_run_as == "bytes"   # a copy of a judged run


def test_a_bug_whose_runs_were_all_judged_is_not_built_again(monkeypatch, tmp_path):
    ran = []
    bench = bench_that_records(monkeypatch, tmp_path, ran)
    monkeypatch.setattr(runner.BenchRun, "_build", lambda *a: pytest.fail("built a bug with nothing to run"))
    bench.done = {("m", "registration_fuzzer", "bytes", "default", s): record(s) for s in (1, 2)}
    bench.run_bug(bugs.Bug(name="m", kind="mutant", flavour="full", targets=[], diff=""),
                  ["registration_fuzzer"], ["bytes"], 2)
    assert ran == [] and [r.seed for r in bench.records] == [1, 2]


def test_the_job_refuses_a_resume_without_its_journal_and_says_when_a_run_was_resumed(monkeypatch, tmp_path):
    import argparse
    from dispatch_ci.jobs import bug_benchmark
    from dispatch_ci.log import UsageError
    monkeypatch.setattr(bug_benchmark, "OUT", tmp_path)
    with pytest.raises(UsageError, match="--resume"):
        bug_benchmark.open_journal(argparse.Namespace(resume=True), SETTINGS)
    assert bug_benchmark.open_journal(argparse.Namespace(resume=False), SETTINGS).done == []
    assert bug_benchmark.open_journal(argparse.Namespace(resume=True), SETTINGS).sittings[1]
    document = {"full": False, "date": "2026-12-06", "version": 3, "bugs": [], "seeds": 5, "budget_seconds": 300,
                "mutators": ["bytes"], "jobs": 2, "cores": 2, "load_before": [1.0], "load_after": [1.0],
                "minutes_taken": 130.0, "sittings": 2}
    assert "130 min in all over 2 sittings (resumed)" in bug_benchmark.describe(document)
    assert "sittings" not in bug_benchmark.describe(dict(document, sittings=1))


def test_a_new_run_says_when_it_replaces_the_journal_of_a_cut_off_run(monkeypatch, tmp_path):
    import argparse
    from dispatch_ci.bugbench.journal import cut_off_runs
    from dispatch_ci.jobs import bug_benchmark
    monkeypatch.setattr(bug_benchmark, "OUT", tmp_path)
    path = tmp_path / "journal.jsonl"
    journal = Journal.start(path, SETTINGS)
    journal.record(record(1))
    assert cut_off_runs(path) == 1
    said = []
    bug_benchmark.open_journal(argparse.Namespace(resume=False), SETTINGS, said.append)
    assert len(said) == 1 and "1 judged runs" in said[0]
    finished = Journal.resume(path, SETTINGS)
    finished.close()
    assert cut_off_runs(path) == 0 and cut_off_runs(tmp_path / "missing.jsonl") == 0
