"""A nightly step: the bug benchmark's summary line in the night's report
(`--bug-benchmark-results FILE`; without it the step is skipped).

The full benchmark (bench/bug_benchmark.sh: every bug x target x mutator, 5 seeds of 5 minutes)
costs CPU-hours, more than a night's job may take, so it runs weekly in shards of its own
(.github/workflows/bug-benchmark.yml) and its merged results.json is kept in the Actions cache;
the nightly restores it and names it here. The line (bugbench/summary.py) says when and on which
tree it ran, full or slice, and each mutator's verdict on the issue's targets. A file named but
missing or unreadable breaks the night (a report that silently drops the benchmark would look
like one that has nothing to say); a result older than STALE_DAYS is shown as stale.
"""
import datetime
from pathlib import Path

from .. import paths
from ..bugbench import results, summary
from .context import Night

STEP = "bug benchmark"
STALE_DAYS = 8   # weekly, plus a day of slack


def add_arguments(p) -> None:
    p.add_argument("--bug-benchmark-results", metavar="FILE", default=None,
                   help="results.json of the newest bug benchmark (bench/bug_benchmark.sh): its "
                        "summary line goes into the report (default: skipped)")


def age_in_days(document: dict, today: datetime.date) -> int:
    """Days since the newest date the document names (merged shards may name several)."""
    dates = [datetime.date.fromisoformat(d) for d in str(document["date"]).split(" and ")]
    return (today - max(dates)).days


def judge(path: Path, today: datetime.date):
    """(result, detail) of the step for the named results file."""
    try:
        [(_, document)] = results.read([path])
        line = summary.one_line(document)
        age = age_in_days(document, today)
    except (results.ResultsError, KeyError, TypeError, ValueError) as e:
        return "FAILED", f"{paths.rel(path)}: {type(e).__name__}: {e}"
    if age > STALE_DAYS:
        return "stale", f"{age} days old (the weekly run did not replace it): {line}"
    return "ok", line


def run(night: Night, args) -> None:
    if not args.bug_benchmark_results:
        night.folder.record_step(STEP, "skipped", 0, "no --bug-benchmark-results (no weekly bug benchmark restored)")
        return
    result, detail = judge(Path(paths.START_DIR) / args.bug_benchmark_results, datetime.date.today())
    night.folder.record_step(STEP, result, 0, detail)
    night.say(f"{STEP}: {result}: {detail}")
