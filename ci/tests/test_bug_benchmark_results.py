"""Stored bug-benchmark results (bugbench/results.py): parts of one measurement merge; results
that measure different things are refused, never merged or put side by side."""
import pytest

from dispatch_ci.bugbench import results


def part(target, version=1, budget=90, seeds=2, full=False, load_before=(1.0,), load_after=(2.0,)):
    return {"version": version, "budget_seconds": budget, "seeds": seeds, "full": full,
            "date": "2026-12-05", "mutators": ["bytes", "structure"], "jobs": 2, "cores": 2,
            "load_before": list(load_before), "load_after": list(load_after), "minutes_taken": 10.0,
            "bugs": [{"name": "deep_x", "kind": "deep"}],
            "runs": [{"bug": "deep_x", "target": target, "result": "found"}]}


def test_parts_merge_into_one_measurement():
    merged = results.merge([part("registration_fuzzer", load_before=(5.0,)),
                            part("fallback_fuzzer", load_after=(7.0,))])
    assert [r["target"] for r in merged["runs"]] == ["registration_fuzzer", "fallback_fuzzer"]
    assert [b["name"] for b in merged["bugs"]] == ["deep_x"]
    assert merged["load_before"] == [5.0] and merged["load_after"] == [7.0]
    assert merged["minutes_taken"] == 20.0 and merged["parts"] == 2 and merged["full"] is False


def test_results_of_different_budgets_seeds_or_versions_are_refused():
    for other in (part("f", budget=300), part("f", seeds=5), part("f", version=2)):
        with pytest.raises(results.ResultsError):
            results.merge([part("r"), other])


def test_an_unreadable_file_is_an_error(tmp_path):
    bad = tmp_path / "results.json"
    bad.write_text("{not json")
    with pytest.raises(results.ResultsError):
        results.read([bad])
    with pytest.raises(results.ResultsError):
        results.read([tmp_path / "missing.json"])
