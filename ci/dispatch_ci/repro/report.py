"""What a reproduction run printed: the failure headline, the harness's detail line, the last
dispatcher step and the top frames in this project's code."""
import re
from typing import List

HEADLINE = re.compile(r"^(==[0-9]+==ERROR: |==== DISPATCH FUZZ BUG|.*runtime error: |.*Assertion .* failed|"
                      r".*assertion .* failed|WARNING: ThreadSanitizer|==[0-9]+== ERROR: libFuzzer|"
                      r"terminate called|.*LeakSanitizer)")
UNSYMBOLIZED = re.compile(r"^ +#[0-9]+ 0x[0-9a-f]+ +\(")
HARNESS_FRAMES = re.compile(r"fuzz_target\.cpp|replay_main\.cpp")


def headline(text: str) -> str:
    return next((l for l in text.splitlines() if HEADLINE.match(l)), "")


def detail(text: str) -> str:
    """The line after "==== DISPATCH FUZZ BUG" (what differed)."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("==== DISPATCH FUZZ BUG"):
            return lines[i + 1]
    return ""


def last_step(text: str) -> str:
    steps = [l for l in text.splitlines() if l.startswith("DISPATCH-STEP ")]
    return steps[-1] if steps else ""


def project_frames(text: str, root: str, limit: int = 6) -> List[str]:
    """Frames with a source line in this repository (not the replay main or libFuzzer driver)."""
    frame = re.compile(r"^ +#[0-9]+ 0x[0-9a-f]+ in .* " + re.escape(root) + r"/[^ ]+\.(cpp|cc|h):[0-9]+")
    return [l for l in text.splitlines() if frame.match(l) and not HARNESS_FRAMES.search(l)][:limit]


def unsymbolized(text: str) -> int:
    return sum(1 for l in text.splitlines() if UNSYMBOLIZED.match(l))
