#!/usr/bin/env python3
"""ci/lib/nightly_report.py -- writes the report of one ci/nightly.sh run.

    nightly_report.py --run build/nightly/<stamp> [--repo DIR]

Reads what ci/nightly.sh left in the run folder:
  state/meta.tsv       key<TAB>value (budget, jobs, engine, canary, git, times)
  state/steps.tsv      step<TAB>result<TAB>seconds<TAB>detail
  state/runs.tsv       preset target worker run seed exit seconds log timeline artifacts
  state/corpus.tsv     target committed new_units merged status
  state/property.tsv   key<TAB>value
  logs/fuzz/<preset>/<target>/w<W>-r<R>.log and .timeline.tsv   (libFuzzer output)
  failures/<bucket>/bucket.json, stack.txt, trace.txt           (ci/lib/nightly_triage.py)
and writes
  report.md, report.html   (self-contained: inline CSS and SVG plots, relative links)
  failures/<bucket>/README.md
  state/campaigns.tsv      one summary line per campaign, for the shell's summary table
Standard library only.
"""
import argparse
import html
import json
import os
import re
import sys
from collections import OrderedDict, defaultdict

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage_link  # noqa: E402
import nightly_triage  # noqa: E402

STATUS_LINE = re.compile(r"^#(?P<n>\d+)\s+(?P<ev>\S+)\s+cov: (?P<cov>\d+) ft: (?P<ft>\d+)"
                         r"(?: corp: (?P<units>\d+)/(?P<bytes>\d+\w*))?"
                         r".*?exec/s: (?P<eps>\d+)(?: rss: (?P<rss>\d+)Mb)?")
FINAL_STAT = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def read_tsv(path, ncols=None):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            cols = line.split("\t")
            if ncols:
                cols += [""] * (ncols - len(cols))
            rows.append(cols)
    return rows


def read_kv(path):
    return OrderedDict((r[0], r[1] if len(r) > 1 else "") for r in read_tsv(path))


def read_text(path, limit=None):
    try:
        with open(path, errors="replace") as f:
            return f.read() if limit is None else f.read(limit)
    except OSError:
        return ""


def parse_run_log(log_path, timeline_path):
    """Stats of one libFuzzer run: initial/final cov, corpus units, execs, exec/s, peak rss."""
    text = read_text(log_path)
    stats = {"execs": None, "eps": None, "cov0": None, "cov": None, "ft": None, "units0": None,
             "units": None, "rss": None, "new_units": None, "slow_units": 0, "status": []}
    lines = [STATUS_LINE.match(l) for l in text.splitlines()]
    lines = [m for m in lines if m]
    if lines:
        first, last = lines[0], lines[-1]
        stats["cov0"] = int(first.group("cov"))
        stats["units0"] = int(first.group("units") or 0)
        stats["cov"] = int(last.group("cov"))
        stats["ft"] = int(last.group("ft"))
        stats["units"] = int(last.group("units") or 0)
        stats["execs"] = int(last.group("n"))
        stats["eps"] = int(last.group("eps"))
        stats["rss"] = int(last.group("rss") or 0)
    final = dict((k, int(v)) for k, v in FINAL_STAT.findall(text))
    if "number_of_executed_units" in final:
        stats["execs"] = final["number_of_executed_units"]
    if "average_exec_per_sec" in final:
        stats["eps"] = final["average_exec_per_sec"]
    if "peak_rss_mb" in final:
        stats["rss"] = final["peak_rss_mb"]
    if "new_units_added" in final:
        stats["new_units"] = final["new_units_added"]
    stats["slow_units"] = len(re.findall(r"Test unit written to \S*slow-unit-", text))
    points = []
    for line in read_text(timeline_path).splitlines():
        row = line.split("\t", 1)   # "<seconds>\t<libFuzzer line, which has tabs itself>"
        if len(row) < 2:
            continue
        m = STATUS_LINE.match(row[1])
        if m:
            points.append((float(row[0]), int(m.group("cov")), int(m.group("units") or 0)))
    stats["points"] = points
    return stats


# ---------------------------------------------------------------- SVG

