"""The bug benchmark's verdict in a few lines: per mutator, how many bugs fuzzing found and whether
the issue's targets are met. bench/README.md's section and the nightly report (nightly/
bug_benchmark_step.py) both print these lines, so they never disagree."""
import math
from typing import List

from . import report


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
    lines = []
    for variant in variants:
        o = report.overall(bugs_run, variant, table)
        median = "never" if math.isinf(o.median_of_medians) else f"{o.median_of_medians:.1f} s"
        lines.append(f"{variant}: {o.meeting}/{o.bugs} bugs found within the budget in >= 3/5 of the "
                     f"seeds (seeds 1..{document['seeds']} run), median of the bugs' medians {median}"
                     + (f", {o.errors} error run(s)" if o.errors else "")
                     + f"; the issue's targets (>= 90%, <= 30 s, 5 min budget): {target_verdict(o, document)}")
    return lines


def one_line(document: dict) -> str:
    """The nightly report's line: when, which tree, full or slice, and every mutator's verdict."""
    scope = "full benchmark" if document["full"] else "SLICE"
    return (f"{document['date']}, tree {document.get('commit', 'not recorded')}: {scope}{shards_of(document)}, "
            f"{len(document['bugs'])} bugs, {document['seeds']} seeds x {document['budget_seconds']:.0f} s. "
            + " | ".join(per_mutator(document)))
