"""report.sarif: SARIF 2.1.0, what GitHub code scanning reads. One result per bucket that failed
tonight (found by fuzzing or still failing on re-check), located at its first stack frame in
this repository's code, with the repro command and the decoded trace in the message.
baselineState says what the crash history says: new (or reopened) -> "new", known -> "unchanged".
partialFingerprints carry the bucket id, so code scanning keeps one alert per bucket."""
import re
from typing import Dict, List, Optional, Tuple

from .. import paths
from . import history

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "dispatch nightly fuzzing (ci/nightly.sh)"
FAILING_EVENTS = (history.NEW, "reopened", history.KNOWN, history.UPSTREAM)
BASELINE = {history.NEW: "new", "reopened": "new", history.KNOWN: "unchanged", history.UPSTREAM: "unchanged"}
# file:line[:column] at the end of a frame's location, e.g. "(/src/x/dispatch/src/a.cpp:12:5)"
LOCATION = re.compile(r"\(?(?P<file>[^():\s]+\.(?:cpp|cc|cxx|c|h|hpp|hh|inc)):(?P<line>\d+)(?::(?P<col>\d+))?\)?$")


def repo_dirs() -> Tuple[str, ...]:
    return tuple(sorted(p.name for p in paths.ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
                        and p.name != "build"))


def our_location(location: str, top_dirs: Tuple[str, ...], root=None) -> Optional[Tuple[str, int, Optional[int]]]:
    """(repository-relative file, line, column) when a frame's location is a file of this
    repository, None for system and runtime files. The build's debug info holds absolute paths of
    whatever checkout built it, so the path is cut at a top folder of the repository: the first
    cut whose rest exists in this checkout (a checkout folder may itself be called e.g. "ci"),
    else the first cut at all."""
    m = LOCATION.search(location.strip())
    if not m:
        return None
    root = root or paths.ROOT
    parts = m.group("file").split("/")
    cuts = ["/".join(parts[i:]) for i, part in enumerate(parts) if part in top_dirs]
    if not cuts:
        return None
    file = next((c for c in cuts if (root / c).is_file()), cuts[0])
    return file, int(m.group("line")), int(m.group("col")) if m.group("col") else None


def first_frame(entry: dict, top_dirs: Tuple[str, ...]) -> Tuple[str, int, Optional[int], str]:
    """(file, line, column, function) of the first frame in our code; the fuzz target's source
    when no frame is (a model disagreement reported by the harness, an unsymbolized stack)."""
    for f in entry.get("frames") or []:
        loc = our_location(f.get("location", ""), top_dirs)
        if loc:
            return loc + (f.get("function", ""),)
    return f"fuzz/{entry.get('target', 'unknown')}.cpp", 1, None, ""


def rule_id(entry: dict) -> str:
    kind = (entry.get("key") or {}).get("kind", "failure")
    return "nightly/" + re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")


def message(entry: dict, event: str, repro: str) -> str:
    lines = [f"Fuzzing failure bucket {entry['bucket_id']} ({event}; seen on {entry['count']} night(s) "
             f"since {entry['first_seen']}).",
             f"Key (kind | action | dispatch key | flavour): {entry.get('key_string', '')}",
             f"Headline: {entry.get('headline', '')}"]
    if entry.get("detail"):
        lines.append(f"Detail: {entry['detail']}")
    lines += [f"Repro: {repro}", "", "Decoded trace (dispatcher calls of the minimised input):",
              (entry.get("trace") or "(not decoded)").strip()]
    return "\n".join(lines)


def result(entry: dict, event: str, repro: str, top_dirs: Tuple[str, ...]) -> dict:
    file, line, col, function = first_frame(entry, top_dirs)
    region = {"startLine": line}
    if col:
        region["startColumn"] = col
    location = {"physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
                                     "region": region}}
    if function:
        location["logicalLocations"] = [{"fullyQualifiedName": function, "kind": "function"}]
    return {
        "ruleId": rule_id(entry),
        "level": "note" if event == history.UPSTREAM else "error",
        "message": {"text": message(entry, event, repro)},
        "locations": [location],
        "partialFingerprints": {"dispatchNightlyBucket/v1": entry["bucket_id"]},
        "baselineState": BASELINE[event],
        "properties": {"bucket": entry["bucket_id"], "status": entry["status"], "event": event,
                       "first_seen": entry["first_seen"], "last_seen": entry["last_seen"],
                       "count": entry["count"], "preset": entry.get("preset"), "target": entry.get("target")},
    }


def known_upstream_note(bug_id: str, inputs: str, verdict: str, release: str) -> dict:
    """A known upstream bug of c10 that tonight's inputs showed: a note, not an error (it is
    PyTorch's, reported in docs/upstream/), so code scanning shows it is still there."""
    return {
        "ruleId": f"c10-known-upstream/{bug_id}",
        "level": "note",
        "message": {"text": f"c10 {release} still shows the known upstream bug {bug_id} ({inputs} inputs tonight; "
                            f"{verdict}); fuzz/c10/known_upstream.md"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "fuzz/c10/known_upstream.md",
                                                                 "uriBaseId": "%SRCROOT%"}}}],
        "properties": {"bug": bug_id, "inputs": int(inputs), "libtorch": release},
    }


def build(history_state: dict, repro_of: Dict[str, str], run_uri: str,
          top_dirs: Tuple[str, ...] = None, known_upstream: List[List[str]] = (), release: str = "") -> dict:
    """history_state: state/history.json of the run; repro_of: bucket id -> repro command;
    known_upstream: a c10 night's rows (id, inputs, status, verdict) on libtorch `release`."""
    top_dirs = top_dirs if top_dirs is not None else repo_dirs()
    results: List[dict] = []
    rules: Dict[str, dict] = {}
    for bid, event in sorted(history_state.get("tonight", {}).items()):
        if event not in FAILING_EVENTS:
            continue
        entry = history_state["buckets"][bid]
        r = result(entry, event, repro_of.get(bid, entry.get("repro", "")), top_dirs)
        rules.setdefault(r["ruleId"], {
            "id": r["ruleId"], "name": r["ruleId"].split("/", 1)[1],
            "shortDescription": {"text": f"nightly fuzzing: {(entry.get('key') or {}).get('kind', 'failure')}"},
            "defaultConfiguration": {"level": "error"}})
        results.append(r)
    for bug_id, inputs, _, verdict in known_upstream:
        if inputs.isdigit() and int(inputs) > 0:
            note = known_upstream_note(bug_id, inputs, verdict, release)
            rules.setdefault(note["ruleId"], {
                "id": note["ruleId"], "name": bug_id,
                "shortDescription": {"text": "a known upstream bug of PyTorch's dispatcher (c10)"},
                "defaultConfiguration": {"level": "note"}})
            results.append(note)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL, "rules": list(rules.values())}},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository root"}}},
            # code scanning's category is the part before the last "/": one category for every night
            "automationDetails": {"id": f"nightly/{run_uri}"},
            "results": results,
        }],
    }
