"""Step 5 of a nightly: the crash history (history.py). Every open bucket that fuzzing did not
find tonight is re-run from its stored input on tonight's build (recheck/<bucket>/); tonight's
buckets are recorded; the store is saved and state/history.json keeps what tonight did, for
the report, SARIF and JUnit."""
import json
import time
from pathlib import Path
from typing import Dict

from .. import paths, procs
from ..presets import flavour_of
from . import history, triage, triage_step
from .context import Night
from .run_folder import read_kv
from .history import ERROR, FAILS, NOT_CHECKED, PASSES, Recheck

TRACE_LIMIT = 6000   # characters of the decoded trace kept in the store (SARIF message, report)


def _read(path: Path, limit: int = -1) -> str:
    try:
        return path.read_text(errors="replace")[:limit] if limit > 0 else path.read_text(errors="replace")
    except OSError:
        return ""


def found_record(night: Night, bucket_dir: Path) -> dict:
    """What the store keeps of a bucket found tonight (failures/<bucket>/)."""
    b = json.loads((bucket_dir / "bucket.json").read_text())
    record = {k: b.get(k) for k in ("bucket_id", "key_string", "key", "headline", "detail", "frames",
                                    "preset", "target", "known_upstream")}
    record.update(history.encode_input((bucket_dir / "minimized").read_bytes()))
    record.update(artifact_kind=triage.artifact_kind(Path(b["artifacts"][0]["artifact"]).name),
                  trace=_read(bucket_dir / "trace.txt", TRACE_LIMIT), repro=b.get("repro", ""),
                  canary=night.options.canary or "none", run=night.folder.rel)
    return record


def recheck(night: Night, entry: dict) -> Recheck:
    """Re-runs one open bucket's stored input on tonight's build."""
    bid, preset, target = entry["bucket_id"], entry["preset"], entry["target"]
    if preset not in night.options.presets:
        return Recheck(NOT_CHECKED, f"preset {preset} is not part of tonight's run")
    if target not in night.preset_targets.get(preset, []):
        if night.options.targets and target not in night.options.targets:
            return Recheck(NOT_CHECKED, f"{target} is not among tonight's --targets")
        return Recheck(ERROR, f"fuzz target {target} was not built in {preset} tonight")
    binary = night.binary(preset, target)
    if not binary.is_file():
        return Recheck(ERROR, f"{paths.rel(binary)} is missing")
    # recheck/<preset>/<target>/<bucket>/input: ci/repro.sh reads the preset and target from the path
    folder = night.folder.path / "recheck" / preset / target / bid
    folder.mkdir(parents=True, exist_ok=True)
    try:
        (folder / "input").write_bytes(history.stored_input(entry))
    except history.HistoryError as e:
        return Recheck(ERROR, str(e))
    out = folder / "rerun.txt"
    result = triage_step.rerun(night, binary, folder / "input", out)
    if result.timed_out:
        return Recheck(ERROR, f"the re-run did not finish (killed after its timeout; see {paths.rel(out)})")
    text = _read(out)
    head = triage.find_headline(text)
    if head is None:
        if result.returncode == 0:
            return Recheck(PASSES, f"exit 0, no failure report ({paths.rel(out)})")
        return Recheck(ERROR, f"exit {result.returncode} without a failure report: the input can no longer "
                              f"be run as it was ({paths.rel(out)})")
    landed = triage.classify(text, entry.get("artifact_kind", "crash"), flavour_of(preset))["bucket_id"]
    detail = f"still fails ({paths.rel(out)})" if landed == bid else \
        f"fails, now as bucket {landed} ({paths.rel(out)})"
    return Recheck(FAILS, detail, f"ci/repro.sh {paths.rel(folder / 'input')}")


def known_upstream_tonight(night: Night) -> Dict[str, Dict[str, int]]:
    """{release: {bug id: inputs}} of a c10 night's known upstream step ({} for ours)."""
    release = read_kv(night.folder.state("meta.tsv")).get("libtorch")
    table = night.folder.state("known_upstream.tsv")
    if not release or not table.is_file():
        return {}
    rows = [line.split("\t") for line in table.read_text().splitlines() if line]
    return {release: {row[0]: int(row[1]) for row in rows}}


def run(night: Night, store_path: Path, commit: str, buckets: triage.Buckets) -> Dict[str, str]:
    """Returns tonight's events (history.update); records the step; a broken store is a FAILED step."""
    start = time.time()
    try:
        store = history.load(store_path)
    except history.HistoryError as e:
        night.folder.record_step("crash history", "FAILED", 0, f"{paths.rel(store_path)}: {e}")
        return {}
    try:
        found = {bid: found_record(night, night.folder.path / "failures" / bid) for bid in buckets.order}
    except (OSError, ValueError, KeyError, IndexError) as e:
        night.folder.record_step("crash history", "FAILED", int(time.time() - start),
                                 f"a bucket of tonight could not be read ({type(e).__name__}: {e})")
        return {}
    checks = {}
    for entry in history.open_buckets(store):
        if entry["bucket_id"] in found:
            continue
        night.say(f"history: re-checking {entry['status']} bucket {entry['bucket_id']} "
                  f"({entry['preset']}/{entry['target']})")
        checks[entry["bucket_id"]] = recheck(night, entry)
        night.say(f"history: {entry['bucket_id']}: {checks[entry['bucket_id']].outcome}: "
                  f"{checks[entry['bucket_id']].detail}")
    tonight = history.update(store, found, checks, night.folder.name, commit)
    history.note_known_upstream(store, night.folder.name, known_upstream_tonight(night))
    history.save(store, store_path)
    night.folder.state("history.json").write_text(json.dumps(
        {"store": paths.rel(store_path), "commit": commit, "tonight": tonight,
         "buckets": {bid: store["buckets"][bid] for bid in tonight}}, indent=1, sort_keys=True) + "\n")
    g = history.failing(tonight)
    detail = ", ".join(f"{len(v)} {k}" for k, v in g.items() if v) or "no buckets"
    result = "FAILED" if g["error"] else ("FAILURES" if g["new"] or g["known"] else "ok")
    night.folder.record_step("crash history", result, int(time.time() - start),
                             f"{detail} (store {paths.rel(store_path)})")
    return tonight
