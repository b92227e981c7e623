"""The known upstream bugs of c10 (libtorch 1.13.1) that the c10 harness finds:
fuzz/c10/known_upstream.signatures, one bug per line, `<id> | <term> | <term> ...`; a failure
report shows the bug when every term occurs in it. The fuzz target reads the same file with the
same rule (fuzz/c10/known_upstream.cpp). Triage buckets such failures as "known upstream" (they
never turn a night red); anything else the c10 target reports is new. The targets also say which
known bugs their inputs showed: the nightly counts them per release against
fuzz/c10/known_upstream.status (sightings)."""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import paths

SIGNATURES = paths.FUZZ / "c10" / "known_upstream.signatures"

Signature = Tuple[str, List[str]]


def read(path: Path = SIGNATURES) -> List[Signature]:
    """The signatures, in file order; none when the file is missing (a tree without fuzz/c10)."""
    path = Path(path)
    if not path.is_file():
        return []
    bugs = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        parts = line.split(" | ")
        bug_id, terms = parts[0].strip(), parts[1:]
        if not bug_id or not terms:
            raise ValueError(f"{path}: no terms in line: {line!r}")
        bugs.append((bug_id, terms))
    return bugs


def known_bug(report: str, bugs: Optional[List[Signature]] = None) -> Optional[str]:
    """The id of the first known bug the report shows, or None."""
    for bug_id, terms in (read() if bugs is None else bugs):
        if all(term in report for term in terms):
            return bug_id
    return None


STATUS = paths.FUZZ / "c10" / "known_upstream.status"
# What a c10 fuzz target prints of the known bugs its inputs showed (fuzz/c10/c10_trace_target.h):
# on an id's first input, whenever its count doubles, and at exit.
SEEN_LINE = re.compile(r"^c10 known upstream: (\S+) seen in (\d+) inputs$", re.M)


def seen_in(log_text: str) -> Dict[str, int]:
    """The known bugs one fuzzer run's log says its inputs showed, and in how many inputs (the
    last count it printed: exact when the run reached its exit, a lower bound when it was cut off)."""
    seen: Dict[str, int] = {}
    for bug_id, n in SEEN_LINE.findall(log_text):
        seen[bug_id] = max(seen.get(bug_id, 0), int(n))
    return seen


def read_status(path: Path = STATUS) -> Dict[str, Dict[str, str]]:
    """known_upstream.status: id -> {release: shows | fixed | model-only}."""
    out: Dict[str, Dict[str, str]] = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        bug_id, *columns = [part.strip() for part in line.split("|")]
        out[bug_id] = dict(column.split("=", 1) for column in columns)
    return out


@dataclass
class Sighting:
    bug_id: str
    inputs: int      # inputs of tonight's runs that showed it
    status: str      # what known_upstream.status says of this release ("" when it says nothing)
    verdict: str     # shows | fixed | not seen tonight | model-only | SEEN though ... says fixed

    @property
    def contradicts_status(self) -> bool:
        return self.inputs > 0 and self.status == "fixed"


def sightings(seen: Dict[str, int], release: str, status: Dict[str, Dict[str, str]]) -> List[Sighting]:
    """Every known bug of the status file (and any other seen), judged for `release` ("2.14")."""
    rows = []
    for bug_id in list(status) + sorted(set(seen) - set(status)):
        n, said = seen.get(bug_id, 0), status.get(bug_id, {}).get(release, "")
        if n and said == "fixed":
            verdict = f"SEEN, though {STATUS.name} says fixed in {release}"
        elif n:
            verdict = "shows"
        elif said in ("fixed", "model-only"):
            verdict = said
        else:
            verdict = "not seen tonight"
        rows.append(Sighting(bug_id, n, said, verdict))
    return rows


def headline(rows: List[Sighting], release: str) -> str:
    """'c10 2.14 still shows stale-autogradother (37 inputs), ...; fixed: guard-backend-bits'."""
    shows = [f"{r.bug_id} ({r.inputs} inputs)" for r in rows if r.inputs]
    fixed = [r.bug_id for r in rows if r.verdict == "fixed"]
    text = (f"c10 {release} still shows {', '.join(shows)}" if shows
            else f"c10 {release} showed no known upstream bug tonight")
    return text + (f"; fixed in {release}: {', '.join(fixed)}" if fixed else "")
