"""The coverage part of the nightly report: what ci/coverage.sh last wrote to build/coverage/.

ci/coverage.sh is a job of its own (it rebuilds two presets at -O0), so the nightly report only
points at its newest output and says when that was.
"""
import json
import os
import time
from typing import Optional

METRICS = ("lines", "branches", "functions", "regions")


def percent(metric: Optional[dict]) -> str:
    if not metric or not metric.get("count"):
        return "-"
    return f'{100.0 * metric["covered"] / metric["count"]:.1f}%'


def _load_json(path: str):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load(run: str, coverage_dir: str) -> Optional[dict]:
    """None when there is no summary yet; else when, per-preset percentages, table-cell lines
    and links (relative to the run folder)."""
    summary = _load_json(os.path.join(coverage_dir, "summary.json"))
    if not summary:
        return None
    cells = _load_json(os.path.join(coverage_dir, "cells.json")) or []
    rel = os.path.relpath(coverage_dir, os.path.realpath(run))
    links = [("summary.md", "summary"), ("cells.md", "table cells (md)"), ("cells.html", "table cells (html)")]
    links += [(f'html/{r["preset"]}/index.html', f'{r["preset"]} source view') for r in summary]
    return {
        "when": time.strftime("%Y-%m-%d %H:%M UTC",
                              time.gmtime(os.path.getmtime(os.path.join(coverage_dir, "summary.json")))),
        "rows": [(r["preset"], [percent((r.get("totals") or {}).get(m)) for m in METRICS]) for r in summary],
        "cells": [f'{c["flavour"]}: {c["reached"]}/{c["reachable"]} table cells reached, '
                  f'{c["called"]} landed on by calls, fallback slots set '
                  f'{c["fallback_slots_set"]}/{c["fallback_slots"]}' for c in cells],
        "links": [(f"{rel}/{target}", text) for target, text in links],
    }
