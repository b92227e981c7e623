"""Reading ctest's and cmake's console output: totals, failing tests, sanitizer headlines."""
import re
from pathlib import Path
from typing import List, Optional, Tuple

from . import procs

_TOTALS = re.compile(r"^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+)")
_LISTED = re.compile(r"^Total Tests: *([0-9]+)")
_FAILED_TEST = re.compile(r"^\s+[0-9]+ - ")
_PROBLEM = re.compile(r"^(==[0-9]+==ERROR|SUMMARY: |.*runtime error: |==== DISPATCH FUZZ BUG)")
WORKFLOW_TEST_STEP = re.compile(r"Executing workflow step.*test preset")


def parse_totals(line: str) -> Optional[Tuple[int, int]]:
    """'95% tests passed, 1 tests failed out of 20' -> (failed=1, total=20); None otherwise."""
    m = _TOTALS.match(line)
    return (int(m.group(1)), int(m.group(2))) if m else None


def last_totals(text: str) -> Optional[Tuple[int, int]]:
    found = None
    for line in text.splitlines():
        found = parse_totals(line) or found
    return found


def count_listed(text: str) -> int:
    """The number `ctest -N` prints as 'Total Tests: N' (0 when it printed none)."""
    for line in text.splitlines():
        m = _LISTED.match(line)
        if m:
            return int(m.group(1))
    return 0


def tests_with_label(build_dir: Path, label: str) -> int:
    out = procs.capture(["ctest", "--test-dir", build_dir, "-N", "-L", f"^{label}$"])
    return count_listed(out.stdout)


def failing_tests(text: str) -> List[str]:
    """The lines under 'The following tests FAILED:'."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "The following tests FAILED:" in line:
            return [l for l in lines[i + 1:] if _FAILED_TEST.match(l)]
    return []


def problem_lines(text: str, limit: int = 10) -> List[str]:
    """Sanitizer / oracle headlines in a test log (what a reader wants to see first)."""
    return [l for l in text.splitlines() if _PROBLEM.match(l)][:limit]


def pass_fail_counts(text: str, listed: int, returncode: int) -> Tuple[int, int]:
    """(passed, failed) of a ctest run: its totals line if it printed one; otherwise every
    listed test failed when ctest failed (it crashed or was killed), none when it passed."""
    totals = last_totals(text)
    if totals:
        failed, total = totals
        return total - failed, failed
    if returncode != 0:
        return 0, listed
    return listed, 0
