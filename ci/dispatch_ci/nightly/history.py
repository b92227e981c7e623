"""Crash history: the failure buckets of every night, kept between nights in one JSON file
(default build/nightly/history.json; `ci/tool.py nightly-history export|import` carries it in a
workflow cache or an artifact).

One entry per bucket id: first seen, last seen, count (nights it failed), status, the minimised
input (base64, with its sha1, so the file alone can re-run it), and what the last re-check said.

Status transitions (each night, after triage; `update` below, tested in test_history.py):

  found tonight, not in the store          -> new (known upstream when triage matched a known
                                              upstream bug of c10: fuzz/c10/known_upstream.signatures)
  found tonight, new / known               -> known
  found tonight, fixed                     -> new (reopened: it came back)
  found tonight, known upstream            -> known upstream (set by hand: `mark`)
  open, not found, re-check fails          -> known (new -> known; known upstream stays)
  open, not found, re-check passes         -> fixed (fixed_in = tonight's commit)
  open, not found, re-check ERROR          -> unchanged; an error for the night, never "fixed"
  open, not found, target not run tonight  -> unchanged (not checked)
  fixed, not found                         -> fixed (not re-run)

"Open" is new, known or known upstream.
"""
import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from .. import paths

DEFAULT_STORE = paths.BUILD / "nightly" / "history.json"
FORMAT = "dispatch-nightly-history/1"
NEW, KNOWN, FIXED, UPSTREAM = "new", "known", "fixed", "known upstream"
STATUSES = (NEW, KNOWN, FIXED, UPSTREAM)
OPEN = (NEW, KNOWN, UPSTREAM)
FAIL_ON = ("new", "any")

# What a re-check of a stored input can say (Recheck.outcome).
FAILS, PASSES, ERROR, NOT_CHECKED = "fails", "passes", "error", "not checked"


class HistoryError(Exception):
    """The history file is unreadable or not in this format (import refuses it)."""


@dataclass
class Recheck:
    outcome: str            # FAILS | PASSES | ERROR | NOT_CHECKED
    detail: str = ""        # why (error, not checked) or what it showed (fails: the bucket it landed in)
    repro: str = ""         # fails: the repro command of tonight's copy of the input


def encode_input(data: bytes) -> Dict[str, str]:
    return {"input_b64": base64.b64encode(data).decode("ascii"), "input_sha1": hashlib.sha1(data).hexdigest()}


def stored_input(entry: dict) -> bytes:
    """The bucket's minimised input; HistoryError when it is missing or does not match its sha1."""
    if not entry.get("input_b64"):
        raise HistoryError(f"bucket {entry.get('bucket_id')}: no stored input")
    try:
        data = base64.b64decode(entry["input_b64"], validate=True)
    except ValueError as e:
        raise HistoryError(f"bucket {entry.get('bucket_id')}: stored input is not base64 ({e})")
    if hashlib.sha1(data).hexdigest() != entry.get("input_sha1"):
        raise HistoryError(f"bucket {entry.get('bucket_id')}: stored input does not match its sha1")
    return data


def validate(store: dict) -> dict:
    if not isinstance(store, dict) or store.get("format") != FORMAT:
        raise HistoryError(f"not a nightly history file (format must be {FORMAT!r})")
    buckets = store.get("buckets")
    if not isinstance(buckets, dict):
        raise HistoryError("'buckets' must be an object keyed by bucket id")
    for bid, e in buckets.items():
        for field in ("bucket_id", "status", "first_seen", "last_seen", "count", "target", "preset"):
            if field not in e:
                raise HistoryError(f"bucket {bid}: missing field {field!r}")
        if e["bucket_id"] != bid:
            raise HistoryError(f"bucket {bid}: bucket_id says {e['bucket_id']!r}")
        if e["status"] not in STATUSES:
            raise HistoryError(f"bucket {bid}: unknown status {e['status']!r} (one of {', '.join(STATUSES)})")
    return store


def empty() -> dict:
    return {"format": FORMAT, "buckets": {}}


def load(path: Path) -> dict:
    """The store at `path`; an empty one when the file does not exist (the first night)."""
    if not Path(path).exists():
        return empty()
    try:
        return validate(json.loads(Path(path).read_text()))
    except ValueError as e:
        raise HistoryError(f"{path}: not JSON ({e})")


