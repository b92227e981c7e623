"""The bug benchmark's verdict in a few lines: per mutator, how many bugs fuzzing found and whether
the issue's targets are met. bench/README.md's section and the nightly report (nightly/
bug_benchmark_step.py) both print these lines, so they never disagree."""
import math
from typing import List

from . import report
from .runner import MUTATOR_TARGETS


def shards_of(document: dict) -> str:
    """', shard K of N' for one shard; ', shards a, b of N merged' for merged shards; '' otherwise."""
    if document.get("shard"):
        return f", shard {document['shard']['index']} of {document['shard']['count']}"
    if document.get("shards"):
        return f", shards {', '.join(map(str, document['shards']))} of {document['shard_count']} merged"
    return ""


def target_verdict(o: report.Overall, document: dict) -> str:
    """Only the full benchmark can meet or miss the issue's targets; a slice says so."""
    if not document["full"]:
        return "not judged (a slice measures fewer bugs, seeds or minutes)"
    return "met" if o.targets_met() else "NOT met"


def per_mutator(document: dict) -> List[str]:
    """One line per mutator column: bugs found in >= 3/5 seeds, the median of the bugs' medians,
    and the targets' verdict."""
    bugs_run, variants, table = report.summarize(document["runs"])
    deep = {r["bug"] for r in document["runs"] if r["kind"] == "deep"}
    lines = []
    for variant in variants:
        o = report.overall(bugs_run, variant, table, deep)
        median = "never" if math.isinf(o.median_of_medians) else f"{o.median_of_medians:.1f} s"
        lines.append(f"{variant}: {o.meeting}/{o.bugs} bugs found within the budget in >= 3/5 of the "
                     f"seeds (seeds 1..{document['seeds']} run), median of the bugs' medians {median}"
                     + (f", {o.errors} error run(s)" if o.errors else "")
                     + (f", {o.deep_missing} deep bug(s) in fewer than 3/5 seeds" if o.deep_missing else "")
                     + "; the issue's targets (>= 90% of the bugs and every deep bug in >= 3/5 seeds within "
                     f"5 min, median of medians <= 30 s): {target_verdict(o, document)}")
    return lines


def per_target(document: dict) -> List[str]:
    """Lines per target with the structure-aware mutator (for the others every column is
    libFuzzer's own mutation), over all its bugs and over the deep ones alone (most bugs fall
    within a few dozen executions either way): per column, the bug x target pairs found in >= 3/5
    of the seeds and the median over the pairs of the median executions to detection (stable
    under load, misses as never); for each two columns, on how many pairs each needed fewer
    executions. The lines a target's options file cites when it keeps one mutator."""
    lines = []
    for target in dict.fromkeys(r["target"] for r in document["runs"]):
        if target not in MUTATOR_TARGETS:
            continue
        mine = [r for r in document["runs"] if r["target"] == target]
        deep = [r for r in mine if r["kind"] == "deep"]
        for label, records in ((target, mine), (f"{target}, deep bugs", deep)):
            line = _columns_side_by_side(records)
            if line:
                lines.append(f"{label}: {line}")
    return lines


def _columns_side_by_side(records: List[dict]) -> str:
    pairs, variants, table = report.summarize(records, by_target=True)
    if len(variants) < 2:
        return ""
    columns = []
    for variant in variants:
        o = report.overall(pairs, variant, table)
        executions = report.median(_executions(table.get((p, variant))) for p in pairs)
        columns.append(f"{variant} {o.meeting}/{o.bugs} in >= 3/5 of the seeds, median executions "
                       + ("never" if math.isinf(executions) else f"{executions:,.0f}"))
    return "; ".join(columns + [_head_to_head(pairs, a, b, table)
                                for i, a in enumerate(variants) for b in variants[i + 1:]])


def _executions(summary) -> float:
    found = summary.median_executions() if summary is not None else None
    return math.inf if found is None else float(found)


def _head_to_head(pairs, a: str, b: str, table) -> str:
    """On how many pairs a needed fewer median executions than b, b fewer than a, and the same
    (both never counts as the same)."""
    fewer_a = fewer_b = same = 0
    for p in pairs:
        x, y = _executions(table.get((p, a))), _executions(table.get((p, b)))
        fewer_a += x < y
        fewer_b += y < x
        same += x == y
    return f"fewer executions: {a} on {fewer_a}, {b} on {fewer_b}, the same on {same}"


RATE_MIN_SECONDS = 10.0   # shorter runs are mostly start-up: their rate says little


def rates(document: dict) -> List[str]:
    """Per target, each column's median executions per second over its runs of RATE_MIN_SECONDS
    or more (found late or not at all): what a column that changes the fuzzer's speed (the
    mutator, fake stacks) does to it, beside what it does to the bugs. A copy of another
    column's run counts once."""
    per_target: dict = {}
    for r in document["runs"]:
        if r.get("same_run_as") or r["result"] == "error" or not r.get("executions"):
            continue
        if r["seconds"] >= RATE_MIN_SECONDS:
            per_target.setdefault(r["target"], {}).setdefault(report.variant_of(r), []).append(
                r["executions"] / r["seconds"])
    return [f"{target}: " + "; ".join(f"{variant} {report.median(values):,.0f} per second ({_runs(len(values))})"
                                      for variant, values in columns.items())
            for target, columns in per_target.items()]


def _runs(count: int) -> str:
    return f"{count} run" + ("" if count == 1 else "s")


def one_line(document: dict) -> str:
    """The nightly report's line: when, which tree, full or slice, and every mutator's verdict."""
    scope = "full benchmark" if document["full"] else "SLICE"
    return (f"{document['date']}, tree {document.get('commit', 'not recorded')}: {scope}{shards_of(document)}, "
            f"{len(document['bugs'])} bugs, {document['seeds']} seeds x {document['budget_seconds']:.0f} s. "
            + " | ".join(per_mutator(document)))
