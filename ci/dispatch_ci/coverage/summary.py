"""Summary of ci/coverage.sh: coverage of dispatch/ per preset (flavour).

Reads <out>/<preset>/export.json (llvm-cov export, files already restricted to dispatch/),
corpus-export.json (the same for the corpus replay alone), report.txt (llvm-cov report) and timings.tsv, and writes <out>/summary.md, summary.txt and
summary.json. Both presets compile and exercise both layouts (every class is a template on its
layout), so the per-flavour view is the split of the template instantiations by layout.
Entry: main(["--out", "build/coverage", PRESET...]).
"""

import argparse
import json
import os
import re
import sys

METRICS = ("lines", "branches", "functions", "regions")


def layout_of(mangled):
    """The first <length><identifier> in a mangled name that names a layout (e.g. 12MobileLayout)."""
    for m in re.finditer(r"(?<!\d)(\d+)(?=[A-Za-z_])", mangled):
        ident = mangled[m.end():m.end() + int(m.group(1))]
        if ident.endswith("Layout"):
            return ident
    return None


def by_layout(cov):
    """Per layout: function instantiations, code regions and branch conditions of dispatch/
    covered. A function in several binaries counts once, each region at its highest count."""
    files = {f["filename"] for f in cov["files"]}
    merged = {}
    for fn in cov.get("functions", []):
        layout = layout_of(fn["name"])
        if not layout or fn["filenames"][0] not in files:
            continue
        regions = [r[4] for r in fn["regions"] if r[7] == 0]  # kind 0: code regions
        conditions = [c for b in fn.get("branches", []) for c in (b[4], b[5])]
        old = merged.get(fn["name"])
        if old and len(old[1]) == len(regions) and len(old[2]) == len(conditions):
            regions = [max(a, b) for a, b in zip(old[1], regions)]
            conditions = [max(a, b) for a, b in zip(old[2], conditions)]
        merged[fn["name"]] = (layout, regions, conditions)
    result = {}
    for layout, regions, conditions in merged.values():
        r = result.setdefault(layout, {m: {"count": 0, "covered": 0} for m in ("functions", "regions", "branches")})
        r["functions"]["count"] += 1
        r["functions"]["covered"] += int(bool(regions) and regions[0] > 0)
        r["regions"]["count"] += len(regions)
        r["regions"]["covered"] += sum(1 for x in regions if x > 0)
        r["branches"]["count"] += len(conditions)
        r["branches"]["covered"] += sum(1 for x in conditions if x > 0)
    return dict(sorted(result.items()))


def load_preset(out, preset):
    data = os.path.join(out, preset)
    result = {"preset": preset, "totals": None, "files": [], "timings": []}
    export = os.path.join(data, "export.json")
    if os.path.exists(export):
        with open(export) as f:
            cov = json.load(f)["data"][0]
        result["totals"] = {m: cov["totals"][m] for m in METRICS}
        result["layouts"] = by_layout(cov)
        result["files"] = sorted(
            ({"file": os.path.relpath(entry["filename"]),
              **{m: entry["summary"][m] for m in METRICS}} for entry in cov["files"]),
            key=lambda e: e["file"])
    corpus = os.path.join(data, "corpus-export.json")
    if os.path.exists(corpus):
        with open(corpus) as f:
            totals = json.load(f)["data"][0]["totals"]
        result["corpus_totals"] = {m: totals[m] for m in METRICS}
    timings = os.path.join(data, "timings.tsv")
    if os.path.exists(timings):
        with open(timings) as f:
            for line in f:
                step, seconds, status = line.rstrip("\n").split("\t")
                result["timings"].append({"step": step, "seconds": int(seconds), "status": status})
    report = os.path.join(data, "report.txt")
    result["report"] = open(report).read() if os.path.exists(report) else ""
    return result


def pct(metric):
    if not metric or metric["count"] == 0:
        return "-"
    return f'{100.0 * metric["covered"] / metric["count"]:.1f}% ({metric["covered"]}/{metric["count"]})'


def markdown(results):
    out = ["# Coverage of dispatch/ (ci/coverage.sh)", "",
           "Corpus replay (fuzz/corpus, fuzz/regressions) + unit tests + property suite, clang "
           "source-based coverage; only `dispatch/include` and `dispatch/src` count.", "",
           "| preset | lines | branches | functions | regions | run time |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        total = next((t["seconds"] for t in r["timings"] if t["step"] == "total"), None)
        t = r["totals"] or {}
        out.append(f'| {r["preset"]} | ' + " | ".join(pct(t.get(m)) for m in METRICS) +
                   f' | {total if total is not None else "-"} s |')
        if "corpus_totals" in r:
            out.append(f'| {r["preset"]}, corpora only | ' +
                       " | ".join(pct(r["corpus_totals"][m]) for m in METRICS) + " | |")
    out += ["", "Both presets build and exercise both table layouts (every class is a template on its "
            "layout; the preset only picks the default `dispatch::Dispatcher`), so the totals hardly "
            "differ. Per flavour proper = the template instantiations of dispatch/ per layout "
            "(`TrimmedLayout`: the index function shared by mobile and table_index_fuzzer's "
            "selective layout):", "",
            "| preset | layout | function instantiations | regions | branch conditions |",
            "|---|---|---:|---:|---:|"]
    for r in results:
        for layout, m in r.get("layouts", {}).items():
            out.append(f'| {r["preset"]} | {layout} | {pct(m["functions"])} | {pct(m["regions"])} | '
                       f'{pct(m["branches"])} |')
    out += ["", "HTML (line and branch counts per source line): " +
            ", ".join(f'[{r["preset"]}](html/{r["preset"]}/index.html)' for r in results) +
            "; table cells: [cells.md](cells.md) / [cells.html](cells.html).", ""]
    for r in results:
        out += [f'## {r["preset"]}', "", "| file | lines | branches | functions |", "|---|---:|---:|---:|"]
        out += [f'| {f["file"]} | {pct(f["lines"])} | {pct(f["branches"])} | {pct(f["functions"])} |'
                for f in r["files"]]
        out += ["", "| step | seconds | status |", "|---|---:|---|"]
        out += [f'| {t["step"]} | {t["seconds"]} | {t["status"]} |' for t in r["timings"]]
        out.append("")
    return "\n".join(out)


def main(argv=None):
    """Command-line entry (ci/coverage.sh calls it in-process)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("presets", nargs="+")
    args = ap.parse_args(argv)
    results = [load_preset(args.out, p) for p in args.presets]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(markdown(results))
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        for r in results:
            f.write(f'== {r["preset"]} (llvm-cov report, dispatch/ only)\n{r["report"]}\n')
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "report"} for r in results], f, indent=1)
    missing = [r["preset"] for r in results if r["totals"] is None]
    if missing:
        print("coverage summary: no llvm-cov export for " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0

