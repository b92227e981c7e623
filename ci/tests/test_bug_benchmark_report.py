"""The bug benchmark's report (bugbench/report.py): per bug, a seed counts its earliest finding
target; misses count as never in the median; errors are never found; the targets are judged
as the issue states them."""
import math

import pytest

from dispatch_ci.bugbench import report
from dispatch_ci.bugbench.verdict import ERROR, FOUND, NOT_FOUND


def run(bug, seed, result, seconds=0.0, target="registration_fuzzer", mutator="structure",
        executions=100, budget=300.0, how=""):
    return {"bug": bug, "kind": "deep", "target": target, "mutator": mutator, "seed": seed,
            "budget": budget, "result": result, "seconds": seconds, "executions": executions,
            "how": how, "log": ""}


def test_a_seed_takes_the_earliest_target_and_misses_count_as_never():
    records = [run("b", 1, FOUND, 50.0, executions=500), run("b", 1, FOUND, 20.0, "fallback_fuzzer", executions=200),
               run("b", 2, NOT_FOUND, 300.0), run("b", 3, FOUND, 100.0, executions=900)]
    _, _, table = report.summarize(records)
    summary = table[("b", "structure")]
    assert summary.times() == [20.0, 100.0, math.inf]
    assert summary.median() == 100.0 and summary.median_executions() == 900
    assert summary.found_within(60) == 1 and summary.found_within(300) == 2


def test_an_error_is_never_found_and_is_counted():
    records = [run("b", 1, ERROR, 5.0, how="missing binary"), run("b", 2, FOUND, 5.0)]
    _, _, table = report.summarize(records)
    summary = table[("b", "structure")]
    assert summary.found_within(300) == 1 and summary.errors() == 1
    assert "1 error(s)" in report.cell(summary)


def test_median_is_never_when_at_most_half_the_seeds_found_it():
    records = [run("b", s, FOUND if s <= 2 else NOT_FOUND, 10.0) for s in range(1, 6)]
    _, _, table = report.summarize(records)
    assert math.isinf(table[("b", "structure")].median())
    assert table[("b", "structure")].median_executions() is None


def test_the_target_needs_three_of_five_seeds_and_ninety_percent_of_bugs():
    three = [run("b", s, FOUND if s <= 3 else NOT_FOUND, 10.0) for s in range(1, 6)]
    two = [run("c", s, FOUND if s <= 2 else NOT_FOUND, 10.0) for s in range(1, 6)]
    bugs, variants, table = report.summarize(three + two)
    assert table[("b", "structure")].meets_target() and not table[("c", "structure")].meets_target()
    assert not report.overall(bugs, "structure", table).targets_met()   # 1 of 2 bugs
    bugs, _, table = report.summarize(three)
    assert report.overall(bugs, "structure", table).targets_met()
    slow = [run("b", s, FOUND if s <= 3 else NOT_FOUND, 40.0) for s in range(1, 6)]
    bugs, _, table = report.summarize(slow)
    assert not report.overall(bugs, "structure", table).targets_met()   # median 40 s > 30 s
    errored = three + [run("b", 5, ERROR, how="timeout")]
    bugs, _, table = report.summarize(errored)
    assert not report.overall(bugs, "structure", table).targets_met()   # an error measured nothing


def test_every_deep_bug_must_meet_the_target_even_when_ninety_percent_of_the_bugs_do():
    met = [run(f"m{i}", s, FOUND, 1.0) for i in range(9) for s in range(1, 6)]
    deep_in_two = [run("deep", s, FOUND if s <= 2 else NOT_FOUND, 1.0) for s in range(1, 6)]
    bugs, _, table = report.summarize(met + deep_in_two)
    assert report.overall(bugs, "structure", table).targets_met()   # 9 of 10 bugs, the deep one not named
    missing = report.overall(bugs, "structure", table, deep={"deep"})
    assert missing.deep_missing == 1 and not missing.targets_met()
    assert report.overall(bugs, "structure", table, deep={"m0"}).targets_met()   # a deep bug that meets it


def test_the_summary_line_judges_the_deep_bugs_by_their_kind():
    from dispatch_ci.bugbench.summary import per_mutator
    runs = ([dict(run(f"m{i}", s, FOUND, 1.0), kind="mutant") for i in range(9) for s in range(1, 6)]
            + [run("deep", s, FOUND if s <= 2 else NOT_FOUND, 1.0) for s in range(1, 6)])
    line, = per_mutator({"runs": runs, "seeds": 5, "full": True})
    assert "9/10 bugs" in line and "1 deep bug(s) in fewer" in line and line.endswith("NOT met")


