"""The known upstream bugs of c10 (libtorch 1.13.1) that the c10 harness finds:
fuzz/c10/known_upstream.signatures, one bug per line, `<id> | <term> | <term> ...`; a failure
report shows the bug when every term occurs in it. The fuzz target reads the same file with the
same rule (fuzz/c10/known_upstream.cpp). Triage buckets such failures as "known upstream" (they
never turn a night red); anything else the c10 target reports is new."""
from pathlib import Path
from typing import List, Optional, Tuple

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
