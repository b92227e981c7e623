"""The bug benchmark's report, FuzzBench style, from the run records alone: per bug and overall,
the share of seeds that found it within 1 minute and within the budget, and the median time to
detection (a seed that did not find it counts as never, so a median of "never" means at most
half the seeds found it); one column group per variant (a mutator of this run, or a result
file of another build). Written as a Markdown table, a self-contained HTML page with the plot of
bugs found over time (the nightly report's style), and the JSON of every run.

A bug is found in a seed when any target that can see it found it in that seed: the earliest
such run gives the seed's time and executions. An error run is never found; the table counts
them, and any error makes the run's overall line say so.
"""
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from .. import paths
from ..html_template import Raw, join, render
from ..nightly import svg
from .verdict import ERROR, FOUND

ONE_MINUTE = 60.0
TARGET_SHARE = 3 / 5           # the "in >= 3 of 5 seeds"
TARGET_FOUND = 0.90            # >= 90% of the bugs
TARGET_MEDIAN_SECONDS = 30.0
NIGHTLY_TEMPLATE = paths.CI / "dispatch_ci" / "nightly" / "templates" / "report.html"
README_BEGIN = "<!-- bug-benchmark: written by bench/bug_benchmark.sh --write-readme; begin -->"
README_END = "<!-- bug-benchmark: end -->"


def median(values: Iterable[float]) -> float:
    """The median (the mean of the two middle values for an even count); a miss (inf) in the
    middle makes it never."""
    ordered = sorted(values)
    if not ordered:
        return math.inf
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@dataclass
class SeedResult:
    seconds: Optional[float] = None     # None: not found in this seed
    executions: Optional[int] = None
    errors: List[str] = field(default_factory=list)


@dataclass
class BugSummary:
    seeds: Dict[int, SeedResult]
    budget: float

    def times(self) -> List[float]:
        return sorted(r.seconds if r.seconds is not None else math.inf for r in self.seeds.values())

    def found_within(self, seconds: float) -> int:
        return sum(1 for t in self.times() if t <= seconds)

    def median(self) -> float:
        return median(self.times())

    def median_executions(self) -> Optional[int]:
        """Executions to detection, median over the seeds (misses as never): stable under load."""
        middle = median(math.inf if r.seconds is None or r.executions is None else r.executions
                        for r in self.seeds.values())
        return None if math.isinf(middle) else int(middle)

    def errors(self) -> int:
        return sum(len(r.errors) for r in self.seeds.values())

    def meets_target(self) -> bool:
        return self.found_within(self.budget) >= math.ceil(TARGET_SHARE * len(self.seeds) - 1e-9)


FAKE_STACKS_LABEL = {"default": "", "on": " (fake stacks on)", "off": " (no fake stacks)"}


def variant_of(record: dict) -> str:
    """The column a run counts in: its mutator, ASan's fake stacks when the run set them itself,
    and the results file it came from when several are compared."""
    arm = record["mutator"] + FAKE_STACKS_LABEL[record.get("fake_stacks", "default")]
    return f"{record['source']}: {arm}" if record.get("source") else arm


def row_of(record: dict, by_target: bool) -> str:
    return f"{record['bug']} · {record['target']}" if by_target else record["bug"]


def summarize(records: Iterable[dict], by_target: bool = False
              ) -> Tuple[List[str], List[str], Dict[Tuple[str, str], BugSummary]]:
    """(rows, variants, summary per (row, variant)) in first-seen order; a row is a bug, or a
    bug x target with `by_target`."""
    bugs: List[str] = []
    variants: List[str] = []
    table: Dict[Tuple[str, str], BugSummary] = {}
    for r in records:
        variant = variant_of(r)
        row = row_of(r, by_target)
        if row not in bugs:
            bugs.append(row)
        if variant not in variants:
            variants.append(variant)
        summary = table.setdefault((row, variant), BugSummary({}, r["budget"]))
        seed = summary.seeds.setdefault(r["seed"], SeedResult())
        if r["result"] == ERROR:
            seed.errors.append(f"{r['target']} seed {r['seed']}: {r['how']}")
        elif r["result"] == FOUND and (seed.seconds is None or r["seconds"] < seed.seconds):
            seed.seconds, seed.executions = r["seconds"], r["executions"]
    return bugs, variants, table


def _seconds(value: float) -> str:
    return "never" if math.isinf(value) else f"{value:.1f}"


def _with_unit(value: float) -> str:
    """"0.3 s", or "never" (no unit on a time that never came)."""
    return _seconds(value) + ("" if math.isinf(value) else " s")


def _minute(budget: float) -> float:
    return min(ONE_MINUTE, budget)


def cell(summary: Optional[BugSummary]) -> str:
    if summary is None:
        return "not run"
    n = len(summary.seeds)
    execs = summary.median_executions()
    text = (f"{summary.found_within(_minute(summary.budget))}/{n} · {summary.found_within(summary.budget)}/{n} · "
            f"{_seconds(summary.median())}" + (f" ({execs:,} ex)" if execs is not None else ""))
    return text + (f" · {summary.errors()} error(s)" if summary.errors() else "")


@dataclass
class Overall:
    bugs: int
    found_minute: float        # share of (bug, seed) pairs found within a minute
    found_budget: float
    median: float              # median over (bug, seed) pairs, misses as never
    meeting: int               # bugs found within the budget in >= 3 of 5 seeds
    median_of_medians: float
    errors: int
    deep_missing: int = 0      # deep bugs not found within the budget in >= 3 of 5 seeds

    def targets_met(self) -> bool:
        return (self.bugs > 0 and self.errors == 0 and self.meeting >= TARGET_FOUND * self.bugs
                and self.median_of_medians <= TARGET_MEDIAN_SECONDS and self.deep_missing == 0)