def svg_plot(series, title, width=340, height=130):
    """series: [(label, colour, [(t, y), ...])] -> an inline <svg> line plot."""
    pts = [p for _, _, s in series for p in s]
    if not pts:
        return (f'<svg class="plot" width="{width}" height="{height}" role="img"><text x="10" y="20">'
                f'{html.escape(title)}: no status lines</text><text x="10" y="34">(the run stopped while '
                f'loading the corpus)</text></svg>')
    left, right, top, bottom = 48, 10, 20, 24
    tmax = max(max(t for t, _ in pts), 1.0)
    ymin = min(y for _, y in pts)
    ymax = max(y for _, y in pts)
    if ymax == ymin:
        ymax += 1
        ymin = max(0, ymin - 1)
    pw, ph = width - left - right, height - top - bottom

    def x(t):
        return left + pw * t / tmax

    def y(v):
        return top + ph * (1 - (v - ymin) / (ymax - ymin))

    out = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title)}">',
           f'<title>{html.escape(title)}</title>',
           f'<text x="{left}" y="13" class="pt">{html.escape(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" class="frame"/>']
    for frac in (0.0, 0.5, 1.0):
        v = ymin + (ymax - ymin) * frac
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" class="yl">{v:.0f}</text>')
    for frac in (0.0, 0.5, 1.0):
        t = tmax * frac
        out.append(f'<text x="{x(t):.1f}" y="{height - 8}" class="xl">{t:.0f}s</text>')
    for label, colour, s in series:
        if not s:
            continue
        s = sorted(s)
        # step plot: the value holds until the next status line
        d = []
        prev = None
        for t, v in s:
            if prev is not None:
                d.append(f"{x(t):.1f},{y(prev):.1f}")
            d.append(f"{x(t):.1f},{y(v):.1f}")
            prev = v
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(d)}">'
                   f'<title>{html.escape(label)}</title></polyline>')
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------- model

def load(run):
    meta = read_kv(os.path.join(run, "state", "meta.tsv"))
    steps = read_tsv(os.path.join(run, "state", "steps.tsv"), 4)
    runs = read_tsv(os.path.join(run, "state", "runs.tsv"), 10)
    corpus = read_tsv(os.path.join(run, "state", "corpus.tsv"), 5)
    prop = read_kv(os.path.join(run, "state", "property.tsv"))
    try:
        with open(os.path.join(run, "state", "property.json")) as f:
            prop["_tests"] = json.load(f).get("tests", [])
    except (OSError, ValueError):
        prop["_tests"] = []

    buckets = []
    fdir = os.path.join(run, "failures")
    for bid in sorted(os.listdir(fdir)) if os.path.isdir(fdir) else []:
        path = os.path.join(fdir, bid, "bucket.json")
        if os.path.exists(path):
            with open(path) as f:
                b = json.load(f)
            b["_dir"] = os.path.join("failures", bid)
            buckets.append(b)
    artifact_bucket = {}
    for b in buckets:
        for a in b.get("artifacts", []):
            artifact_bucket[os.path.basename(a.get("artifact") or "")] = b["bucket_id"]

    campaigns = OrderedDict()
    for p, t, w, r, seed, rc, secs, log, timeline, arts in runs:
        c = campaigns.setdefault((p, t), {"runs": [], "workers": set()})
        st = parse_run_log(log, timeline)
        st.update({"worker": w, "run": r, "seed": seed, "rc": rc, "secs": int(secs or 0),
                   "log": os.path.relpath(log, run) if log else "", "artifacts": arts.split()})
        c["runs"].append(st)
        c["workers"].add(w)
    # Preset by preset, targets in the order the build lists them (runs.tsv is in finishing order).
    order = {}
    for p, t, *_ in read_tsv(os.path.join(run, "state", "plan.tsv"), 2) + runs:
        order.setdefault(p, len(order))
        order.setdefault((p, t), len(order))
    campaigns = OrderedDict(sorted(campaigns.items(), key=lambda kv: (order[kv[0][0]], order[kv[0]])))
    for (p, t), c in campaigns.items():
        rs = c["runs"]
        c["execs"] = sum(r["execs"] or 0 for r in rs)
        secs = sum(r["secs"] for r in rs)
        c["secs"] = secs
        c["eps"] = round(c["execs"] / secs) if secs else max((r["eps"] or 0) for r in rs)
        c["cov"] = max((r["cov"] or 0) for r in rs)
        c["cov0"] = min((r["cov0"] for r in rs if r["cov0"] is not None), default=0)
        c["ft"] = max((r["ft"] or 0) for r in rs)
        c["units0"] = min((r["units0"] for r in rs if r["units0"] is not None), default=0)
        c["units"] = max((r["units"] or 0) for r in rs)
        c["rss"] = max((r["rss"] or 0) for r in rs)
        c["slow_units"] = sum(r["slow_units"] for r in rs)
        newdir = os.path.join(run, "new-units", p, t)
        c["new_files"] = len(os.listdir(newdir)) if os.path.isdir(newdir) else 0
        c["failures"] = [a for r in rs for a in r["artifacts"]]
        c["buckets"] = sorted({artifact_bucket.get(os.path.basename(a), "?") for a in c["failures"]})
        # Timeline per worker: runs of one worker follow each other.
        series = defaultdict(list)
        corp_series = defaultdict(list)
        offset = defaultdict(float)
        for r in sorted(rs, key=lambda r: (int(r["worker"]), int(r["run"]))):
            w = r["worker"]
            for tt, cov, units in r["points"]:
                series[w].append((offset[w] + tt, cov))
                corp_series[w].append((offset[w] + tt, units))
            offset[w] += r["secs"]
        c["series"] = series
        c["corp_series"] = corp_series
    return meta, steps, campaigns, corpus, prop, buckets


