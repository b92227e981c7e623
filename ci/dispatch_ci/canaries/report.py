"""The canary job's tables: results.tsv (one row per run), verdicts.tsv (one row per canary x
flavour), compare.tsv (plain-ASan comparison), results.md (the three as Markdown), and the
aligned text the console shows."""
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from .verdict import CAUGHT, LUCK, Row, Verdict

ROW_HEADER = ("canary", "flavour", "setup", "layer", "target", "result", "detail", "seconds", "how")
VERDICT_HEADER = ("canary", "flavour", "verdict", "fastest(s)", "by")
COMPARE_HEADER = ("canary", "flavour", "setup", "caught", "by memory-error report", "reports")
MEMORY_REPORTS = ("ASan report", "UBSan report", "hardened assertion")


def row_cells(row: Row) -> Tuple[str, ...]:
    o = row.outcome
    return (row.canary, row.flavour, row.setup, row.layer, row.target, o.result, o.detail,
            f"{o.seconds:.1f}", o.how)


def verdict_cells(v: Verdict) -> Tuple[str, ...]:
    return (v.canary, v.flavour, v.verdict, v.fastest, v.by)


def compare_cells(rows: List[Row]) -> List[Tuple[str, ...]]:
    """Per canary x flavour x setup of the canaries that have a plain-asan setup: how many rows
    caught it, and how many of those by a memory-error report at the faulty access itself."""
    compared = {r.canary for r in rows if r.setup == "plain-asan"}
    groups: Dict[Tuple[str, str, str], List[Row]] = {}
    for r in rows:
        if r.canary in compared:
            groups.setdefault((r.canary, r.flavour, r.setup), []).append(r)
    cells = []
    for key, group in groups.items():
        caught = [r for r in group if r.outcome.result in (CAUGHT, LUCK)]
        memory = [r for r in caught if r.outcome.how.startswith(MEMORY_REPORTS)]
        kinds = sorted({r.outcome.how.split(":", 1)[0] for r in memory})
        cells.append((*key, f"{len(caught)}/{len(group)}", str(len(memory)),
                      ", ".join(kinds) or "none"))
    return cells


def aligned(header: Sequence[str], rows: List[Sequence[str]]) -> str:
    table = [list(header)] + [list(r) for r in rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in table)


def markdown(header: Sequence[str], rows: List[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def write(out: Path, rows: List[Row], verdicts: List[Verdict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    row_table = [row_cells(r) for r in rows]
    verdict_table = [verdict_cells(v) for v in verdicts]
    compare_table = compare_cells(rows)
    for name, header, table in (("results.tsv", ROW_HEADER, row_table),
                                ("verdicts.tsv", VERDICT_HEADER, verdict_table),
                                ("compare.tsv", COMPARE_HEADER, compare_table)):
        text = "\n".join("\t".join(r) for r in [header, *table]) + "\n"
        (out / name).write_text(text, encoding="utf-8")
    md_rows = ("canary", "flavour", "setup", "layer", "target", "result", "detail",
               "time to detection (s)", "how it was caught")
    md_verdicts = ("canary", "flavour", "verdict (hardened setup)", "fastest catch (s)", "by")
    parts = [markdown(md_rows, row_table), markdown(md_verdicts, verdict_table)]
    if compare_table:
        parts.append(markdown(("canary", "flavour", "setup", "rows that caught it",
                               "caught by a memory-error report", "reports"), compare_table))
    (out / "results.md").write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def console(rows: List[Row], verdicts: List[Verdict]) -> str:
    parts = [aligned(ROW_HEADER, [row_cells(r) for r in rows]), "",
             aligned(VERDICT_HEADER, [verdict_cells(v) for v in verdicts])]
    compare_table = compare_cells(rows)
    if compare_table:
        parts += ["", "plain-ASan comparison (not part of the verdict):",
                  aligned(COMPARE_HEADER, compare_table)]
    return "\n".join(parts)
