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


def shard(index, count=3, source="abc", full_scope=True, commit="abc", **kwargs):
    return dict(part(f"t{index}", **kwargs), commit=commit, source=source,
                shard={"index": index, "count": count, "full_scope": full_scope})


def test_every_shard_of_a_full_run_merges_into_the_full_benchmark():
    merged = results.merge([shard(2), shard(1), shard(3)])
    assert merged["full"] is True and merged["shards"] == [1, 2, 3] and merged["shard_count"] == 3
    assert "shard" not in merged and merged["parts"] == 3


def test_some_of_the_shards_or_a_shard_of_a_slice_are_a_slice():
    assert results.merge([shard(1), shard(3)])["full"] is False
    assert results.merge([shard(1), shard(2), shard(3, full_scope=False)])["full"] is False
    alone = results.merge([shard(2)])
    assert alone["full"] is False and alone["shards"] == [2]


def test_shards_that_are_not_of_one_run_are_refused():
    for parts in ([shard(1), shard(1), shard(2)],                          # a shard twice
                  [shard(1), shard(2, source="def"), shard(3)],            # other files measured
                  [shard(1), shard(2, count=4), shard(3)],                 # cut differently
                  [shard(1), dict(part("f"), full=True)]):                 # a shard and a whole run
        with pytest.raises(results.ResultsError):
            results.merge(parts)


def test_shards_of_one_source_from_several_sessions_merge():
    """Commits that only add results leave the measured files as they were."""
    merged = results.merge([shard(1, commit="c1"), shard(2, commit="c2"), shard(3, commit="c3")])
    assert merged["full"] is True


def test_shards_of_files_with_uncommitted_changes_or_no_commit_are_never_the_full_run():
    """Two sessions' uncommitted changes both read '+changes': nothing says they were the same."""
    for source in ("abc+changes", "unknown", ""):
        parts = [shard(k, source=source) for k in (1, 2, 3)]
        assert results.merge(parts)["full"] is False


def test_merged_parts_keep_how_fake_stacks_were_set_and_shards_must_agree_on_it():
    older = part("f")   # written before the switch: its runs fuzzed as each target does
    merged = results.merge([older, dict(part("r"), fake_stacks=["off"])])
    assert merged["fake_stacks"] == ["default", "off"]
    assert "fake_stacks" not in results.merge([part("r"), part("f")])
    with pytest.raises(results.ResultsError):
        results.merge([shard(1), dict(shard(2), fake_stacks=["off"]), shard(3)])
