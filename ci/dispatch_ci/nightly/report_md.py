"""report.md and failures/<bucket>/README.md, rendered from the report model."""
import os

from . import triage
from .coverage_section import METRICS
from .report_model import HISTORY_COLUMNS, META_KEYS, Report, frames_text, found_by, history_rows, read_text


def md_escape(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def report_excerpt(stack_text: str, lines: int = 60) -> str:
    """From the failure headline on (with the last 3 DISPATCH-STEP lines before it)."""
    head = triage.find_headline(stack_text)
    if not head:
        return "\n".join(stack_text.splitlines()[-lines:])
    start = stack_text.rfind("\n", 0, head[0]) + 1
    before = [l for l in stack_text[:start].splitlines() if l.startswith("DISPATCH-STEP")][-3:]
    return "\n".join(before + stack_text[start:].splitlines()[:lines])


def _header(r: Report):
    out = [f"# Nightly fuzz campaign {r.name}\n", f"**Result: {r.overall}**\n"]
    out += [f"- {k}: `{r.meta[k]}`" for k in META_KEYS if k in r.meta]
    if r.canary:
        out.append(f"\n> **CANARY BUILD** (`{r.canary}`): the library was built with a planted bug.")
    out.append("\nHTML version: [report.html](report.html)\n")
    out.append("## Steps\n")
    out.append("| step | result | time (s) | detail |\n|---|---|---:|---|")
    out += [f"| {md_escape(s)} | {md_escape(res)} | {secs} | {md_escape(d)} |" for s, res, secs, d in r.steps]
    return out


def _fuzzing(r: Report):
    out = ["\n## Fuzzing (per target and flavour)\n",
           "| preset | target | runs | execs | exec/s | cov (start → end) | ft | corpus units (start → end) | new units | peak RSS (MB) | failures |",
           "|---|---|---:|---:|---:|---|---:|---|---:|---:|---|"]
    for (p, t), c in r.campaigns.items():
        fails = ", ".join(f"[{b}](failures/{b}/)" for b in c["buckets"]) or "none"
        out.append(f"| {p} | {t} | {len(c['runs'])} | {c['execs']} | {c['eps']} | {c['cov0']} → {c['cov']} | "
                   f"{c['ft']} | {c['units0']} → {c['units']} | {c['new_files']} | {c['rss']} | {fails} |")
    out += ["\nRuns (a worker restarts libFuzzer after a failure while time is left):\n",
            "| preset | target | worker | run | seed | exit | time (s) | execs | exec/s | cov | artifacts | log |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for (p, t), c in r.campaigns.items():
        for run in c["runs"]:
            arts = " ".join(os.path.basename(a) for a in run["artifacts"]) or "-"
            out.append(f"| {p} | {t} | {run['worker']} | {run['run']} | {run['seed']} | {run['rc']} | "
                       f"{run['secs']} | {run['execs'] or '-'} | {run['eps'] or '-'} | {run['cov'] or '-'} | "
                       f"{arts} | [log]({run['log']}) |")
    out.append("\nCoverage over time: see the plots in [report.html](report.html).\n")
    out.append("## Corpus\n")
    out.append("| target | committed | new units (all presets) | after -merge=1 | merge |\n|---|---:|---:|---:|---|")
    out += [f"| {t} | {committed} | {new} | {merged} | {status} |" for t, committed, new, merged, status in r.corpus]
    if r.corpus_cmds:
        out.append("\nTo commit the merged corpus" + (" (**not** from a canary build)" if r.canary else "") + ":\n")
        out.append("```sh\n" + "\n".join(r.corpus_cmds) + "\n```")
    return out


def _failures(r: Report):
    out = ["\n## Failures\n"]
    if not r.buckets:
        return out + ["None."]
    out.append("Bucket key: (failure kind, operator action, dispatch key, flavour), from the report "
               "headline and the last `DISPATCH-STEP` line before it. The top frames are shown "
               "beside the key, not part of it.\n")
    out.append("| bucket | kind | action | key | flavour | artifacts | found by | input → minimized (bytes) | top frames |")
    out.append("|---|---|---|---|---|---:|---|---|---|")
    for b in r.buckets:
        k = b["key"]
        out.append(f"| [{b['bucket_id']}]({b['_dir']}/) | {md_escape(k['kind'])} | {md_escape(k['action'])} | "
                   f"{md_escape(k['dispatch_key'])} | {md_escape(k['flavour'])} | {len(b.get('artifacts', []))} | "
                   f"{found_by(b)} | {b.get('input_size')} → {b.get('minimized_size')} | "
                   f"{md_escape('; '.join(frames_text(b)))} |")
    for b in r.buckets:
        d = b["_dir"]
        out += [f"\n### {b['bucket_id']}\n", f"- key: `{b['key_string']}`", f"- headline: `{b.get('headline', '')}`"]
        if b.get("detail"):
            out.append(f"- detail: `{b['detail']}`")
        if b.get("last_step"):
            out.append(f"- last step: `{b['last_step']['line']}`")
        out.append(f"- minimized: {b.get('input_size')} → {b.get('minimized_size')} bytes ({b.get('minimized_by', '')})")
        out += [f"- repro: `{b.get('repro', '')}`", f"- raw: `{b.get('raw_command', '')}`"]
        out += [f"- note: {n}" for n in b.get("notes", [])]
        out.append(f"- files: [input]({d}/input), [minimized]({d}/minimized), [trace.txt]({d}/trace.txt), "
                   f"[stack.txt]({d}/stack.txt), [repro.sh]({d}/repro.sh), [bucket.json]({d}/bucket.json)")
    return out


def _history(r: Report):
    out = ["\n## Crash history\n"]
    if not r.history:
        return out + ["No crash history for this run (see the step `crash history`)."]
    out.append(f"Store: `{r.history.get('store', '')}`; tonight's commit `{r.history.get('commit', '')}`. "
               "Every open bucket that fuzzing did not find was re-run from its stored input.\n")
    rows = history_rows(r)
    if not rows:
        return out + ["No open buckets, none found."]
    out.append("| " + " | ".join(HISTORY_COLUMNS) + " |")
    out.append("|" + "---|" * len(HISTORY_COLUMNS))
    out += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return out


def _known_upstream(r: Report):
    if not r.known_upstream:
        return []
    out = [f"\n## Known upstream bugs of c10 {r.libtorch}\n",
           "Inputs of tonight's fuzzing that showed each known bug (the target skips them and goes on); "
           "`fuzz/c10/known_upstream.status` says what each release should show.\n",
           "| bug | inputs tonight | status file | tonight |", "|---|---:|---|---|"]
    out += [f"| {b} | {n} | {st} | {md_escape(v)} |" for b, n, st, v in r.known_upstream]
    return out


def _property(r: Report):
    out = ["\n## Property suite\n"]
    prop = r.prop
    if not prop:
        return out
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
            log = os.path.relpath(large.get("log") or t["calibration"]["log"], r.run)
            extra = " ".join(f"`{x}`" for x in t.get("reproduce", [])) + " " + md_escape(t.get("note") or large.get("why", ""))
            out.append(f"| {t['name']} | {t['result']} | {t['cases']} | {large.get('seconds', '-')} | "
                       f"{t['calibration']['seconds']} | {extra.strip()} | [log]({log}) |")
    return out


def _coverage(cov):
    if not cov:
        return ""
    out = [f"\n## Coverage (ci/coverage.sh, {cov['when']})\n",
           "Coverage of dispatch/ by the committed corpora, unit tests and properties (run separately; "
           "may predate this run).\n",
           "| preset | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
    out += [f"| {p} | " + " | ".join(v) + " |" for p, v in cov["rows"]]
    out += [""] + [f"- {line}" for line in cov["cells"]]
    out.append("\n" + ", ".join(f"[{text}]({href})" for href, text in cov["links"]) + "\n")
    return "\n".join(out)


def render(r: Report, coverage=None) -> str:
    return "\n".join(_header(r) + _fuzzing(r) + _known_upstream(r) + _history(r) + _failures(r) + _property(r)) + "\n" + _coverage(coverage)


def bucket_readme(run: str, b: dict) -> str:
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
    if b.get("flight_recorder"):
        lines.append("- the dispatcher's last events (flight recorder):\n\n```\n"
                     + "\n".join(b["flight_recorder"]) + "\n```\n")
    lines.append(f"- found by: {b.get('target')} in {b.get('build_dir')} "
                 f"({len(b.get('artifacts', []))} artifact(s) in this bucket)")
    lines.append(f"- input {b.get('input_size')} bytes, minimized {b.get('minimized_size')} bytes "
                 f"({b.get('minimized_by', '')})")
    lines += [f"- note: {n}" for n in b.get("notes", [])]
    lines.append(f"\nRepro (from the repository root):\n\n```sh\n{b.get('repro', '')}\n# or, raw:\n"
                 f"{b.get('raw_command', '')}\n```\n")
    lines.append("Files: `input` (original artifact), `minimized`, `trace.txt` (decoded actions), "
                 "`stack.txt` (re-run with the sanitizer env and DISPATCH_FUZZ_TRACE=1), `repro.sh`, "
                 "`bucket.json`.\n")
    lines.append("## Decoded input (trace.txt)\n\n```\n" + trace.strip() + "\n```\n")
    lines.append("## Report (stack.txt, excerpt)\n\n```\n" + report_excerpt(stack) + "\n```\n")
    return "\n".join(lines)
