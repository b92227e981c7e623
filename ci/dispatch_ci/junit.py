"""JUnit XML, the format CI dashboards read: one shared writer (`write_suite`, any number of
cases; the nightly, replay and canary jobs use it), one-test files for steps that are not ctest
runs, and ctest's own files relabelled so that files from several runs do not collide."""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional
from xml.sax.saxutils import escape, quoteattr

OUTCOMES = ("passed", "failure", "error", "skipped")


@dataclass
class Case:
    """One test case. outcome: passed | failure (the thing tested is wrong) | error (it could
    not be tested) | skipped; `message` is the one-line reason, `details` the long text."""
    classname: str
    name: str
    outcome: str = "passed"
    message: str = ""
    details: str = ""
    seconds: float = 0.0
    output: str = ""

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"JUnit outcome must be one of {OUTCOMES}, not {self.outcome!r}")


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]] >") + "]]>"


def _case_xml(c: Case) -> str:
    body = ""
    if c.outcome != "passed":
        body = f"<{c.outcome} message={quoteattr(c.message)}>{_cdata(c.details)}</{c.outcome}>"
    if c.output:
        body += f"<system-out>{_cdata(c.output)}</system-out>"
    return (f'  <testcase name={quoteattr(c.name)} classname={quoteattr(c.classname)} '
            f'time="{c.seconds:.3f}">{body}</testcase>')


def write_suite(path: Path, suite: str, cases: Iterable[Case]) -> None:
    cases = list(cases)
    count = {o: sum(1 for c in cases if c.outcome == o) for o in OUTCOMES}
    total = sum(c.seconds for c in cases)
    Path(path).write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name={quoteattr(suite)} tests="{len(cases)}" failures="{count["failure"]}" '
        f'errors="{count["error"]}" skipped="{count["skipped"]}" time="{total:.3f}">\n'
        + "".join(_case_xml(c) + "\n" for c in cases) + "</testsuite>\n", encoding="utf-8")


def tail(log: Optional[Path], lines: int = 200) -> str:
    if not log:
        return ""
    try:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def write_single(path: Path, suite: str, name: str, ok: bool, message: str = "",
                 log: Path = None) -> None:
    """A JUnit file with one test case; a failure carries `message` and the log's last lines."""
    write_suite(path, suite, [Case(suite, name, "passed" if ok else "failure", message,
                                   "" if ok else tail(log))])


def relabel_ctest(path: Path, suite: str) -> None:
    """ctest names every suite "(empty)" and uses the bare test name as class: name the suite
    `suite` and prefix every class with it."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    text = re.sub(r'<testsuite name="[^"]*"', f'<testsuite name="{escape(suite)}"', text, count=1)
    text = text.replace('classname="', f'classname="{escape(suite)}.')
    Path(path).write_text(text, encoding="utf-8")
