"""The nightly's mutant sample (nightly/mutant_step.py): which survivors are known, and the
step's verdict.

Known survivors are committed in ci/mutants_known.tsv, one per line:
    file<TAB>operator<TAB>line before<TAB>line after<TAB>verdict<TAB>why
verdict: `equivalent` (no test can tell it apart; why says why) or `gap` (a test gap someone has
triaged and not closed yet). Lines are matched by their text (stripped), not their number, so a
known survivor stays known when the file around it changes.

Verdict of a sample, in this order:
  FAILED        the unmutated tree does not build or pass the suite
  INCONCLUSIVE  no valid (killed or survived) mutant was judged: nothing was measured
  FAILED        a survivor that is not known: a new test gap, or an equivalent mutant nobody
                has looked at; it stays red until a test kills it or it is entered as known
  ok            every survivor is known (reported with the score)
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

VERDICTS = ("equivalent", "gap")
Key = Tuple[str, str, str]   # file, line before (stripped), line after (stripped)


class KnownListError(Exception):
    """A malformed line in the known-survivor list."""


@dataclass(frozen=True)
class Known:
    verdict: str
    why: str


def key_of(file: str, before: str, after: str) -> Key:
    return file, before.strip(), after.strip()


def read_known(path: Path) -> Dict[Key, Known]:
    """The committed list; a missing file is an empty list, a malformed line an error."""
    known: Dict[Key, Known] = {}
    if not Path(path).is_file():
        return known
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 6 or cells[4] not in VERDICTS or not cells[5].strip():
            raise KnownListError(f"{path}:{number}: expected file, operator, before, after, "
                                 f"verdict ({'|'.join(VERDICTS)}), why separated by tabs")
        known[key_of(cells[0], cells[2], cells[3])] = Known(cells[4], cells[5].strip())
    return known


def score(results: List[dict]) -> str:
    killed = sum(1 for r in results if r["status"].startswith("killed"))
    valid = killed + sum(1 for r in results if r["status"] == "survived")
    return f"{killed}/{valid}" + (f" = {100 * killed / valid:.0f}%" if valid else "")


def verdict(prepared: bool, results: List[dict], known: Dict[Key, Known]) -> Tuple[str, str]:
    """(step result, detail) of a sample; results as ci/mutants.sh judges them ("site" a
    mutator.Site, "status")."""
    if not prepared:
        return "FAILED", "the unmutated tree does not build or pass the suite"
    survivors = [r for r in results if r["status"] == "survived"]
    valid = [r for r in results if r["status"].startswith("killed")] + survivors
    counts = f"{len(results)} judged, score {score(results)}"
    if not valid:
        return "INCONCLUSIVE", f"no valid mutant judged ({counts}): nothing was measured"
    new = [r for r in survivors if classify(r, known) is None]
    old = [r for r in survivors if classify(r, known) is not None]
    listed = "; ".join(f"{r['site'].describe()} ({classify(r, known).verdict})" for r in old)
    if new:
        return "FAILED", (f"{len(new)} new survivor(s): {', '.join(r['site'].describe() for r in new)} "
                          f"({counts}; a test must kill it, or enter it in ci/mutants_known.tsv)"
                          + (f"; known: {listed}" if old else ""))
    return "ok", counts + (f"; known survivors: {listed}" if old else "; no survivors")


def classify(result: dict, known: Dict[Key, Known]) -> Optional[Known]:
    site = result["site"]
    return known.get(key_of(site.file, site.before, site.after))
