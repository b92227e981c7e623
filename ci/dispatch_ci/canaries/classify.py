"""How a failing run failed, read from its own output: a detection (the harness found a bug)
or an error (the run went wrong in a way that proves nothing).

Detections: ASan report, UBSan report, hardened assertion (libstdc++ _GLIBCXX_ASSERTIONS /
libc++), library assertion (DISPATCH_INTERNAL_ASSERT), invariant check, model disagreement,
test expectation (gtest EXPECT/ASSERT). Errors: timeout, out of memory, leak report, bad
option, missing file, crash without a report, unclassified output. Error patterns are looked
for first: a run that also hit a bad option or a timeout proves nothing, whatever else it says.
"""
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

DETECTIONS = ("ASan report", "UBSan report", "hardened assertion", "library assertion",
              "invariant check", "model disagreement", "test expectation")
# Reports that point at the faulty access itself: they must lie in code the patch changed.
AT_THE_ACCESS = ("ASan report", "UBSan report", "hardened assertion")


@dataclass
class Classification:
    kind: str
    detail: str
    frame_file: str = ""      # first frame in our own code (as the report names it), if any
    frame_function: str = ""
    frame_line: int = 0
    via: str = ""             # set by the verdict: the patched function the faulty caller calls

    @property
    def is_detection(self) -> bool:
        return self.kind in DETECTIONS

    def __str__(self) -> str:
        where = f" [at {short_path(self.frame_file)}" if self.frame_file else ""
        if where and self.frame_line:
            where += f":{self.frame_line}"
        if where and self.via:
            where += f", a caller of the patched {self.via}()"
        where += "]" if where else ""
        return f"{self.kind}: {self.detail}{where}"


_ERRORS: List[Tuple[str, re.Pattern]] = [
    ("leak report", re.compile(r"ERROR: LeakSanitizer: |libFuzzer: detected memory leaks")),
    ("out of memory", re.compile(r"ERROR: libFuzzer: out-of-memory|==ERROR: libFuzzer: malloc\(|"
                                 r"allocator is out of memory|requested allocation size .* exceeds|"
                                 r"std::bad_alloc")),
    ("bad option", re.compile(r"WARNING: unrecognized flag|ERROR: unknown flag|"
                              r"ParseDictionaryFile: error|Failed to parse .*options")),
    ("missing file", re.compile(r"No tests were found|Could not find executable|\*\*\*Not Run|"
                                r"Failed to open dictionary|ERROR: The required directory|"
                                r"ERROR: no interesting inputs were found")),
    ("timeout", re.compile(r"ALARM: working on the last Unit|ERROR: libFuzzer: timeout|"
                           r"\*\*\*Timeout|ERROR: libFuzzer: deadly signal.*timeout")),
]
_ASAN = re.compile(r"ERROR: AddressSanitizer: ([A-Za-z_-]+(?: on [a-z-]+)?)")
_UBSAN = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", re.M)
_HARDENED = re.compile(r"include/c\+\+/.*Assertion '(.*)' failed|_LIBCPP_ASSERT|"
                       r"libc\+\+.*assertion.*failed|out-of-bounds access in std::array")
_INTERNAL = re.compile(r"internal assert failed at (\S+?):\d+: (.*)")
_FUZZ_BUG = re.compile(r"==== DISPATCH FUZZ BUG in (.*)")
_RAPIDCHECK = re.compile(r"Falsifiable after ")
_GTEST = re.compile(r"^\[  FAILED  \] ([A-Za-z].*)$", re.M)
_CRASH = re.compile(r"ERROR: libFuzzer: |AddressSanitizer: ABRT|terminate called|Segmentation fault|Aborted|SIGABRT|SIGSEGV")
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (.*?) (/\S+?):(\d+)(?::\d+)?\s*$", re.M)
OWN_DIRS = ("dispatch/", "fuzz/", "properties/")
# The property harness condenses a crash report to our frames, file names without folders:
# "    #5 ns::f(int) const  operator_entry.cpp:503:31".
_CONDENSED_FRAME = re.compile(r"^\s*#\d+ (\S.*?)  ([A-Za-z0-9_.+-]+\.(?:cpp|cc|h|hpp)):(\d+)(?::\d+)?\s*$",
                              re.M)
