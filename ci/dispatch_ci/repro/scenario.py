"""`ci/repro.sh --name SCENARIO`: a committed regression scenario, found by its name.

A scenario is one test in fuzz/regression_tests/, <target>_<scenario>_test.cpp, whose header
(written by ci/repro.sh) names the input it replays, "replays fuzz/regressions/<target>/<sha1>",
and, for a planted bug, the canary patch it pins, "ci/canaries/<name>.patch". The name may be
given as the test name, without `_test`, or without the target prefix, as long as it names
exactly one scenario.

Verdict of a named run: the input and the named test are two views of the same scenario and
must agree. Both fail: reproduced (exit 0); both pass: did not fail (exit 3); they disagree, or
the test could not be built or run: an error (exit 1), never a pass.
"""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

REPRODUCED, DID_NOT_FAIL, ERROR = 0, 3, 1

_REPLAYS = re.compile(r"^// .*\breplays (fuzz/regressions/([A-Za-z0-9_]+)/([0-9a-f]{40}))\b", re.M)
_CANARY = re.compile(r"^// .*\bci/canaries/([A-Za-z0-9_]+)\.patch\b", re.M)
_HEADER_LINES = 12   # the header is the comment block at the top of the file


class ScenarioError(Exception):
    """An unknown or ambiguous name, or a test file whose header names no input."""


@dataclass(frozen=True)
class Scenario:
    test: str        # ctest / file name without .cpp, e.g. registration_fuzzer_x_test
    target: str      # the fuzz target whose input it replays
    input: str       # fuzz/regressions/<target>/<sha1>, relative to the repository root
    canary: str      # the planted bug it pins ('' for a real finding)

    @property
    def short(self) -> str:
        """The scenario part of the name: no target prefix, no _test suffix."""
        stem = self.test[:-len("_test")] if self.test.endswith("_test") else self.test
        return stem[len(self.target) + 1:] if stem.startswith(self.target + "_") else stem

    def names(self) -> Tuple[str, ...]:
        return (self.test, self.test[:-len("_test")], self.short)


def parse(test_file: Path) -> Scenario:
    """The scenario a regression test file pins, from its header."""
    header = "\n".join(test_file.read_text(errors="replace").splitlines()[:_HEADER_LINES])
    replays = _REPLAYS.search(header)
    if not replays:
        raise ScenarioError(f"{test_file.name}: its header names no input "
                            "(expected a line 'replays fuzz/regressions/<target>/<sha1>')")
    canary = _CANARY.search(header)
    return Scenario(test_file.stem, replays.group(2), replays.group(1), canary.group(1) if canary else "")


def scenarios(tests_dir: Path) -> List[Scenario]:
    """Every committed scenario, by test name."""
    return [parse(f) for f in sorted(Path(tests_dir).glob("*_test.cpp"))]


def find(name: str, known: List[Scenario]) -> Scenario:
    """The one scenario `name` names; ScenarioError listing the known names otherwise."""
    matches = [s for s in known if name in s.names()]
    if len(matches) == 1:
        return matches[0]
    listing = ", ".join(s.short for s in known) or "none"
    if not matches:
        raise ScenarioError(f"no regression scenario named '{name}' (known: {listing})")
    raise ScenarioError(f"'{name}' names {len(matches)} scenarios ({', '.join(s.test for s in matches)}); "
                        "give the full test name")


def verdict(input_rc: int, test_rc: Optional[int]) -> Tuple[int, str]:
    """Exit code and message of a named run from the input's and the test's exit codes (None:
    the test was not built or not run)."""
    if test_rc is None:
        return ERROR, "the scenario's test could not be built or run: no verdict"
    if input_rc != 0 and test_rc != 0:
        return REPRODUCED, "reproduced: the input and the scenario's test both fail"
    if input_rc == 0 and test_rc == 0:
        return DID_NOT_FAIL, "did not fail: the input and the scenario's test both pass"
    failing = "the input" if input_rc != 0 else "the test"
    return ERROR, f"the input and the scenario's test disagree (only {failing} fails): no verdict"
