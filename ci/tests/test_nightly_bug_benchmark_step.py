"""The nightly's bug benchmark step (nightly/bug_benchmark_step.py): the weekly result's summary
line goes into the report; a named file that is missing or unreadable breaks the night, never a
quiet skip; an old result says it is stale."""
import datetime
import json

from dispatch_ci.nightly import bug_benchmark_step
from dispatch_ci.nightly.run_folder import step_breaks_night

TODAY = datetime.date(2026, 12, 6)


def results_file(tmp_path, date="2026-12-05", full=True):
    runs = [{"bug": "b", "kind": "deep", "target": "registration_fuzzer", "mutator": "bytes", "seed": s,
             "budget": 300, "result": "found", "seconds": 10.0, "executions": 100, "how": "x", "log": "l"}
            for s in range(1, 6)]
    document = {"version": 1, "date": date, "commit": "abc123", "full": full, "seeds": 5,
                "budget_seconds": 300, "mutators": ["bytes"], "bugs": [{"name": "b"}], "runs": runs}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document))
    return path


def test_the_weekly_result_gives_the_summary_line(tmp_path):
    result, detail = bug_benchmark_step.judge(results_file(tmp_path), TODAY)
    assert result == "ok" and not step_breaks_night(result)
    assert detail.startswith("2026-12-05, tree abc123: full benchmark")
    assert "bytes: 1/1 bugs found" in detail and detail.endswith("met")


def test_a_missing_or_broken_file_breaks_the_night(tmp_path):
    result, detail = bug_benchmark_step.judge(tmp_path / "missing.json", TODAY)
    assert step_breaks_night(result) and "missing.json" in detail
    broken = tmp_path / "results.json"
    broken.write_text(json.dumps({"date": "2026-12-05"}))   # no runs, no bugs
    assert step_breaks_night(bug_benchmark_step.judge(broken, TODAY)[0])


def test_a_result_older_than_a_week_and_a_day_is_stale(tmp_path):
    result, detail = bug_benchmark_step.judge(results_file(tmp_path, date="2026-11-20"), TODAY)
    assert result == "stale" and not step_breaks_night(result) and detail.startswith("16 days old")
    assert bug_benchmark_step.judge(results_file(tmp_path, date="2026-11-28"), TODAY)[0] == "ok"


def test_merged_shards_count_from_their_newest_day(tmp_path):
    path = results_file(tmp_path, date="2026-11-20 and 2026-12-01")
    assert bug_benchmark_step.judge(path, TODAY)[0] == "ok"
