"""report.html, rendered from the report model with templates/report.html and the row templates
below (html_template escapes every value). Self-contained: inline CSS and SVG, relative links."""
import os
from pathlib import Path

from ..html_template import Raw, join, render
from . import svg
from .coverage_section import METRICS
from .report_md import report_excerpt
from .report_model import HISTORY_COLUMNS, META_KEYS, Report, frames_text, found_by, history_rows, read_text

PAGE = (Path(__file__).parent / "templates" / "report.html").read_text()

META_ROW = "<tr><th>$key</th><td><code>$value</code></td></tr>"
STEP_ROW = '<tr><td>$step</td><td class="$cls">$result</td><td class="n">$secs</td><td>$detail</td></tr>'
CAMPAIGN_ROW = ("<tr><td>$preset</td><td>$target</td><td class='n'>$runs</td><td class='n'>$execs</td>"
                "<td class='n'>$eps</td><td class='n'>$cov0 → $cov</td><td class='n'>$ft</td>"
                "<td class='n'>$units0 → $units</td><td class='n'>$new_files</td><td class='n'>$rss</td>"
                "<td class='$cls'>$failures</td></tr>")
PLOTS = '<div class="campaign"><h3>$preset / $target</h3>$coverage<br>$corpus</div>'
RUN_ROW = ("<tr><td>$preset</td><td>$target</td><td class='n'>$worker</td><td class='n'>$run</td>"
           "<td class='n'>$seed</td><td class='n $cls'>$rc</td><td class='n'>$secs</td><td class='n'>$execs</td>"
           "<td class='n'>$eps</td><td class='n'>$cov</td><td>$artifacts</td><td><a href='$log'>log</a></td></tr>")
LINK = '<a href="$href">$text</a>'
CORPUS_ROW = ("<tr><td><a href='corpus/$target/'>$target</a></td><td class='n'>$committed</td>"
              "<td class='n'>$new_units</td><td class='n'>$merged</td><td class='$cls'>$status</td></tr>")
CORPUS_COMMANDS = "<p>To commit the merged corpus$warning:</p><pre>$commands</pre>"
BANNER = ('<div class="banner"><b>CANARY BUILD</b> <code>$canary</code>: the library was built with a '
          'planted bug; failures are expected, the corpus must not be committed.</div>')
BUCKETS = ("<p>Bucket key: (failure kind, operator action, dispatch key, flavour), from the report "
           "headline and the last <code>DISPATCH-STEP</code> line before it. The top symbolized frames "
           "are shown beside the key, not part of it (every dispatcher bug has the same few lookup "
           "frames on top).</p><table><tr><th>bucket</th><th>kind</th><th>action</th><th>key</th>"
           "<th>flavour</th><th>artifacts</th><th>found by</th><th>bytes: input → minimized</th>"
           "<th>top frames</th></tr>$rows</table>$details")
BUCKET_ROW = ("<tr><td><a href='#$id'>$id</a></td><td class='bad'>$kind</td><td>$action</td><td>$key</td>"
              "<td>$flavour</td><td class='n'>$artifacts</td><td>$found</td>"
              "<td class='n'>$input_size → $minimized_size</td><td>$frames</td></tr>")
FRAME = '<code title="$full">$short</code>'
RECORDER = "<li>the dispatcher's last events (flight recorder):<pre>$events</pre></li>"
BUCKET_DETAIL = ("<h3 id='$id'>$id</h3><ul><li>key: <code>$key</code></li><li>headline: <code>$headline</code></li>"
                 "$optional<li>minimized: $input_size → $minimized_size bytes ($minimized_by)</li>"
                 "<li>repro: <code>$repro</code></li><li>raw: <code>$raw</code></li>$notes<li>files: $files</li></ul>"
                 "<details><summary>decoded input (trace.txt)</summary><pre>$trace</pre></details>"
                 "<details><summary>report (stack.txt excerpt)</summary><pre>$excerpt</pre></details>")
ITEM_CODE = "<li>$label: <code>$value</code></li>"
ITEM = "<li>$label: $value</li>"
PROPERTY = ("<p>Result: <span class='$cls'>$result</span> ($detail)</p>$preset$reproduce$tests")
PROPERTY_PRESET = ("<p>Preset <code>$preset</code>, up to <code>RC_PARAMS=\"max_success=$max_success\"</code> "
                   "per test, fitted into $seconds s; <a href='logs/property.log'>log</a></p>")
PROPERTY_TESTS = ("<table><tr><th>test</th><th>result</th><th>cases</th><th>time (s)</th>"
                  "<th>25-case calibration (s)</th><th>reproduce / note</th><th>log</th></tr>$rows</table>")
PROPERTY_ROW = ("<tr><td>$name</td><td class='$cls'>$result</td><td class='n'>$cases</td><td class='n'>$secs</td>"
                "<td class='n'>$calibration</td><td>$extra</td><td><a href='$log'>log</a></td></tr>")
