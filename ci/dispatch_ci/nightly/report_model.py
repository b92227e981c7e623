"""The data model of a nightly report, read from what the run left in its folder:

  state/meta.tsv       key<TAB>value (budget, jobs, engine, canary, git, times)
  state/steps.tsv      step<TAB>result<TAB>seconds<TAB>detail
  state/runs.tsv       preset target worker run seed exit seconds log timeline artifacts
  state/plan.tsv       preset target (the order the build lists them)
  state/corpus.tsv     target committed new_units merged status
  state/property.tsv   key<TAB>value, state/property.json (per test)
  logs/fuzz/<preset>/<target>/w<W>-r<R>.log and .timeline.tsv
  state/history.json   what the crash history said tonight (history_step.py)
  failures/<bucket>/bucket.json
Markdown and HTML are both rendered from this model (report_md.py, report_html.py).
"""
import json
import os
import re
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from .run_folder import step_breaks_night

STATUS_LINE = re.compile(r"^#(?P<n>\d+)\s+(?P<ev>\S+)\s+cov: (?P<cov>\d+) ft: (?P<ft>\d+)"
                         r"(?: corp: (?P<units>\d+)/(?P<bytes>\d+\w*))?"
                         r".*?exec/s: (?P<eps>\d+)(?: rss: (?P<rss>\d+)Mb)?")
FINAL_STAT = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)
META_KEYS = ("command", "started", "finished", "seconds", "budget", "jobs", "engine", "canary", "git", "fail_on", "host", "libtorch")


def read_tsv(path: str, ncols: int = 0) -> List[List[str]]:
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                cols = line.split("\t")
                rows.append(cols + [""] * (ncols - len(cols)))
    return rows


def read_kv(path: str) -> "OrderedDict[str, str]":
    return OrderedDict((r[0], r[1] if len(r) > 1 else "") for r in read_tsv(path))


def read_text(path: str, limit: int = -1) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read(limit)
    except OSError:
        return ""


def parse_run_log(log_text: str, timeline_text: str) -> dict:
    """Stats of one fuzzer run: first/last cov and corpus units, execs, exec/s, peak rss,
    new units, slow units, and the (seconds, cov, units) points of its timeline."""
    stats = {"execs": None, "eps": None, "cov0": None, "cov": None, "ft": None, "units0": None,
             "units": None, "rss": None, "new_units": None, "final_execs": None, "final_eps": None}
    lines = [m for m in map(STATUS_LINE.match, log_text.splitlines()) if m]
    if lines:
        first, last = lines[0], lines[-1]
        stats.update(cov0=int(first.group("cov")), units0=int(first.group("units") or 0),
                     cov=int(last.group("cov")), ft=int(last.group("ft")),
                     units=int(last.group("units") or 0), execs=int(last.group("n")),
                     eps=int(last.group("eps")), rss=int(last.group("rss") or 0))
    final = {k: int(v) for k, v in FINAL_STAT.findall(log_text)}
    for stat, key in (("number_of_executed_units", "execs"), ("average_exec_per_sec", "eps"),
                      ("peak_rss_mb", "rss"), ("new_units_added", "new_units")):
        if stat in final:
            stats[key] = final[stat]
    # The run's own exec/s as libFuzzer measured it (-print_final_stats=1); a run killed before
    # it printed them, or shorter than a second (libFuzzer prints 0 then), has no figure.
    if final.get("average_exec_per_sec") and "number_of_executed_units" in final:
        stats.update(final_execs=final["number_of_executed_units"], final_eps=final["average_exec_per_sec"])
    stats["slow_units"] = len(re.findall(r"Test unit written to \S*slow-unit-", log_text))
    points = []
    for line in timeline_text.splitlines():
        row = line.split("\t", 1)   # "<seconds>\t<libFuzzer line, which has tabs itself>"
        m = STATUS_LINE.match(row[1]) if len(row) == 2 else None
        if m:
            points.append((float(row[0]), int(m.group("cov")), int(m.group("units") or 0)))
    stats["points"] = points
    return stats


NO_RATE = "n/a (no final stats)"


def campaign_rate(runs: List[dict]) -> str:
    """exec/s of a campaign from its runs' final stats: all their executions over the time
    libFuzzer measured for them (execs / exec/s of each run). Runs without the figure are left
    out and counted ("123 (2/3 runs)"); with none at all the campaign says so, never 0."""
    measured = [r for r in runs if r.get("final_eps")]
    if not measured:
        return NO_RATE
    execs = sum(r["final_execs"] for r in measured)
    seconds = sum(r["final_execs"] / r["final_eps"] for r in measured)
    rate = str(round(execs / seconds)) if seconds else "0"
    return rate if len(measured) == len(runs) else f"{rate} ({len(measured)}/{len(runs)} runs)"