# The frames of a failed library assertion down to the abort: the access is in the frame after
# the last of them (signal handlers, ours included, sit above them on the printed stack).
_ASSERT_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (?:std::__glibcxx_assert_fail|"
                           r"std::__replacement_assert|std::__libcpp_verbose_abort|"
                           r"std::array<[^\n]*>::operator\[\])\b.*$", re.M)


def _trim(text: str, width: int = 90) -> str:
    return re.sub(r"\s+", " ", text.strip())[:width]


def own_path(path: str) -> Optional[str]:
    """`path` itself when it is in our own code (dispatch/, fuzz/, properties/ of some copy of
    the repository); None for system headers, fetched dependencies (_deps), build folders.
    The whole path is kept: a patch's files are matched against its end."""
    if "/_deps/" in path or path.startswith("/usr/"):
        return None
    return path if any("/" + own in path for own in OWN_DIRS) else None


def short_path(path: str) -> str:
    """For messages: the path from its first own folder on (dispatch/src/x.cpp)."""
    starts = [path.find("/" + own) for own in OWN_DIRS if "/" + own in path]
    return path[min(starts) + 1:] if starts else path


def first_own_frame(text: str, after: int = 0) -> Tuple[str, str, int]:
    """(path, function, line) of the first stack frame in our own code after offset `after`
    (a bare file name for a condensed report); ('', '', 0) when there is none."""
    for m in _FRAME.finditer(text, after):
        path = own_path(m.group(2))
        if path:
            return path, m.group(1), int(m.group(3))
    # A condensed report: a bare file name, resolved against the patched copy by the verdict.
    m = _CONDENSED_FRAME.search(text, after)
    if m:
        return m.group(2), m.group(1), int(m.group(3))
    return "", "", 0


def classify(text: str) -> Classification:
    for kind, pattern in _ERRORS:
        m = pattern.search(text)
        if m:
            return Classification(kind, _trim(text[m.start():].splitlines()[0], 100))
    # handle_abort=1 makes ASan print "ABRT on unknown address" for any abort(): not a memory
    # report; the cause (an assertion, an oracle) is printed before it.
    for m in _ASAN.finditer(text):
        if "ABRT on" not in m.group(1):
            return Classification("ASan report", m.group(1), *first_own_frame(text, m.end()))
    m = _UBSAN.search(text)
    if m:
        file = own_path(m.group(1)) or ""
        return Classification("UBSan report", _trim(m.group(3)), file,
                              frame_line=int(m.group(2)) if file else 0)
    m = _HARDENED.search(text)
    if m:
        start = m.end()
        for frame in _ASSERT_FRAME.finditer(text, m.end()):
            start = frame.end()
        return Classification("hardened assertion", _trim(m.group(1) or m.group(0), 120),
                              *first_own_frame(text, start))
    m = _INTERNAL.search(text)
    if m:
        what = f"{m.group(1).rsplit('/', 1)[-1]}: {_trim(m.group(2), 120)}"
        invariant = re.search(r"checkInvariants|recomputation gives|invariant", text)
        return Classification("invariant check" if invariant else "library assertion", what)
    m = _FUZZ_BUG.search(text)
    if m:
        kind = "invariant check" if "invariant" in m.group(1).lower() else "model disagreement"
        return Classification(kind, _trim(m.group(1), 120))
    if _RAPIDCHECK.search(text):
        line = next((l for l in text.splitlines()
                     if re.match(r"^[^ ].*(RC_ASSERT|RC_FAIL|model|invariant|differs)", l)), "")
        kind = "invariant check" if "invariant" in line.lower() else "model disagreement"
        return Classification(kind, "property: " + _trim(line or "Falsifiable", 80))
    m = _GTEST.search(text)
    if m:
        return Classification("test expectation", _trim(m.group(1), 70))
    m = _CRASH.search(text)
    if m:
        return Classification("crash", _trim(text[m.start():].splitlines()[0], 70),
                              *first_own_frame(text, m.start()))
    last = next((l for l in reversed(text.splitlines()) if l.strip()), "")
    return Classification("unclassified", _trim(last, 70))
