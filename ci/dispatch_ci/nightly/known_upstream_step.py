"""A c10 night's known upstream bugs: which of fuzz/c10/known_upstream.status's bugs tonight's
fuzzing inputs showed on this release, in how many inputs (the targets print it), and which the
status file says are fixed here. Written to state/known_upstream.tsv (id, inputs, status, verdict; the release in meta.tsv) for the report, the SARIF
notes and the crash history; a bug seen on a release the status file calls fixed breaks the night
(the file, or the release, is not what it says)."""
import time
from typing import List, Optional

from .. import c10_known, presets
from .context import Night


def release_of(night: Night) -> Optional[str]:
    """The libtorch release ("2.14") a c10 night's presets build against; None for ours."""
    releases = {presets.libtorch_release_of(p) for p in night.options.presets}
    releases.discard(None)
    return releases.pop() if len(releases) == 1 else None


def tally(night: Night) -> dict:
    """Inputs per known bug, summed over every fuzzer run of the night."""
    total: dict = {}
    for log in sorted((night.folder.path / "logs" / "fuzz").rglob("*.log")):
        for bug_id, n in c10_known.seen_in(log.read_text(errors="replace")).items():
            total[bug_id] = total.get(bug_id, 0) + n
    return total


def run(night: Night) -> List[c10_known.Sighting]:
    if night.options.system != "c10":
        return []
    start = time.time()
    release = release_of(night)
    if release is None:
        night.folder.record_step("known upstream", "FAILED", 0,
                                 f"no single libtorch release in the presets {' '.join(night.options.presets)}")
        return []
    rows = c10_known.sightings(tally(night), release, c10_known.read_status())
    night.folder.write_kv("meta.tsv", [("libtorch", release)], append=True)
    night.folder.state("known_upstream.tsv").write_text(
        "".join(f"{r.bug_id}\t{r.inputs}\t{r.status or '-'}\t{r.verdict}\n" for r in rows))
    contradictions = [r.bug_id for r in rows if r.contradicts_status]
    detail = c10_known.headline(rows, release)
    result = "FAILED" if contradictions else "ok"
    if contradictions:
        detail += f"; seen though {c10_known.STATUS.name} says fixed: {', '.join(contradictions)}"
    night.folder.record_step("known upstream", result, int(time.time() - start), detail)
    night.say(f"known upstream: {detail}")
    return rows