def save(store: dict, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(validate(store), indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def note_known_upstream(store: dict, night: str, tonight: Dict[str, Dict[str, int]]) -> None:
    """Per libtorch release, each known upstream bug of c10: the last night that showed it (and in
    how many inputs) and the last night that looked (store["known_upstream"]; c10 nights only)."""
    for release, bugs in tonight.items():
        per_release = store.setdefault("known_upstream", {}).setdefault(release, {})
        for bug_id, inputs in bugs.items():
            entry = per_release.setdefault(bug_id, {"nights_seen": 0})
            entry["last_checked"] = night
            if inputs:
                entry.update(last_seen=night, inputs_last_seen=inputs, nights_seen=entry["nights_seen"] + 1)


def open_buckets(store: dict) -> List[dict]:
    return [e for _, e in sorted(store["buckets"].items()) if e["status"] in OPEN]


def _entry_from(found: dict, night: str) -> dict:
    return {"bucket_id": found["bucket_id"], "first_seen": night, "count": 0, "status": NEW}


def update(store: dict, found: Dict[str, dict], rechecks: Dict[str, Recheck], night: str,
           commit: str) -> Dict[str, str]:
    """Applies one night to the store. `found`: bucket id -> tonight's record (key_string, kind,
    preset, target, artifact_kind, frames, repro, trace, input_b64, input_sha1, ...);
    `rechecks`: bucket id -> Recheck of the open buckets that fuzzing did not find tonight.
    Returns bucket id -> what happened tonight: new, reopened, known, known upstream, fixed,
    error, not checked (only for buckets that were found or re-checked)."""
    tonight: Dict[str, str] = {}
    for bid, rec in found.items():
        entry = store["buckets"].get(bid)
        if entry is None:
            entry = store["buckets"][bid] = _entry_from(rec, night)
            event = NEW
            if rec.get("known_upstream"):   # a known upstream bug of c10 (triage.classify)
                entry["status"] = event = UPSTREAM
        elif entry["status"] == FIXED:
            entry.update(status=NEW, reopened=night, reopened_after=entry.get("fixed_in", ""))
            event = "reopened"
        elif entry["status"] == UPSTREAM:
            event = UPSTREAM
        else:
            entry["status"] = KNOWN
            event = KNOWN
        entry.update({k: v for k, v in rec.items() if k != "bucket_id"})
        entry.update(last_seen=night, count=entry["count"] + 1,
                     last_check={"night": night, "outcome": FAILS, "detail": "found by fuzzing"})
        tonight[bid] = event
    for bid, check in rechecks.items():
        entry = store["buckets"].get(bid)
        if entry is None or bid in found or entry["status"] not in OPEN:
            raise ValueError(f"bucket {bid}: only open buckets that fuzzing did not find are re-checked")
        entry["last_check"] = {"night": night, "outcome": check.outcome, "detail": check.detail}
        if check.outcome == FAILS:
            if entry["status"] == NEW:
                entry["status"] = KNOWN
            entry.update(last_seen=night, count=entry["count"] + 1)
            if check.repro:
                entry["repro"] = check.repro
            tonight[bid] = entry["status"]
        elif check.outcome == PASSES:
            entry.update(status=FIXED, fixed_in=commit, fixed_on=night)
            tonight[bid] = FIXED
        elif check.outcome in (ERROR, NOT_CHECKED):
            tonight[bid] = check.outcome
        else:
            raise ValueError(f"unknown re-check outcome {check.outcome!r}")
    return tonight


def failing(tonight: Dict[str, str]) -> Dict[str, List[str]]:
    """Tonight's bucket ids grouped the way the exit status counts them."""
    groups = {"new": [], "known": [], "upstream": [], "fixed": [], "error": [], "not checked": []}
    for bid, event in sorted(tonight.items()):
        key = {NEW: "new", "reopened": "new", KNOWN: "known", UPSTREAM: "upstream",
               FIXED: "fixed", ERROR: "error", NOT_CHECKED: "not checked"}[event]
        groups[key].append(bid)
    return groups


def exit_status(tonight: Dict[str, str], fail_on: str, broken: bool) -> int:
    """1 when the night must be red: a broken step or a bucket whose stored input could not be
    re-run (never a pass), a new (or reopened) bucket, and with fail_on "any" also a known one
    that still fails. Known-upstream buckets are reported but never fail the night."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {FAIL_ON}")
    g = failing(tonight)
    if broken or g["error"] or g["new"]:
        return 1
    if fail_on == "any" and g["known"]:
        return 1
    return 0


def import_file(src: Path, dest: Path, replace: bool = False) -> dict:
    """Reads a history file (validated) into `dest`: merged into what is there (an entry from
    `src` wins when its last_seen or fixed_on is later), or replacing it."""
    incoming = validate(json.loads(Path(src).read_text()))
    store = empty() if replace else load(dest)
    for bid, e in incoming["buckets"].items():
        mine: Optional[dict] = store["buckets"].get(bid)
        if mine is None or _stamp(e) >= _stamp(mine):
            store["buckets"][bid] = e
    save(store, dest)
    return store


def _stamp(entry: dict) -> str:
    return max(entry.get("last_seen", ""), entry.get("fixed_on", ""), entry.get("last_check", {}).get("night", ""))
