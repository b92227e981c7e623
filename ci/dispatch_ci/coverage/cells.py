"""Table-cell coverage of ci/coverage.sh, per flavour.

Reads the records of the cell recorder (oracle/ours/cell_recorder.h: one "layout" line per
process, one line per fuzz input) and writes <out>/cells.md, cells.html and cells.json:
  * a matrix per flavour: rows = table slots (their key), columns = entry tags; a cell says in how
    many inputs some operator's table held it and in how many a call's lookup landed on it;
    cells the precedence rules (docs/semantics.md §4.4) cannot produce are blank and do not count;
  * the fallback slots that were set (boxed / fallthrough) and that calls landed on;
  * the paths that met a key without a slot (index -1: mobile's absent keys).
Entry: main(["--out", "build/coverage", "--flavour", "full=DIR", ...])
(only records of that flavour's layout are read from DIR/*.jsonl).
"""

import argparse
import collections
import glob
import html
import json
import os
import sys

FALLBACK_TAG = "backend fallback"


def load(flavour, folder):
    layout = None
    inputs = collections.Counter()
    counts = {k: collections.Counter() for k in
              ("held", "held_fallthrough", "called", "fallbacks_held", "fallbacks_called", "no_slot")}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                if record.get("layout") == flavour:
                    layout = record
                elif "target" in record:  # an input with no action has no flavours
                    inputs[record["target"]] += 1
                    for kind, cells in record["flavours"].get(flavour, {}).items():
                        counts[kind].update(cells)
    if layout is None:
        print(f"coverage cells: no '{flavour}' layout record in {folder}/*.jsonl", file=sys.stderr)
        return None
    return analyse(flavour, folder, layout, inputs, counts)


def analyse(flavour, folder, layout, inputs, counts):
    reachable = {f'{s["key"]}|{t}' for s in layout["slots"] for t in s["reachable"]}
    seen = set(counts["held"]) | set(counts["called"])
    fallback_slots = [s["key"] for s in layout["slots"] if FALLBACK_TAG in s["reachable"]]
    fallbacks_set = {c.split("|")[0] for c in counts["fallbacks_held"]}
    no_slot_paths = collections.defaultdict(dict)
    for path, n in counts["no_slot"].items():
        api, key = path.rsplit("|", 1)
        no_slot_paths[api][key] = n
    return {
        "flavour": flavour, "source": folder, "layout": layout, "inputs": dict(inputs),
        "counts": {k: dict(v) for k, v in counts.items()},
        "reachable": len(reachable),
        "held": len(reachable & set(counts["held"])),
        "called": len(reachable & set(counts["called"])),
        "reached": len(reachable & seen),
        "unexpected": sorted(seen - reachable),
        "fallback_slots": len(fallback_slots),
        "fallback_slots_set": len(fallbacks_set),
        "fallback_slots_called": len(counts["fallbacks_called"]),
        "fallback_slots_never_set": [k for k in fallback_slots if k not in fallbacks_set],
        "no_slot_keys": layout["no_slot_keys"],
        "no_slot_paths": {api: dict(sorted(keys.items())) for api, keys in sorted(no_slot_paths.items())},
    }


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def columns(r):
    used = {t for s in r["layout"]["slots"] for t in s["reachable"]}
    return [t for t in r["layout"]["tags"] if t in used]


def cell_state(r, key, tag, reachable):
    """(text, css class) of one matrix cell."""
    if not reachable:
        return "", "na"
    c = r["counts"]
    name = f"{key}|{tag}"
    held, called, ft = c["held"].get(name, 0), c["called"].get(name, 0), c["held_fallthrough"].get(name, 0)
    if not held and not called:
        return "never", "never"
    text = f"{held}/{called}" + (f" ({ft} ft)" if ft else "")
    return text, "called" if called else "held"


def headline(r):
    return (f'{r["reached"]}/{r["reachable"]} reachable cells reached ({pct(r["reached"], r["reachable"])}); '
            f'held in a table: {r["held"]} ({pct(r["held"], r["reachable"])}), '
            f'landed on by a call: {r["called"]} ({pct(r["called"], r["reachable"])}); '
            f'fallback slots set: {r["fallback_slots_set"]}/{r["fallback_slots"]}, '
            f'called: {r["fallback_slots_called"]}/{r["fallback_slots"]}')