COVERAGE = ("<h2 id='coverage'>Coverage (ci/coverage.sh, $when)</h2><p>Coverage of dispatch/ by the committed "
            "corpora, unit tests and properties (run separately; may predate this run).</p><table><tr>"
            "<th>preset</th>$heads</tr>$rows</table><ul>$cells</ul><p>$links</p>")
BUCKET_FILES = ("input", "minimized", "trace.txt", "stack.txt", "repro.sh", "bucket.json", "README.md")


def result_class(result: str) -> str:
    r = result.lower()
    if r in ("ok", "passed") or r.startswith("ok"):
        return "ok"
    if r.startswith("failed") or r.startswith("failures"):
        return "bad"
    return "warn"


def _campaigns(r: Report):
    rows, plots, runs = [], [], []
    for (p, t), c in r.campaigns.items():
        fails = join([render(LINK, href=f"failures/{b}/", text=b) for b in c["buckets"]], " ") or "none"
        rows.append(render(CAMPAIGN_ROW, preset=p, target=t, runs=len(c["runs"]), execs=c["execs"], eps=c["eps"],
                           cov0=c["cov0"], cov=c["cov"], ft=c["ft"], units0=c["units0"], units=c["units"],
                           new_files=c["new_files"], rss=c["rss"], cls="bad" if c["buckets"] else "ok",
                           failures=fails))
        workers = sorted(c["series"], key=int)
        colour = {w: svg.COLOURS[i % len(svg.COLOURS)] for i, w in enumerate(workers)}
        plots.append(render(PLOTS, preset=p, target=t,
                            coverage=svg.plot([(f"worker {w}", colour[w], c["series"][w]) for w in workers],
                                              "coverage (cov) over time"),
                            corpus=svg.plot([(f"worker {w}", colour[w], c["corp_series"][w]) for w in workers],
                                            "corpus units over time")))
        for run in c["runs"]:
            arts = join([render(LINK, href=os.path.relpath(a, r.run), text=os.path.basename(a))
                         for a in run["artifacts"]], " ") or "-"
            runs.append(render(RUN_ROW, preset=p, target=t, worker=run["worker"], run=run["run"], seed=run["seed"],
                               cls="ok" if run["rc"] == "0" else "bad", rc=run["rc"], secs=run["secs"],
                               execs=run["execs"] or "-", eps=run["eps"] or "-", cov=run["cov"] or "-",
                               artifacts=arts, log=run["log"]))
    return join(rows, "\n"), join(plots, "\n"), join(runs, "\n")


def _bucket_detail(r: Report, b: dict) -> Raw:
    optional = []
    if b.get("detail"):
        optional.append(render(ITEM_CODE, label="detail", value=b["detail"]))
    if b.get("last_step"):
        optional.append(render(ITEM_CODE, label="last step", value=b["last_step"]["line"]))
    if b.get("flight_recorder"):
        optional.append(render(RECORDER, events="\n".join(b["flight_recorder"])))
    d = b["_dir"]
    return render(BUCKET_DETAIL, id=b["bucket_id"], key=b["key_string"], headline=b.get("headline", ""),
                  optional=join(optional), input_size=b.get("input_size"), minimized_size=b.get("minimized_size"),
                  minimized_by=b.get("minimized_by", ""), repro=b.get("repro", ""), raw=b.get("raw_command", ""),
                  notes=join([render(ITEM, label="note", value=n) for n in b.get("notes", [])]),
                  files=join([render(LINK, href=f"{d}/{f}", text=f) for f in BUCKET_FILES], ", "),
                  trace=read_text(os.path.join(r.run, d, "trace.txt"), 20000),
                  excerpt=report_excerpt(read_text(os.path.join(r.run, d, "stack.txt"))))


def _failures(r: Report) -> Raw:
    if not r.buckets:
        return Raw('<p class="ok">None.</p>')
    rows = []
    for b in r.buckets:
        k = b["key"]
        frames = join([render(FRAME, full=full, short=short)
                       for short, full in zip(frames_text(b, 70), frames_text(b))], "<br>")
        rows.append(render(BUCKET_ROW, id=b["bucket_id"], kind=k["kind"], action=k["action"], key=k["dispatch_key"],
                           flavour=k["flavour"], artifacts=len(b.get("artifacts", [])), found=found_by(b),
                           input_size=b.get("input_size"), minimized_size=b.get("minimized_size"), frames=frames))
    return render(BUCKETS, rows=join(rows, "\n"), details=join([_bucket_detail(r, b) for b in r.buckets], "\n"))


EVENT_CLASS = {"new": "bad", "reopened": "bad", "known": "bad", "error": "bad", "fixed": "ok"}


