"""junit.xml of a canary run (build/canaries/<mode>/junit.xml), in the nightly's conventions: a
failure is a finding (a canary ESCAPED, or caught only by LUCK: the harness no longer catches a
bug it exists for), an error is something that could not be tested (ERROR verdict, a patch that
no longer applies), passed is caught. One case per verdict (canary x flavour), classname
`canaries.<mode>`; its output lists that canary's rows (every setup, every layer). In the
selftest a case passes when the verdict is the one the patch's header expects."""
from typing import Dict, List, Optional

from ..junit import Case
from .verdict import VERDICT_CAUGHT, VERDICT_ERROR, Row, Verdict


def verdict_outcome(verdict: str, expected: Optional[str] = None) -> str:
    """passed | failure | error for one verdict; `expected` (selftest) turns the rule around:
    the verdict the header asks for passes, any other is a failure."""
    if expected is not None:
        return "passed" if verdict == expected else "failure"
    if verdict == VERDICT_CAUGHT:
        return "passed"
    return "error" if verdict == VERDICT_ERROR else "failure"


def _rows_text(rows: List[Row]) -> str:
    return "\n".join(f"{r.setup} {r.layer} {r.target}: {r.outcome.result} ({r.outcome.detail}; "
                     f"{r.outcome.seconds:.1f}s; {r.outcome.how})" for r in rows) or "no layer ran"


def cases(mode: str, table: List[Verdict], rows: List[Row],
          expect: Optional[Dict[str, str]] = None) -> List[Case]:
    out = []
    for v in table:
        mine = [r for r in rows if (r.canary, r.flavour) == (v.canary, v.flavour)]
        expected = expect.get(v.canary) if expect is not None else None
        outcome = verdict_outcome(v.verdict, expected)
        summary = f"{v.verdict}: {v.by}" + (f" (expected {expected})" if expected is not None else "")
        seconds = sum(r.outcome.seconds for r in mine)
        out.append(Case(f"canaries.{mode}", f"{v.canary} [{v.flavour}]", outcome,
                        summary if outcome != "passed" else "", _rows_text(mine) if outcome != "passed" else "",
                        seconds, output=f"{summary}\n{_rows_text(mine)}"))
    if not out:
        out.append(Case(f"canaries.{mode}", "verdicts", "error", "no verdicts: nothing was planned or run"))
    return out


def stopped(mode: str, why: str) -> List[Case]:
    """The job stopped before any canary ran (a patch that no longer applies, a bad header)."""
    return [Case(f"canaries.{mode}", "patches", "error", why.splitlines()[0] if why else "stopped", why)]