def run_name(run):
    return os.path.basename(os.path.realpath(run))


def frames_text(b, limit=None):
    out = []
    for f in b.get("frames", []):
        func = f["function"]
        if limit and len(func) > limit:
            func = func[:limit - 1] + "…"
        out.append(f'{func} ({f["location"]})')
    return out


def report_excerpt(stack_text, lines=60):
    head = nightly_triage.find_headline(stack_text)
    if not head:
        return "\n".join(stack_text.splitlines()[-lines:])
    start = stack_text.rfind("\n", 0, head[0]) + 1
    # keep the last few DISPATCH-STEP lines before the report
    before = [l for l in stack_text[:start].splitlines() if l.startswith("DISPATCH-STEP")][-3:]
    return "\n".join(before + stack_text[start:].splitlines()[:lines])


# ---------------------------------------------------------------- Markdown

def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def write_markdown(run, meta, steps, campaigns, corpus, prop, buckets, overall):
    out = []
    out.append(f"# Nightly fuzz campaign {run_name(run)}\n")
    out.append(f"**Result: {overall}**\n")
    for k in ("command", "started", "finished", "seconds", "budget", "jobs", "engine", "canary", "git", "host"):
        if k in meta:
            out.append(f"- {k}: `{meta[k]}`")
    if meta.get("canary", "none") != "none":
        out.append(f"\n> **CANARY BUILD** (`{meta['canary']}`): the library was built with a planted bug.")
    out.append("\nHTML version: [report.html](report.html)\n")

    out.append("## Steps\n")
    out.append("| step | result | time (s) | detail |\n|---|---|---:|---|")
    for s, r, secs, d in steps:
        out.append(f"| {md_escape(s)} | {md_escape(r)} | {secs} | {md_escape(d)} |")

    out.append("\n## Fuzzing (per target and flavour)\n")
    out.append("| preset | target | runs | execs | exec/s | cov (start → end) | ft | corpus units (start → end) | new units | peak RSS (MB) | failures |")
    out.append("|---|---|---:|---:|---:|---|---:|---|---:|---:|---|")
    for (p, t), c in campaigns.items():
        fails = ", ".join(f"[{b}](failures/{b}/)" for b in c["buckets"]) or "none"
        out.append(f"| {p} | {t} | {len(c['runs'])} | {c['execs']} | {c['eps']} | {c['cov0']} → {c['cov']} | "
                   f"{c['ft']} | {c['units0']} → {c['units']} | {c['new_files']} | {c['rss']} | {fails} |")
    out.append("\nRuns (a worker restarts libFuzzer after a failure while time is left):\n")
    out.append("| preset | target | worker | run | seed | exit | time (s) | execs | exec/s | cov | artifacts | log |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for (p, t), c in campaigns.items():
        for r in c["runs"]:
            arts = " ".join(os.path.basename(a) for a in r["artifacts"]) or "-"
            out.append(f"| {p} | {t} | {r['worker']} | {r['run']} | {r['seed']} | {r['rc']} | {r['secs']} | "
                       f"{r['execs'] or '-'} | {r['eps'] or '-'} | {r['cov'] or '-'} | {arts} | [log]({r['log']}) |")
    out.append("\nCoverage over time: see the plots in [report.html](report.html).\n")

    out.append("## Corpus\n")
    out.append("| target | committed | new units (all presets) | after -merge=1 | merge |\n|---|---:|---:|---:|---|")
    for t, committed, new_units, merged, status in corpus:
        out.append(f"| {t} | {committed} | {new_units} | {merged} | {status} |")
    cmds = corpus_commands(run, corpus)
    if cmds:
        out.append("\nTo commit the merged corpus" +
                   (" (**not** from a canary build)" if meta.get("canary", "none") != "none" else "") + ":\n")
        out.append("```sh\n" + "\n".join(cmds) + "\n```")

    out.append("\n## Failures\n")
    if not buckets:
        out.append("None.")
    else:
        out.append("Bucket key: (failure kind, operator action, dispatch key, flavour), from the report "
                   "headline and the last `DISPATCH-STEP` line before it. The top frames are shown "
                   "beside the key, not part of it.\n")
        out.append("| bucket | kind | action | key | flavour | artifacts | found by | input → minimized (bytes) | top frames |")
        out.append("|---|---|---|---|---|---:|---|---|---|")
        for b in buckets:
            k = b["key"]
            found = ", ".join(sorted({f"{a.get('preset')}/{a.get('target')}" for a in b.get("artifacts", [])}))
            out.append(f"| [{b['bucket_id']}]({b['_dir']}/) | {md_escape(k['kind'])} | {md_escape(k['action'])} | "
                       f"{md_escape(k['dispatch_key'])} | {md_escape(k['flavour'])} | {len(b.get('artifacts', []))} | "
                       f"{found} | {b.get('input_size')} → {b.get('minimized_size')} | "
                       f"{md_escape('; '.join(frames_text(b)))} |")
        for b in buckets:
            out.append(f"\n### {b['bucket_id']}\n")
            out.append(f"- key: `{b['key_string']}`")
            out.append(f"- headline: `{b.get('headline', '')}`")
            if b.get("detail"):
                out.append(f"- detail: `{b['detail']}`")
            if b.get("last_step"):
                out.append(f"- last step: `{b['last_step']['line']}`")
            out.append(f"- minimized: {b.get('input_size')} → {b.get('minimized_size')} bytes ({b.get('minimized_by', '')})")
            out.append(f"- repro: `{b.get('repro', '')}`")
            out.append(f"- raw: `{b.get('raw_command', '')}`")
            for n in b.get("notes", []):
                out.append(f"- note: {n}")
            out.append(f"- files: [input]({b['_dir']}/input), [minimized]({b['_dir']}/minimized), "
                       f"[trace.txt]({b['_dir']}/trace.txt), [stack.txt]({b['_dir']}/stack.txt), "
                       f"[repro.sh]({b['_dir']}/repro.sh), [bucket.json]({b['_dir']}/bucket.json)")

    out.append("\n## Property suite\n")
    if prop:
        out.append(f"- result: **{prop.get('result', '?')}** ({prop.get('detail', '')})")
        if prop.get("preset"):
            out.append(f"- preset: `{prop['preset']}`, up to `RC_PARAMS=\"max_success={prop.get('max_success', '')}\"` "
                       f"per test, fitted into {prop.get('seconds', '?')} s")
        if prop.get("reproduce"):
            out.append(f"- reproduce: `{prop['reproduce']}`")
        out.append("- log: [logs/property.log](logs/property.log)")
        if prop["_tests"]:
            out.append("\n| test | result | cases | time (s) | 25-case calibration (s) | reproduce / note | log |")
            out.append("|---|---|---:|---:|---:|---|---|")
            for t in prop["_tests"]:
                large = t.get("large", {})
                log = os.path.relpath(large.get("log") or t["calibration"]["log"], run)
                extra = " ".join(f"`{r}`" for r in t.get("reproduce", [])) + " " + md_escape(
                    t.get("note") or large.get("why", ""))
                out.append(f"| {t['name']} | {t['result']} | {t['cases']} | {large.get('seconds', '-')} | "
                           f"{t['calibration']['seconds']} | {extra.strip()} | [log]({log}) |")
    return "\n".join(out) + "\n"


def corpus_commands(run, corpus):
    cmds = []
    for t, committed, new_units, merged, status in corpus:
        try:
            changed = int(new_units) > 0 or int(merged) != int(committed)
        except ValueError:
            changed = False
        if changed and status == "ok":
            cmds.append(f"rm -rf fuzz/corpus/{t} && mkdir -p fuzz/corpus && cp -r {run}/corpus/{t} fuzz/corpus/{t}")
    return cmds


def write_bucket_readme(run, b):
    stack = read_text(os.path.join(run, b["_dir"], "stack.txt"))
    trace = read_text(os.path.join(run, b["_dir"], "trace.txt"))
    lines = [f"# Failure bucket {b['bucket_id']}\n",
             f"- key (kind | action | dispatch key | flavour): `{b['key_string']}`",
             f"- headline: `{b.get('headline', '')}`"]
    if b.get("detail"):
        lines.append(f"- detail: `{b['detail']}`")
    if b.get("last_step"):
        lines.append(f"- last step before the report: `{b['last_step']['line']}`")
    lines.append("- top frames: " + "; ".join(f"`{f}`" for f in frames_text(b)))
    lines.append(f"- found by: {b.get('target')} in {b.get('build_dir')} "
                 f"({len(b.get('artifacts', []))} artifact(s) in this bucket)")
    lines.append(f"- input {b.get('input_size')} bytes, minimized {b.get('minimized_size')} bytes "
                 f"({b.get('minimized_by', '')})")
    for n in b.get("notes", []):
        lines.append(f"- note: {n}")
    lines.append(f"\nRepro (from the repository root):\n\n```sh\n{b.get('repro', '')}\n# or, raw:\n"
                 f"{b.get('raw_command', '')}\n```\n")
    lines.append("Files: `input` (original artifact), `minimized`, `trace.txt` (decoded actions), "
                 "`stack.txt` (re-run with the sanitizer env and DISPATCH_FUZZ_TRACE=1), `repro.sh`, "
                 "`bucket.json`.\n")
    lines.append("## Decoded input (trace.txt)\n\n```\n" + trace.strip() + "\n```\n")
    lines.append("## Report (stack.txt, excerpt)\n\n```\n" + report_excerpt(stack) + "\n```\n")
    with open(os.path.join(run, b["_dir"], "README.md"), "w") as f:
        f.write("\n".join(lines))


# ---------------------------------------------------------------- HTML

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;max-width:100%}td code,td a{overflow-wrap:anywhere}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font-family:ui-monospace,monospace;font-size:12px}pre{background:#f7f7f7;padding:.6em;overflow-x:auto;max-height:28em}
.ok{color:#17733a;font-weight:600}.bad{color:#b00020;font-weight:600}.warn{color:#9a6700;font-weight:600}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em;margin:1em 0}
.campaign{display:inline-block;border:1px solid #ddd;margin:.4em;padding:.4em;vertical-align:top}
.campaign h3{margin:.1em 0 .3em;font-size:1em}
svg.plot{background:#fff}svg .frame{fill:none;stroke:#999}svg text{font:10px sans-serif;fill:#444}
svg .yl{text-anchor:end}svg .xl{text-anchor:middle}svg .pt{font-weight:600}
details{margin:.4em 0}summary{cursor:pointer}
"""


def cls(result):
    r = result.lower()
    if r in ("ok", "passed") or r.startswith("ok"):
        return "ok"
    if r.startswith("failed") or r.startswith("failures"):
        return "bad"
    return "warn"


def write_html(run, meta, steps, campaigns, corpus, prop, buckets, overall):
    e = html.escape
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         f"<title>nightly {e(run_name(run))}: {e(overall)}</title>",
         f"<style>{CSS}</style></head><body>"]
    h.append(f"<h1>Nightly fuzz campaign {e(run_name(run))}</h1>")
    h.append(f'<p>Result: <span class="{cls(overall)}">{e(overall)}</span></p>')
    if meta.get("canary", "none") != "none":
        h.append(f'<div class="banner"><b>CANARY BUILD</b> <code>{e(meta["canary"])}</code>: the library '
                 "was built with a planted bug; failures are expected, the corpus must not be committed.</div>")
    h.append("<table>")
    for k in ("command", "started", "finished", "seconds", "budget", "jobs", "engine", "canary", "git", "host"):
        if k in meta:
            h.append(f"<tr><th>{e(k)}</th><td><code>{e(meta[k])}</code></td></tr>")
    h.append("</table>")
    h.append('<p>Sections: <a href="#steps">steps</a>, <a href="#fuzzing">fuzzing</a>, <a href="#corpus">corpus</a>, '
             '<a href="#failures">failures</a>, <a href="#property">property suite</a>. '
             'Also: <a href="report.md">report.md</a>, <a href="logs/">logs/</a>, '
             '<a href="corpus/">corpus/</a>, <a href="failures/">failures/</a>, <a href="artifacts/">artifacts/</a></p>')

    h.append("<h2 id='steps'>Steps</h2><table><tr><th>step</th><th>result</th><th>time (s)</th><th>detail</th></tr>")
    for s, r, secs, d in steps:
        h.append(f'<tr><td>{e(s)}</td><td class="{cls(r)}">{e(r)}</td><td class="n">{e(secs)}</td><td>{e(d)}</td></tr>')
    h.append("</table>")

    h.append("<h2 id='fuzzing'>Fuzzing per target and flavour</h2>")
    h.append("<table><tr><th>preset</th><th>target</th><th>runs</th><th>execs</th><th>exec/s</th>"
             "<th>cov start → end</th><th>ft</th><th>corpus units start → end</th><th>new units</th>"
             "<th>peak RSS MB</th><th>failures</th></tr>")
    for (p, t), c in campaigns.items():
        fails = " ".join(f'<a href="failures/{e(b)}/">{e(b)}</a>' for b in c["buckets"]) or "none"
        h.append(f"<tr><td>{e(p)}</td><td>{e(t)}</td><td class='n'>{len(c['runs'])}</td>"
                 f"<td class='n'>{c['execs']}</td><td class='n'>{c['eps']}</td>"
                 f"<td class='n'>{c['cov0']} → {c['cov']}</td><td class='n'>{c['ft']}</td>"
                 f"<td class='n'>{c['units0']} → {c['units']}</td><td class='n'>{c['new_files']}</td>"
                 f"<td class='n'>{c['rss']}</td><td class='{'bad' if c['buckets'] else 'ok'}'>{fails}</td></tr>")
    h.append("</table>")
    h.append("<p>Coverage (libFuzzer <code>cov:</code>, edges) and corpus units over time; one line per "
             "worker, restarts after a failure continue the worker's line.</p>")
    for (p, t), c in campaigns.items():
        ws = sorted(c["series"], key=int)
        cov = [(f"worker {w}", COLOURS[i % len(COLOURS)], c["series"][w]) for i, w in enumerate(ws)]
        corp = [(f"worker {w}", COLOURS[i % len(COLOURS)], c["corp_series"][w]) for i, w in enumerate(ws)]
        h.append(f'<div class="campaign"><h3>{e(p)} / {e(t)}</h3>'
                 f'{svg_plot(cov, "coverage (cov) over time")}<br>{svg_plot(corp, "corpus units over time")}</div>')

    h.append("<details><summary>All runs</summary><table><tr><th>preset</th><th>target</th><th>worker</th>"
             "<th>run</th><th>seed</th><th>exit</th><th>time (s)</th><th>execs</th><th>exec/s</th><th>cov</th>"
             "<th>artifacts</th><th>log</th></tr>")
    for (p, t), c in campaigns.items():
        for r in c["runs"]:
            arts = " ".join(f'<a href="{e(os.path.relpath(a, run))}">{e(os.path.basename(a))}</a>'
                            for a in r["artifacts"]) or "-"
            h.append(f"<tr><td>{e(p)}</td><td>{e(t)}</td><td class='n'>{e(r['worker'])}</td><td class='n'>{e(r['run'])}</td>"
                     f"<td class='n'>{e(r['seed'])}</td><td class='n {'ok' if r['rc'] == '0' else 'bad'}'>{e(r['rc'])}</td>"
                     f"<td class='n'>{r['secs']}</td><td class='n'>{r['execs'] or '-'}</td><td class='n'>{r['eps'] or '-'}</td>"
                     f"<td class='n'>{r['cov'] or '-'}</td><td>{arts}</td><td><a href='{e(r['log'])}'>log</a></td></tr>")
    h.append("</table></details>")

    h.append("<h2 id='corpus'>Corpus</h2><table><tr><th>target</th><th>committed</th><th>new units (all presets)</th>"
             "<th>after -merge=1</th><th>merge</th></tr>")
    for t, committed, new_units, merged, status in corpus:
        h.append(f"<tr><td><a href='corpus/{e(t)}/'>{e(t)}</a></td><td class='n'>{e(committed)}</td>"
                 f"<td class='n'>{e(new_units)}</td><td class='n'>{e(merged)}</td><td class='{cls(status)}'>{e(status)}</td></tr>")
    h.append("</table>")
    cmds = corpus_commands(run, corpus)
    if cmds:
        h.append("<p>To commit the merged corpus" +
                 (" (<b>not</b> from a canary build)" if meta.get("canary", "none") != "none" else "") +
                 ":</p><pre>" + e("\n".join(cmds)) + "</pre>")

    h.append("<h2 id='failures'>Failures</h2>")
    if not buckets:
        h.append('<p class="ok">None.</p>')
    else:
        h.append("<p>Bucket key: (failure kind, operator action, dispatch key, flavour), from the report "
                 "headline and the last <code>DISPATCH-STEP</code> line before it. The top symbolized frames "
                 "are shown beside the key, not part of it (every dispatcher bug has the same few lookup "
                 "frames on top).</p>")
        h.append("<table><tr><th>bucket</th><th>kind</th><th>action</th><th>key</th><th>flavour</th>"
                 "<th>artifacts</th><th>found by</th><th>bytes: input → minimized</th><th>top frames</th></tr>")
        for b in buckets:
            k = b["key"]
            found = ", ".join(sorted({f"{a.get('preset')}/{a.get('target')}" for a in b.get("artifacts", [])}))
            frames_html = "<br>".join('<code title="%s">%s</code>' % (e(full), e(short))
                                      for short, full in zip(frames_text(b, 70), frames_text(b)))
            h.append(f"<tr><td><a href='#{e(b['bucket_id'])}'>{e(b['bucket_id'])}</a></td><td class='bad'>{e(k['kind'])}</td>"
                     f"<td>{e(k['action'])}</td><td>{e(k['dispatch_key'])}</td><td>{e(k['flavour'])}</td>"
                     f"<td class='n'>{len(b.get('artifacts', []))}</td><td>{e(found)}</td>"
                     f"<td class='n'>{e(str(b.get('input_size')))} → {e(str(b.get('minimized_size')))}</td>"
                     f"<td>{frames_html}</td></tr>")
        h.append("</table>")
        for b in buckets:
            d = b["_dir"]
            h.append(f"<h3 id='{e(b['bucket_id'])}'>{e(b['bucket_id'])}</h3><ul>")
            h.append(f"<li>key: <code>{e(b['key_string'])}</code></li>")
            h.append(f"<li>headline: <code>{e(b.get('headline', ''))}</code></li>")
            if b.get("detail"):
                h.append(f"<li>detail: <code>{e(b['detail'])}</code></li>")
            if b.get("last_step"):
                h.append(f"<li>last step: <code>{e(b['last_step']['line'])}</code></li>")
            h.append(f"<li>minimized: {e(str(b.get('input_size')))} → {e(str(b.get('minimized_size')))} bytes "
                     f"({e(b.get('minimized_by', ''))})</li>")
            h.append(f"<li>repro: <code>{e(b.get('repro', ''))}</code></li>")
            h.append(f"<li>raw: <code>{e(b.get('raw_command', ''))}</code></li>")
            for n in b.get("notes", []):
                h.append(f"<li>note: {e(n)}</li>")
            h.append("<li>files: " + ", ".join(f"<a href='{e(d)}/{f}'>{f}</a>" for f in
                     ("input", "minimized", "trace.txt", "stack.txt", "repro.sh", "bucket.json", "README.md")) + "</li></ul>")
            trace = read_text(os.path.join(run, d, "trace.txt"), 20000)
            stack = read_text(os.path.join(run, d, "stack.txt"))
            h.append(f"<details><summary>decoded input (trace.txt)</summary><pre>{e(trace)}</pre></details>")
            h.append(f"<details><summary>report (stack.txt excerpt)</summary><pre>{e(report_excerpt(stack))}</pre></details>")

    h.append("<h2 id='property'>Property suite</h2>")
    if prop:
        h.append(f"<p>Result: <span class='{cls(prop.get('result', '?'))}'>{e(prop.get('result', '?'))}</span> "
                 f"({e(prop.get('detail', ''))})</p>")
        if prop.get("preset"):
            h.append(f"<p>Preset <code>{e(prop['preset'])}</code>, up to "
                     f"<code>RC_PARAMS=\"max_success={e(prop.get('max_success', ''))}\"</code> per test, "
                     f"fitted into {e(prop.get('seconds', '?'))} s; "
                     "<a href='logs/property.log'>log</a></p>")
        if prop.get("reproduce"):
            h.append(f"<p>Reproduce: <code>{e(prop['reproduce'])}</code></p>")
        if prop["_tests"]:
            h.append("<table><tr><th>test</th><th>result</th><th>cases</th><th>time (s)</th>"
                     "<th>25-case calibration (s)</th><th>reproduce / note</th><th>log</th></tr>")
            for t in prop["_tests"]:
                large = t.get("large", {})
                log = os.path.relpath(large.get("log") or t["calibration"]["log"], run)
                extra = "<br>".join(f"<code>{e(r)}</code>" for r in t.get("reproduce", []))
                note = t.get("note") or large.get("why", "")
                if note:
                    extra += ("<br>" if extra else "") + e(note)
                h.append(f"<tr><td>{e(t['name'])}</td><td class='{cls(t['result'])}'>{e(t['result'])}</td>"
                         f"<td class='n'>{t['cases']}</td><td class='n'>{large.get('seconds', '-')}</td>"
                         f"<td class='n'>{t['calibration']['seconds']}</td><td>{extra}</td>"
                         f"<td><a href='{e(log)}'>log</a></td></tr>")
            h.append("</table>")
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def main():
    ap = argparse.ArgumentParser(description="writes report.md and report.html of a ci/nightly.sh run")
    ap.add_argument("--run", required=True)
    ap.add_argument("--repo", default=".")
    args = ap.parse_args()
    run = args.run
    meta, steps, campaigns, corpus, prop, buckets = load(run)

    broken = [s for s, r, _, _ in steps if r.startswith("FAILED")]
    if buckets and broken:
        overall = f"FAILED: {len(buckets)} failure bucket(s); broken: {', '.join(broken)}"
    elif buckets:
        overall = f"FAILED: {len(buckets)} failure bucket(s)"
    elif broken:
        overall = f"FAILED: broken: {', '.join(broken)}"
    else:
        overall = "passed: no failures"

    for b in buckets:
        write_bucket_readme(run, b)
    cov_md, cov_html = coverage_link.sections(run, args.repo)  # empty until ci/coverage.sh ran
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write(write_markdown(run, meta, steps, campaigns, corpus, prop, buckets, overall) + cov_md)
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write(write_html(run, meta, steps, campaigns, corpus, prop, buckets, overall)
                .replace("</body></html>", cov_html + "</body></html>"))
    with open(os.path.join(run, "state", "campaigns.tsv"), "w") as f:
        for (p, t), c in campaigns.items():
            f.write("\t".join(str(x) for x in (
                f"{p}/{t}", len(c["runs"]), c["execs"], c["eps"], f"{c['cov0']}->{c['cov']}",
                f"{c['units0']}->{c['units']}", len(c["buckets"]))) + "\n")
    print(overall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