KNOWN_UPSTREAM = ("<h2 id='known-upstream'>Known upstream bugs of c10 $release</h2><p>Inputs of tonight's "
                  "fuzzing that showed each known bug (the target skips them and goes on); "
                  "<code>fuzz/c10/known_upstream.status</code> says what each release should show.</p>"
                  "<table><tr><th>bug</th><th>inputs tonight</th><th>status file</th><th>tonight</th></tr>"
                  "$rows</table>")


def _known_upstream(r: Report) -> Raw:
    if not r.known_upstream:
        return Raw("")
    rows = [render("<tr><td>$b</td><td class='n'>$n</td><td>$st</td><td class='$cls'>$v</td></tr>", b=b, n=n, st=st,
                   v=v, cls="bad" if v.startswith("SEEN") else ("ok" if v == "fixed" else ""))
            for b, n, st, v in r.known_upstream]
    return render(KNOWN_UPSTREAM, release=r.libtorch, rows=join(rows))


def _history(r: Report) -> Raw:
    if not r.history:
        return Raw('<p class="bad">No crash history for this run (see the step <code>crash history</code>).</p>')
    rows = history_rows(r)
    if not rows:
        return Raw('<p class="ok">No open buckets, none found.</p>')
    head = join([render("<th>$c</th>", c=c) for c in HISTORY_COLUMNS])
    body = join([render("<tr>$cells</tr>", cells=join(
        [render("<td class='$cls'>$v</td>", v=v, cls=EVENT_CLASS.get(row[1], "warn") if i == 1 else "")
         for i, v in enumerate(row)])) for row in rows], "\n")
    return render("<p>Store <code>$store</code>, commit <code>$commit</code>.</p><table><tr>$head</tr>$body</table>",
                  store=r.history.get("store", ""), commit=r.history.get("commit", ""), head=head, body=body)


def _property(r: Report) -> Raw:
    prop = r.prop
    if not prop:
        return Raw("")
    preset = render(PROPERTY_PRESET, preset=prop["preset"], max_success=prop.get("max_success", ""),
                    seconds=prop.get("seconds", "?")) if prop.get("preset") else ""
    reproduce = render("<p>Reproduce: <code>$r</code></p>", r=prop["reproduce"]) if prop.get("reproduce") else ""
    rows = []
    for t in prop["_tests"]:
        large = t.get("large", {})
        extra = [render("<code>$r</code>", r=x) for x in t.get("reproduce", [])]
        note = t.get("note") or large.get("why", "")
        if note:
            extra.append(note)
        rows.append(render(PROPERTY_ROW, name=t["name"], cls=result_class(t["result"]), result=t["result"],
                           cases=t["cases"], secs=large.get("seconds", "-"), calibration=t["calibration"]["seconds"],
                           extra=join(extra, "<br>"),
                           log=os.path.relpath(large.get("log") or t["calibration"]["log"], r.run)))
    tests = render(PROPERTY_TESTS, rows=join(rows, "\n")) if rows else ""
    return render(PROPERTY, cls=result_class(prop.get("result", "?")), result=prop.get("result", "?"),
                  detail=prop.get("detail", ""), preset=Raw(preset), reproduce=Raw(reproduce), tests=Raw(tests))


def _coverage(cov) -> Raw:
    if not cov:
        return Raw("")
    rows = [render("<tr><td>$p</td>$cells</tr>", p=p,
                   cells=join([render("<td class='n'>$v</td>", v=v) for v in values])) for p, values in cov["rows"]]
    return render(COVERAGE, when=cov["when"], heads=join([render("<th>$m</th>", m=m) for m in METRICS]),
                  rows=join(rows), cells=join([render("<li>$c</li>", c=c) for c in cov["cells"]]),
                  links=join([render(LINK, href=h, text=t) for h, t in cov["links"]], ", "))


def render_report(r: Report, coverage=None) -> str:
    campaign_rows, plots, run_rows = _campaigns(r)
    commands = ""
    if r.corpus_cmds:
        commands = render(CORPUS_COMMANDS, warning=Raw(" (<b>not</b> from a canary build)" if r.canary else ""),
                          commands="\n".join(r.corpus_cmds))
    return render(
        PAGE, name=r.name, overall=r.overall, overall_class=result_class(r.overall),
        banner=render(BANNER, canary=r.canary) if r.canary else Raw(""),
        meta_rows=join([render(META_ROW, key=k, value=r.meta[k]) for k in META_KEYS if k in r.meta], "\n"),
        step_rows=join([render(STEP_ROW, step=s, cls=result_class(res), result=res, secs=secs, detail=d)
                        for s, res, secs, d in r.steps], "\n"),
        campaign_rows=campaign_rows, plots=plots, run_rows=run_rows,
        corpus_rows=join([render(CORPUS_ROW, target=t, committed=c, new_units=n, merged=m, cls=result_class(st),
                                 status=st) for t, c, n, m, st in r.corpus], "\n"),
        corpus_commands=Raw(commands), known_upstream=_known_upstream(r), history=_history(r), failures=_failures(r), property=_property(r), coverage=_coverage(coverage))