def test_variants_are_side_by_side_and_sources_keep_two_builds_apart():
    records = [run("b", 1, FOUND, 10.0, mutator="bytes"), run("b", 1, FOUND, 5.0, mutator="structure")]
    _, variants, _ = report.summarize(records)
    assert variants == ["bytes", "structure"]
    two_builds = [dict(r, source="before") for r in records[:1]] + [dict(r, source="after") for r in records[:1]]
    _, variants, _ = report.summarize(two_builds)
    assert variants == ["before: bytes", "after: bytes"]
    assert "| b | deep | " in report.markdown(records, 300.0)


def test_runs_that_set_fake_stacks_themselves_are_columns_of_their_own():
    records = [run("b", 1, FOUND, 10.0), dict(run("b", 2, FOUND, 7.0), fake_stacks="default"),
               dict(run("b", 1, FOUND, 5.0), fake_stacks="off"), dict(run("b", 1, FOUND, 6.0), fake_stacks="on")]
    _, variants, table = report.summarize(records)
    assert variants == ["structure", "structure (no fake stacks)", "structure (fake stacks on)"]
    assert sorted(table[("b", "structure")].seeds) == [1, 2]


def test_found_over_time_is_the_mean_over_seeds():
    records = [run("b", 1, FOUND, 10.0), run("b", 2, NOT_FOUND, 300.0),
               run("c", 1, FOUND, 30.0), run("c", 2, FOUND, 20.0)]
    assert report.found_over_time(records, "structure") == [(0.0, 0.0), (10.0, 0.5), (20.0, 1.0),
                                                           (30.0, 1.5), (300.0, 1.5)]


def test_the_readme_section_is_replaced_not_duplicated():
    once = report.readme_section("# bench\n\ntext\n", "## Bug benchmark\nfirst")
    twice = report.readme_section(once, "## Bug benchmark\nsecond")
    assert twice.count(report.README_BEGIN) == 1 and "second" in twice and "first" not in twice
    assert twice.startswith("# bench\n\ntext\n")


def test_only_the_full_benchmark_meets_or_misses_the_targets():
    from dispatch_ci.bugbench.summary import target_verdict
    bugs, _, table = report.summarize([run("b", s, FOUND, 10.0) for s in range(1, 6)])
    met = report.overall(bugs, "structure", table)
    assert target_verdict(met, {"full": True}) == "met"
    assert target_verdict(met, {"full": False}).startswith("not judged")
    bugs, _, table = report.summarize([run("b", s, NOT_FOUND, 300.0) for s in range(1, 6)])
    assert target_verdict(report.overall(bugs, "structure", table), {"full": True}) == "NOT met"


def test_a_run_with_fewer_bugs_targets_seeds_or_minutes_is_a_slice():
    from argparse import Namespace
    from dispatch_ci.jobs.bug_benchmark import is_full
    full = dict(seeds=5, minutes=5.0, bugs="", targets="")
    assert is_full(Namespace(**full), unjudged_mutants=0)
    assert not is_full(Namespace(**full), unjudged_mutants=3)   # the set is not complete yet
    for change in (dict(seeds=2), dict(minutes=1.5), dict(bugs="deep"), dict(targets="keyset_fuzzer")):
        assert not is_full(Namespace(**dict(full, **change)), unjudged_mutants=0), change


def test_an_even_count_takes_the_mean_of_the_middle_two_and_a_miss_there_is_never():
    assert report.median([10.0, 20.0]) == 15.0
    assert math.isinf(report.median([10.0, math.inf]))
    assert report.median([3.0, 1.0, 2.0]) == 2.0 and math.isinf(report.median([]))


def test_by_target_keeps_each_target_apart_while_per_bug_takes_the_earliest():
    records = [run("b", 1, FOUND, 50.0), run("b", 1, NOT_FOUND, 300.0, target="fallback_fuzzer")]
    rows, _, table = report.summarize(records, by_target=True)
    assert rows == ["b · registration_fuzzer", "b · fallback_fuzzer"]
    assert table[("b · fallback_fuzzer", "structure")].found_within(300) == 0
    rows, _, table = report.summarize(records)
    assert rows == ["b"] and table[("b", "structure")].found_within(300) == 1