def markdown(results):
    out = ["# Table-cell coverage (ci/coverage.sh)", "",
           "Which (table slot, entry tag) cells the fuzz corpora built and called, per flavour. "
           "A cell `H/C` = held by some operator's table in H inputs / a call's lookup landed on it "
           "in C inputs (`ft`: of those, inputs where it was a fallthrough kernel); `never` = "
           "reachable but not reached; blank = the precedence rules (docs/semantics.md §4.4) cannot produce it. "
           "Calls are counted at their first lookup (a pass-through fallback's redispatch is not).", ""]
    for r in results:
        out += [f'## {r["flavour"]}', "",
                f'Inputs: {sum(r["inputs"].values())} (' +
                ", ".join(f"{t} {n}" for t, n in sorted(r["inputs"].items())) + f'), from `{r["source"]}`.', "",
                "**" + headline(r) + "**", ""]
        if r["unexpected"]:
            out += ["Cells reached that the reachability rules call impossible (check the rules or "
                    "the library): " + ", ".join(f"`{c}`" for c in r["unexpected"]), ""]
        tags = columns(r)
        out += ["| slot | key | " + " | ".join(tags) + " |", "|---:|---|" + "---|" * len(tags)]
        for s in r["layout"]["slots"]:
            cells = [cell_state(r, s["key"], t, t in s["reachable"])[0] for t in tags]
            out.append(f'| {s["slot"]} | {s["key"]} | ' + " | ".join(cells) + " |")
        out += ["", "### Fallback slots", "",
                "| slot key | set (boxed) | set (fallthrough) | calls landed |", "|---|---:|---:|---:|"]
        c = r["counts"]
        for s in r["layout"]["slots"]:
            k = s["key"]
            boxed, ft, called = c["fallbacks_held"].get(k, 0), c["fallbacks_held"].get(k + "|fallthrough", 0), \
                c["fallbacks_called"].get(k, 0)
            if boxed or ft or called:
                out.append(f"| {k} | {boxed} | {ft} | {called} |")
        out += ["", "Never set: " + (", ".join(r["fallback_slots_never_set"]) or "none"), "",
                "### Paths that met a key without a slot (index -1)", "",
                f'{len(r["no_slot_keys"])} runtime keys have no slot in this flavour.', ""]
        if r["no_slot_paths"]:
            out += ["| path | keys reached | inputs per key |", "|---|---:|---|"]
            for api, keys in r["no_slot_paths"].items():
                out.append(f"| {api} | {len(keys)} | " + ", ".join(f"{k} {n}" for k, n in keys.items()) + " |")
        else:
            out.append("None reached.")
        out.append("")
    return "\n".join(out)


CSS = """body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 5px;text-align:right}th{background:#eee}
td.key{text-align:left}.na{background:#f4f4f4}.never{background:#f6c4c4}.held{background:#fbeaa6}
.called{background:#b9e6b9}"""


def html_page(results):
    h = [f"<!doctype html><meta charset=utf-8><title>Table-cell coverage</title><style>{CSS}</style>",
         "<h1>Table-cell coverage (ci/coverage.sh)</h1>",
         "<p>Cell <code>H/C</code>: held by a table in H inputs / a call landed on it in C inputs. "
         "Green: called; yellow: held only; red: reachable, never reached; grey: impossible by the "
         "precedence rules. Also: <a href=cells.md>cells.md</a>, <a href=summary.md>summary.md</a>.</p>"]
    for r in results:
        h.append(f'<h2>{html.escape(r["flavour"])}</h2><p><b>{html.escape(headline(r))}</b></p>')
        if r["unexpected"]:
            h.append("<p>Reached but called impossible by the rules: " + html.escape(", ".join(r["unexpected"])) + "</p>")
        tags = columns(r)
        h.append("<table><tr><th>slot</th><th>key</th>" + "".join(f"<th>{html.escape(t)}</th>" for t in tags) + "</tr>")
        for s in r["layout"]["slots"]:
            row = "".join(f'<td class={cls}>{html.escape(text)}</td>' for text, cls in
                          (cell_state(r, s["key"], t, t in s["reachable"]) for t in tags))
            h.append(f'<tr><td>{s["slot"]}</td><td class=key>{html.escape(s["key"])}</td>{row}</tr>')
        h.append("</table><p>Fallback slots never set: " +
                 html.escape(", ".join(r["fallback_slots_never_set"]) or "none") + "</p>")
        h.append("<h3>Paths that met a key without a slot</h3><table><tr><th>path</th><th>keys</th><th>inputs per key</th></tr>")
        for api, keys in r["no_slot_paths"].items():
            h.append(f"<tr><td class=key>{html.escape(api)}</td><td>{len(keys)}</td><td class=key>" +
                     html.escape(", ".join(f"{k} {n}" for k, n in keys.items())) + "</td></tr>")
        h.append("</table>")
    return "\n".join(h) + "\n"


def main(argv=None):
    """Command-line entry (ci/coverage.sh calls it in-process)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--flavour", action="append", required=True, metavar="NAME=DIR")
    args = ap.parse_args(argv)
    loaded = [load(*spec.partition("=")[::2]) for spec in args.flavour]
    results = [r for r in loaded if r is not None]
    with open(os.path.join(args.out, "cells.md"), "w") as f:
        f.write(markdown(results))
    with open(os.path.join(args.out, "cells.html"), "w") as f:
        f.write(html_page(results))
    with open(os.path.join(args.out, "cells.json"), "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "layout"} for r in results], f, indent=1)
    for r in results:
        print(f'{r["flavour"]}: {headline(r)}')
    return 0 if len(results) == len(loaded) else 1

