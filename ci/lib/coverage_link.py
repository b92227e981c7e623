"""The coverage section of the nightly report: links to the newest ci/coverage.sh output.

ci/coverage.sh is a job of its own (it rebuilds two presets at -O0), so the nightly report only
points at what it last wrote to build/coverage/, and says when that was.
"""
import html
import json
import os
import time

METRICS = ("lines", "branches", "functions", "regions")


def _pct(metric):
    if not metric or not metric.get("count"):
        return "-"
    return f'{100.0 * metric["covered"] / metric["count"]:.1f}%'


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def sections(run, repo):
    """(markdown, html) of the section; empty strings when build/coverage/ has no summary."""
    cov = os.path.join(os.path.abspath(repo), "build", "coverage")
    summary = _load(os.path.join(cov, "summary.json"))
    if not summary:
        return "", ""
    cells = _load(os.path.join(cov, "cells.json")) or []
    rel = os.path.relpath(cov, os.path.realpath(run))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(os.path.join(cov, "summary.json"))))
    rows = [(r["preset"], [_pct((r.get("totals") or {}).get(m)) for m in METRICS]) for r in summary]
    cell_lines = [f'{c["flavour"]}: {c["reached"]}/{c["reachable"]} table cells reached, '
                  f'{c["called"]} landed on by calls, fallback slots set {c["fallback_slots_set"]}/{c["fallback_slots"]}'
                  for c in cells]
    links = [("summary.md", "summary"), ("cells.md", "table cells (md)"), ("cells.html", "table cells (html)")]
    links += [(f'html/{r["preset"]}/index.html', f'{r["preset"]} source view') for r in summary]

    md = [f"\n## Coverage (ci/coverage.sh, {when})\n",
          "Coverage of dispatch/ by the committed corpora, unit tests and properties (run separately; "
          "may predate this run).\n",
          "| preset | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
    md += [f"| {p} | " + " | ".join(v) + " |" for p, v in rows]
    md += [""] + [f"- {line}" for line in cell_lines]
    md.append("\n" + ", ".join(f"[{text}]({rel}/{target})" for target, text in links) + "\n")

    e = html.escape
    h = [f"<h2 id='coverage'>Coverage (ci/coverage.sh, {e(when)})</h2>",
         "<p>Coverage of dispatch/ by the committed corpora, unit tests and properties (run "
         "separately; may predate this run).</p><table><tr><th>preset</th>" +
         "".join(f"<th>{m}</th>" for m in METRICS) + "</tr>"]
    h += [f"<tr><td>{e(p)}</td>" + "".join(f"<td class='n'>{e(x)}</td>" for x in v) + "</tr>" for p, v in rows]
    h.append("</table><ul>" + "".join(f"<li>{e(line)}</li>" for line in cell_lines) + "</ul><p>" +
             ", ".join(f'<a href="{e(rel)}/{e(target)}">{e(text)}</a>' for target, text in links) + "</p>")
    return "\n".join(md), "\n".join(h)