def overall(bugs: List[str], variant: str, table: Dict[Tuple[str, str], BugSummary],
            deep: Iterable[str] = ()) -> Overall:
    """The column's totals; `deep` names the rows that are deep bugs (each must meet the target)."""
    mine = [table[(b, variant)] for b in bugs if (b, variant) in table]
    deep_rows = set(deep)
    pairs = sum(len(s.seeds) for s in mine) or 1
    return Overall(
        bugs=len(mine),
        found_minute=sum(s.found_within(_minute(s.budget)) for s in mine) / pairs,
        found_budget=sum(s.found_within(s.budget) for s in mine) / pairs,
        median=median(t for s in mine for t in s.times()),
        meeting=sum(1 for s in mine if s.meets_target()),
        median_of_medians=median(s.median() for s in mine),
        errors=sum(s.errors() for s in mine),
        deep_missing=sum(1 for b in bugs if b in deep_rows and (b, variant) in table
                         and not table[(b, variant)].meets_target()))


def markdown(records: List[dict], budget: float, by_target: bool = False) -> str:
    """The table per bug (a seed counts its earliest target), or per bug x target."""
    bugs, variants, table = summarize(records, by_target)
    kinds = {row_of(r, by_target): r["kind"] for r in records}
    minute = "1 min" if budget >= ONE_MINUTE else f"{budget:.0f} s"
    legend = [f"Each cell: seeds that found it within {minute} · within the budget ({budget:.0f} s) · "
              "median seconds to detection (never: at most half the seeds found it; median "
              "executions to detection in brackets). Overall: the same over every bug x seed; "
              "then the bugs found within the budget in >= 3/5 of the seeds, and the median of "
              "the bugs' medians.", ""]
    header = "| bug" + (" · target" if by_target else "") + " | kind | " + " | ".join(variants) + " |"
    lines = ([] if by_target else legend) + [header, "|---|---|" + "---|" * len(variants)]
    for bug in bugs:
        lines.append(f"| {bug} | {kinds[bug]} | " + " | ".join(cell(table.get((bug, v))) for v in variants) + " |")
    noun = "bug x target pairs" if by_target else "bugs"
    lines.append("| **overall** | | " + " | ".join(_overall_cell(overall(bugs, v, table), noun) for v in variants) + " |")
    errors = [e for s in table.values() for r in s.seeds.values() for e in r.errors]
    if errors:
        lines += ["", f"{len(errors)} error run(s) (never counted as found):"] + [f"- {e}" for e in errors[:20]]
    return "\n".join(lines)


def _overall_cell(o: Overall, noun: str) -> str:
    return (f"{o.found_minute:.0%} · {o.found_budget:.0%} · {_seconds(o.median)}; "
            f"{o.meeting}/{o.bugs} {noun} in >= 3/5 of the seeds, median of medians {_with_unit(o.median_of_medians)}"
            + (f", {o.errors} error(s)" if o.errors else ""))


def found_over_time(records: List[dict], variant: str) -> List[Tuple[float, float]]:
    """(t, mean number of bugs found by t over the seeds) for one variant, as steps."""
    bugs, _, table = summarize(r for r in records if variant_of(r) == variant)
    mine = [table[(b, variant)] for b in bugs]
    seeds = max((len(s.seeds) for s in mine), default=0)
    if not seeds:
        return []
    budget = max(s.budget for s in mine)
    events = sorted(t for s in mine for t in s.times() if not math.isinf(t))
    points = [(0.0, 0.0)] + [(t, (i + 1) / seeds) for i, t in enumerate(events)]
    return points + [(budget, len(events) / seeds)]


def _nightly_style() -> Raw:
    """The nightly report's stylesheet, so both pages look the same."""
    found = re.search(r"<style>.*?</style>", NIGHTLY_TEMPLATE.read_text(encoding="utf-8"), re.S)
    return Raw(found.group(0) if found else "")


PAGE = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>bug benchmark</title>'
        '$style</head><body><h1>Bug benchmark</h1><p>$meta</p>$plot<p>$legend</p><pre>$table</pre>'
        '</body></html>\n')
LEGEND = '<span style="color:$colour">&#9632; $label</span> '


def html(records: List[dict], meta: str, budget: float) -> str:
    _, variants, _ = summarize(records)
    series = [(v, svg.COLOURS[i % len(svg.COLOURS)], found_over_time(records, v)) for i, v in enumerate(variants)]
    plot = svg.plot(series, "bugs found (mean over seeds) vs seconds", width=640, height=260)
    legend = join(render(LEGEND, colour=c, label=label) for label, c, _ in series)
    return render(PAGE, style=_nightly_style(), meta=meta, plot=plot, legend=legend,
                  table=markdown(records, budget))


def write(out: Path, document: dict) -> Dict[str, Path]:
    """results.json (every run), results.md and report.html in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    records, budget = document["runs"], document["budget_seconds"]
    files = {"json": out / "results.json", "md": out / "results.md", "html": out / "report.html"}
    files["json"].write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    files["md"].write_text(markdown(records, budget) + "\n\nPer bug x target:\n\n"
                           + markdown(records, budget, by_target=True) + "\n", encoding="utf-8")
    files["html"].write_text(html(records, document.get("meta", ""), budget), encoding="utf-8")
    return files


def readme_section(text: str, section: str, begin: str = README_BEGIN, end_mark: str = README_END) -> str:
    """`text` (bench/README.md) with the section between `begin` and `end_mark` replaced, or
    appended once."""
    block = f"{begin}\n{section.strip()}\n{end_mark}"
    start, end = text.find(begin), text.find(end_mark)
    if start >= 0 and end > start:
        return text[:start] + block + text[end + len(end_mark):]
    return text.rstrip("\n") + "\n\n" + block + "\n"