def summarise_campaign(runs: List[dict], new_files: int, artifact_bucket: Dict[str, str]) -> dict:
    """One campaign (preset x target) from its runs."""
    c = {"runs": runs}
    c["execs"] = sum(r["execs"] or 0 for r in runs)
    c["secs"] = sum(r["secs"] for r in runs)
    c["eps"] = campaign_rate(runs)
    c["cov"] = max((r["cov"] or 0) for r in runs)
    c["cov0"] = min((r["cov0"] for r in runs if r["cov0"] is not None), default=0)
    c["ft"] = max((r["ft"] or 0) for r in runs)
    c["units0"] = min((r["units0"] for r in runs if r["units0"] is not None), default=0)
    c["units"] = max((r["units"] or 0) for r in runs)
    c["rss"] = max((r["rss"] or 0) for r in runs)
    c["slow_units"] = sum(r["slow_units"] for r in runs)
    c["new_files"] = new_files
    c["failures"] = [a for r in runs for a in r["artifacts"]]
    c["buckets"] = sorted({artifact_bucket.get(os.path.basename(a), "?") for a in c["failures"]})
    # Timeline per worker: the runs of one worker follow each other.
    series, corp_series, offset = defaultdict(list), defaultdict(list), defaultdict(float)
    for r in sorted(runs, key=lambda r: (int(r["worker"]), int(r["run"]))):
        w = r["worker"]
        for t, cov, units in r["points"]:
            series[w].append((offset[w] + t, cov))
            corp_series[w].append((offset[w] + t, units))
        offset[w] += r["secs"]
    c["series"], c["corp_series"] = series, corp_series
    return c


def history_counts(tonight: Dict[str, str]) -> str:
    """"1 new, 2 known, 1 fixed" from the crash history's events of the night."""
    counts = OrderedDict()
    for event in tonight.values():
        counts[event] = counts.get(event, 0) + 1
    return ", ".join(f"{n} {event}" for event, n in counts.items())


def overall_verdict(steps: List[List[str]], n_buckets: int, tonight: Dict[str, str] = None,
                    fail_on: str = "any") -> str:
    """A night is red when a failure bucket exists or a step broke (result FAILED...). With the
    crash history, the buckets are tonight's failing ones (found, or still failing on re-check),
    its events are added, and with --fail-on new only new (or reopened) buckets make it red;
    known-upstream buckets never do (history.exit_status)."""
    broken = [s for s, r, _, _ in steps if step_breaks_night(r)]
    history = ""
    if tonight:
        history = f" (history: {history_counts(tonight)})"
        n_buckets = sum(1 for e in tonight.values() if e in ("new", "reopened", "known"))
        if fail_on == "new" and not broken and not any(e in ("new", "reopened") for e in tonight.values()):
            return f"passed: no new failures{history}"
    if n_buckets and broken:
        return f"FAILED: {n_buckets} failure bucket(s); broken: {', '.join(broken)}{history}"
    if n_buckets:
        return f"FAILED: {n_buckets} failure bucket(s){history}"
    if broken:
        return f"FAILED: broken: {', '.join(broken)}{history}"
    return f"passed: no failures{history}"


def corpus_commands(run: str, corpus: List[List[str]]) -> List[str]:
    """Commands that commit the merged corpus of every target whose merge worked and changed it."""
    cmds = []
    for t, committed, new_units, merged, status in corpus:
        try:
            changed = int(new_units) > 0 or int(merged) != int(committed)
        except ValueError:
            changed = False
        if changed and status == "ok":
            cmds.append(f"rm -rf fuzz/corpus/{t} && mkdir -p fuzz/corpus && cp -r {run}/corpus/{t} fuzz/corpus/{t}")
    return cmds


@dataclass
class Report:
    run: str
    name: str
    meta: "OrderedDict[str, str]"
    steps: List[List[str]]
    campaigns: "OrderedDict[Tuple[str, str], dict]"
    corpus: List[List[str]]
    prop: Dict
    buckets: List[dict]
    overall: str = ""
    corpus_cmds: List[str] = field(default_factory=list)
    history: Dict = field(default_factory=dict)
    # A c10 night: each known upstream bug (id, inputs, status file's word, verdict) on the release.
    known_upstream: List[List[str]] = field(default_factory=list)

    @property
    def libtorch(self) -> str:
        return self.meta.get("libtorch", "")

    @property
    def canary(self) -> str:
        c = self.meta.get("canary", "none")
        return "" if c == "none" else c


def _load_buckets(run: str) -> List[dict]:
    buckets = []
    fdir = os.path.join(run, "failures")
    for bid in sorted(os.listdir(fdir)) if os.path.isdir(fdir) else []:
        path = os.path.join(fdir, bid, "bucket.json")
        if os.path.exists(path):
            with open(path) as f:
                b = json.load(f)
            b["_dir"] = os.path.join("failures", bid)
            buckets.append(b)
    return buckets


