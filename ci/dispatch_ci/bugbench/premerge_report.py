"""The pre-merge depth benchmark's report, from the seed records alone: per bug x layer, the seeds
that caught it (of those run) and the errors; per layer, the bugs caught in >= 4 of 5 seeds; the
issue's target (every deep bug caught by the property layer alone in >= 4 of 5 seeds). One
column group per document, so a before/after pair reads side by side."""
import json
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .premerge_verdict import CAUGHT, ERROR, LayerSummary, summarize

README_BEGIN = "<!-- bug-benchmark-premerge: written by bench/premerge_depth.sh --write-readme; begin -->"
README_END = "<!-- bug-benchmark-premerge: end -->"
TARGET_KIND, TARGET_LAYER = "deep", "property"


# gtest's start line of a test, and RapidCheck's line when one of its cases fails.
_RUN = re.compile(r"^\[ RUN      \] (\S+)", re.M)
_FALSIFIABLE = re.compile(r"Falsifiable after (\d+) tests")


def first_failures(log: str) -> Dict[str, int]:
    """Property test -> the number of the case that first failed, from a ctest log."""
    out: Dict[str, int] = {}
    starts = list(_RUN.finditer(log))
    for i, start in enumerate(starts):
        body = log[start.end():starts[i + 1].start() if i + 1 < len(starts) else len(log)]
        failed = _FALSIFIABLE.search(body)
        if failed:
            out[start.group(1)] = int(failed.group(1))
    return out


def margins(documents: List[Tuple[str, dict]]) -> List[str]:
    """Per document, bug and property suite: the case that first failed in each seed (of the
    suite's case count), so that a catch at the edge of the count shows as one."""
    lines = []
    for label, document in documents:
        per: Dict[Tuple[str, str], Dict[int, int]] = {}
        for r in document["records"]:
            for test, case in (r.get("first_failure") or {}).items():
                suite = test.split("/")[0]
                seeds = per.setdefault((r["bug"], suite), {})
                seeds[r["seed"]] = min(case, seeds.get(r["seed"], case))
        for (bug, suite), seeds in per.items():
            cases = ", ".join(f"{seeds[s]}" if s in seeds else "-" for s in range(1, document["seeds"] + 1))
            lines.append(f"- {label} · {bug} · {suite}: first failing case per seed {cases}")
    return lines


def table(records: List[dict]) -> Tuple[List[Tuple[str, str]], List[str], Dict[Tuple[str, str], LayerSummary]]:
    """(bugs with their kind, layers, summary per (bug, layer)) in first-seen order."""
    bugs: List[Tuple[str, str]] = []
    layers: List[str] = []
    results: Dict[Tuple[str, str], List[str]] = {}
    for r in records:
        if (r["bug"], r["kind"]) not in bugs:
            bugs.append((r["bug"], r["kind"]))
        if r["layer"] not in layers:
            layers.append(r["layer"])
        results.setdefault((r["bug"], r["layer"]), []).append(r["result"])
    return bugs, layers, {key: summarize(value) for key, value in results.items()}


def cell(summary: Optional[LayerSummary], deterministic: bool) -> str:
    if summary is None:
        return "not run"
    text = f"{summary.caught}/{summary.seeds}" + (" ✔" if summary.meets() else "")
    if deterministic:
        text += " (det.)"
    return text + (f" · {summary.errors} error(s)" if summary.errors else "")


def deterministic_layers(records: List[dict]) -> Dict[Tuple[str, str], bool]:
    """(bug, layer) -> True when no entry of the layer was seeded (one run for every seed)."""
    out: Dict[Tuple[str, str], bool] = {}
    for r in records:
        out[(r["bug"], r["layer"])] = out.get((r["bug"], r["layer"]), True) and not r["seeded"]
    return out


def target(records: List[dict]) -> Tuple[int, int, int]:
    """(deep bugs caught by the property layer alone in >= 4/5 seeds, deep bugs measured, error
    seeds among them)."""
    bugs, _, summaries = table(records)
    deep = [summaries[(b, TARGET_LAYER)] for b, kind in bugs if kind == TARGET_KIND and (b, TARGET_LAYER) in summaries]
    return sum(1 for s in deep if s.meets()), len(deep), sum(s.errors for s in deep)


def target_line(document: dict) -> str:
    met, measured, errors = target(document["records"])
    if not measured:
        return "the issue's target (every deep bug caught by the property layer alone in >= 4/5 seeds): not judged (no deep bug measured on the property layer)"
    verdict = "not judged (error seeds)" if errors else ("met" if met == measured else "NOT met")
    return (f"deep bugs caught by the property layer alone in >= 4/5 seeds: {met}/{measured}; "
            f"the issue's target: {verdict}")


def markdown(documents: List[Tuple[str, dict]]) -> str:
    """The bug x layer table; with two or more documents, one column group each."""
    bugs: List[Tuple[str, str]] = []
    layers: List[str] = []
    per_doc = []
    for label, document in documents:
        b, l, summaries = table(document["records"])
        bugs += [x for x in b if x not in bugs]
        layers += [x for x in l if x not in layers]
        per_doc.append((label, summaries, deterministic_layers(document["records"])))
    several = len(documents) > 1
    columns = [f"{layer} · {label}" if several else layer for layer in layers for label, _, _ in per_doc]
    lines = ["Each cell: RapidCheck seeds that caught the bug (of the seeds run; ✔ = at least 4 of 5); "
             "(det.) = the layer has no RapidCheck entry, one deterministic run stands for every "
             "seed; errors are never counted as caught. `property` is the property layer alone "
             "(no replay of committed inputs).", "",
             "| bug | kind | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    for bug, kind in bugs:
        cells = [cell(summaries.get((bug, layer)), det.get((bug, layer), False))
                 for layer in layers for _, summaries, det in per_doc]
        lines.append(f"| {bug} | {kind} | " + " | ".join(cells) + " |")
    overall = []
    for layer in layers:
        for _, summaries, _ in per_doc:
            mine = [s for (b, l), s in summaries.items() if l == layer]
            overall.append(f"{sum(s.meets() for s in mine)}/{len(mine)} bugs ✔"
                           + (f", {sum(s.errors for s in mine)} error(s)" if any(s.errors for s in mine) else ""))
    lines.append("| **overall** | | " + " | ".join(overall) + " |")
    errors = [f"{label}: {r['bug']} {r['layer']} seed {r['seed']}: {r['how']}" for label, d in documents
              for r in d["records"] if r["result"] == ERROR]
    if errors:
        lines += ["", f"{len(errors)} error seed(s) (never counted as caught):"] + [f"- {e}" for e in errors[:20]]
    return "\n".join(lines)


def catches(records: List[dict]) -> List[str]:
    """How each bug x layer was caught (the first catching seed's detection)."""
    seen, out = set(), []
    for r in records:
        if r["result"] == CAUGHT and (r["bug"], r["layer"]) not in seen:
            seen.add((r["bug"], r["layer"]))
            out.append(f"- {r['bug']} · {r['layer']}: {r['how']}")
    return out


def write(out: Path, document: dict, text: str) -> Dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "results.json", "md": out / "results.md"}
    files["json"].write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    files["md"].write_text(text + "\n", encoding="utf-8")
    return files