def test_the_shards_of_a_run_share_out_every_bug_once():
    import argparse
    from dispatch_ci.jobs.bug_benchmark import my_share, shard_of_run
    chosen = [f"bug{i}" for i in range(11)]
    shares = [my_share(chosen, (k, 4)) for k in range(1, 5)]
    assert sorted(b for s in shares for b in s) == sorted(chosen)
    assert all(abs(len(s) - len(chosen) / 4) < 1 for s in shares)
    assert my_share(chosen, (1, 1)) == chosen
    assert shard_of_run("2/6") == (2, 6)
    for bad in ("0/3", "4/3", "a/b", "3", "1/0"):
        with pytest.raises(argparse.ArgumentTypeError):
            shard_of_run(bad)


def test_the_nightly_line_names_the_tree_the_scope_and_each_mutators_verdict():
    from dispatch_ci.bugbench.summary import one_line
    document = {"date": "2026-12-06", "commit": "abc123", "full": True, "seeds": 5, "budget_seconds": 300,
                "bugs": [{"name": "b"}], "runs": [run("b", s, FOUND, 10.0) for s in range(1, 6)]}
    line = one_line(document)
    assert "tree abc123: full benchmark, 1 bugs" in line
    assert "structure: 1/1 bugs found" in line and line.endswith("met")
    sliced = one_line(dict(document, full=False, shard={"index": 2, "count": 3, "full_scope": True}))
    assert "SLICE, shard 2 of 3" in sliced and sliced.endswith("not judged (a slice measures fewer bugs, seeds or minutes)")


def test_a_median_that_never_came_has_no_unit():
    never = report.Overall(bugs=2, found_minute=0.5, found_budget=0.5, median=math.inf, meeting=1,
                           median_of_medians=math.inf, errors=0)
    assert report._overall_cell(never, "bugs").endswith("median of medians never")
    soon = report.Overall(bugs=2, found_minute=1.0, found_budget=1.0, median=0.2, meeting=2,
                          median_of_medians=0.3, errors=0)
    assert report._overall_cell(soon, "bugs").endswith("median of medians 0.3 s")


def test_per_target_puts_the_mutators_side_by_side_for_targets_with_the_hook_and_apart_for_deep_bugs():
    from dispatch_ci.bugbench.summary import per_target

    def kind_run(bug, kind, mutator, seed, executions, target="registration_fuzzer", result=FOUND):
        return dict(run(bug, seed, result, 1.0, target=target, mutator=mutator, executions=executions), kind=kind)
    runs = []
    for seed in (1, 2, 3):
        runs += [kind_run("deep_a", "deep", "bytes", seed, 9000), kind_run("deep_a", "deep", "structure", seed, 4000),
                 kind_run("c", "canary", "bytes", seed, 10), kind_run("c", "canary", "structure", seed, 10),
                 kind_run("m", "mutant", "bytes", seed, 50), kind_run("m", "mutant", "structure", seed, 0, result=NOT_FOUND),
                 kind_run("c", "canary", "bytes", seed, 5, target="keyset_fuzzer"),
                 kind_run("c", "canary", "structure", seed, 5, target="keyset_fuzzer")]
    lines = per_target({"runs": runs})
    assert lines == [
        "registration_fuzzer: bytes 3/3 in >= 3/5 of the seeds, median executions 50; structure 2/3 in >= 3/5 of "
        "the seeds, median executions 4,000; fewer executions: bytes on 1, structure on 1, the same on 1",
        "registration_fuzzer, deep bugs: bytes 1/1 in >= 3/5 of the seeds, median executions 9,000; structure 1/1 "
        "in >= 3/5 of the seeds, median executions 4,000; fewer executions: bytes on 0, structure on 1, the same on 0"]


def test_rates_are_per_target_and_column_over_long_runs_only_and_count_a_shared_run_once():
    from dispatch_ci.bugbench.summary import rates
    runs = [run("b", 1, NOT_FOUND, 300.0, executions=30000, mutator="bytes"),
            run("b", 2, FOUND, 100.0, executions=5000, mutator="bytes"),
            run("b", 3, FOUND, 2.0, executions=10, mutator="bytes"),                   # too short to count
            run("b", 4, ERROR, 300.0, executions=1, mutator="bytes"),                  # measured nothing
            dict(run("b", 1, NOT_FOUND, 300.0, executions=90000, mutator="bytes"), fake_stacks="off"),
            run("b", 1, NOT_FOUND, 300.0, executions=30000, target="keyset_fuzzer", mutator="bytes"),
            dict(run("b", 1, NOT_FOUND, 300.0, executions=30000, target="keyset_fuzzer"), same_run_as="bytes")]
    assert rates({"runs": runs}) == [
        "registration_fuzzer: bytes 75 per second (2 runs); bytes (no fake stacks) 300 per second (1 run)",
        "keyset_fuzzer: bytes 100 per second (1 run)"]