def load(run: str) -> Report:
    state = os.path.join(run, "state")
    meta = read_kv(os.path.join(state, "meta.tsv"))
    steps = read_tsv(os.path.join(state, "steps.tsv"), 4)
    runs = read_tsv(os.path.join(state, "runs.tsv"), 10)
    corpus = read_tsv(os.path.join(state, "corpus.tsv"), 5)
    prop = dict(read_kv(os.path.join(state, "property.tsv")))
    try:
        with open(os.path.join(state, "property.json")) as f:
            prop["_tests"] = json.load(f).get("tests", [])
    except (OSError, ValueError):
        prop["_tests"] = []
    buckets = _load_buckets(run)
    artifact_bucket = {os.path.basename(a.get("artifact") or ""): b["bucket_id"]
                       for b in buckets for a in b.get("artifacts", [])}

    by_campaign = OrderedDict()
    for p, t, w, r, seed, rc, secs, log, timeline, arts in runs:
        st = parse_run_log(read_text(log), read_text(timeline))
        st.update({"worker": w, "run": r, "seed": seed, "rc": rc, "secs": int(secs or 0),
                   "log": os.path.relpath(log, run) if log else "", "artifacts": arts.split()})
        by_campaign.setdefault((p, t), []).append(st)
    # Preset by preset, targets in the order the build lists them (runs.tsv is in finishing order).
    order = {}
    for p, t, *_ in read_tsv(os.path.join(state, "plan.tsv"), 2) + runs:
        order.setdefault(p, len(order))
        order.setdefault((p, t), len(order))
    campaigns = OrderedDict()
    for (p, t), rs in sorted(by_campaign.items(), key=lambda kv: (order[kv[0][0]], order[kv[0]])):
        newdir = os.path.join(run, "new-units", p, t)
        campaigns[(p, t)] = summarise_campaign(rs, len(os.listdir(newdir)) if os.path.isdir(newdir) else 0,
                                               artifact_bucket)
    report = Report(run, os.path.basename(os.path.realpath(run)), meta, steps, campaigns, corpus,
                    prop, buckets)
    try:
        with open(os.path.join(state, "history.json")) as f:
            report.history = json.load(f)
    except (OSError, ValueError):
        report.history = {}
    report.overall = overall_verdict(steps, len(buckets), report.history.get("tonight"),
                                     meta.get("fail_on", "any"))
    report.corpus_cmds = corpus_commands(run, corpus)
    report.known_upstream = read_tsv(os.path.join(state, "known_upstream.tsv"), 4)
    return report


def campaigns_tsv(report: Report) -> str:
    """One summary line per campaign, for the job's summary table."""
    lines = []
    for (p, t), c in report.campaigns.items():
        lines.append("\t".join(str(x) for x in (
            f"{p}/{t}", len(c["runs"]), c["execs"], c["eps"], f"{c['cov0']}->{c['cov']}",
            f"{c['units0']}->{c['units']}", len(c["buckets"]))))
    return "".join(line + "\n" for line in lines)


HISTORY_COLUMNS = ("bucket", "tonight", "status", "first seen", "last seen", "nights", "re-check / fixed in", "key")


def history_rows(report: "Report") -> List[Tuple[str, ...]]:
    """One row per bucket the crash history dealt with tonight: new ones first, then known,
    errors, fixed, the rest."""
    order = {"new": 0, "reopened": 0, "known": 1, "error": 2, "known upstream": 3, "fixed": 4, "not checked": 5}
    tonight = report.history.get("tonight", {})
    rows = []
    for bid, event in sorted(tonight.items(), key=lambda kv: (order.get(kv[1], 9), kv[0])):
        e = report.history["buckets"][bid]
        check = e.get("last_check", {})
        note = f"fixed in {e.get('fixed_in', '?')}" if event == "fixed" else \
            f"{check.get('outcome', '-')}: {check.get('detail', '')}"
        if event == "reopened":
            note += f" (was fixed in {e.get('reopened_after', '?')})"
        rows.append((bid, event, e["status"], e["first_seen"], e["last_seen"], str(e["count"]), note,
                     e.get("key_string", "")))
    return rows


def frames_text(bucket: dict, limit: int = 0) -> List[str]:
    out = []
    for f in bucket.get("frames", []):
        func = f["function"]
        if limit and len(func) > limit:
            func = func[:limit - 1] + "…"
        out.append(f'{func} ({f["location"]})')
    return out


def found_by(bucket: dict) -> str:
    return ", ".join(sorted({f"{a.get('preset')}/{a.get('target')}" for a in bucket.get("artifacts", [])}))
