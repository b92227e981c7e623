"""JUnit files: one-test files for steps that are not ctest runs, and ctest's own files
relabelled so that files from several runs do not collide."""
import re
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


def _tail(log: Path, lines: int = 200) -> str:
    try:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def write_single(path: Path, suite: str, name: str, ok: bool, message: str = "",
                 log: Path = None) -> None:
    """A JUnit file with one test case; a failure carries `message` and the log's last lines."""
    body = ""
    if not ok:
        details = _tail(log).replace("]]>", "]] >") if log else ""
        body = f"<failure message={quoteattr(message)}><![CDATA[{details}]]></failure>"
    Path(path).write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name={quoteattr(suite)} tests="1" failures="{0 if ok else 1}" errors="0" skipped="0">\n'
        f'  <testcase name={quoteattr(name)} classname={quoteattr(suite)}>{body}</testcase>\n'
        "</testsuite>\n", encoding="utf-8")


def relabel_ctest(path: Path, suite: str) -> None:
    """ctest names every suite "(empty)" and uses the bare test name as class: name the suite
    `suite` and prefix every class with it."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    text = re.sub(r'<testsuite name="[^"]*"', f'<testsuite name="{escape(suite)}"', text, count=1)
    text = text.replace('classname="', f'classname="{escape(suite)}.')
    Path(path).write_text(text, encoding="utf-8")
