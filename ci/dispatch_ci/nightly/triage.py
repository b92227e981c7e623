"""Failure classification and bucketing: which bug a failing input's re-run shows.

Bucket key (docs/harness.md §8 and (d)8: the top frames of every dispatcher bug are the same
few lookup functions, so the stack alone cannot tell bugs apart):

    (failure kind, operator action, dispatch key, flavour)

except for crashes (sanitizer reports, assertions, deadly signals), where one bug is reached
through many actions and keys (#74963 overflows from Library::fallback and from the start-up
fallbacks alike, on whichever slotless key): their key is

    (failure kind, "crash in <first frame of our own code>", "any", flavour)

  kind     from the report's first headline: "asan: <error type>", "ubsan: <check>",
           "assertion '<condition>'" (libstdc++/libc++ hardening, assert()),
           "dispatcher-model disagreement" / "library error" (the harness's own oracle,
           "==== DISPATCH FUZZ BUG"), "leak", "timeout", "oom", "deadly signal",
           "uncaught exception", "fuzz target exited", "libfuzzer: <what>".
  known upstream
           a report that shows a known upstream bug of c10 (ci/dispatch_ci/c10_known.py) gets
           action "known upstream <id>" and key "any"; history marks its bucket known upstream.
  action, key, flavour
           from the LAST "DISPATCH-STEP flavour=.. step=.. action=.. key=.. |" line before
           the headline. Targets that log no steps get action "-" and key "-", and the
           flavour of the preset that built the binary.

The top 3 symbolized frames (sanitizer/libFuzzer/libc frames skipped) are reported beside the
bucket, never part of the key. The bucket id is "<slug of the key>-<8 hex of its sha1>".
"""
import hashlib
import os
import re
from typing import List, Optional, Tuple

from .. import c10_known
from ..recorder import flight_recorder_block

ARTIFACT_KINDS = ("crash", "leak", "timeout", "oom")

# Action names may contain spaces ("library fallthrough"); key names never do.
STEP = re.compile(r"^DISPATCH-STEP flavour=(?P<flavour>\S+) step=(?P<step>\d+) "
                  r"action=(?P<action>.+?) key=(?P<key>\S+) \| ?(?P<what>.*)$", re.M)
FRAME = re.compile(r"^\s*#(?P<n>\d+) 0x[0-9a-fA-F]+ (?:in (?P<func>.+?) )?(?P<loc>\(.*\)|\S+)$")

# Frames that belong to the runtime, not to the code under test.
RUNTIME_FRAME = re.compile(
    r"^(__sanitizer|__asan|__ubsan|__lsan|__interceptor|__libc|__GI_|__assert_fail|"
    r"__pthread|_start|raise$|abort$|gsignal|fuzzer::|std::__replacement_assert|"
    r"std::__glibcxx_assert_fail|std::__1::__libcpp_verbose_abort|__cxa_|__gxx_|"
    r"std::terminate|operator new|operator delete|malloc$|calloc$|realloc$|free$|"
    r"LLVMFuzzerRunDriver|main$)")
RUNTIME_LOCATION = re.compile(r"(libc\.so|libstdc\+\+\.so|libc\+\+|ld-linux|compiler-rt|"
                              r"/sanitizer_common/|/asan/|/ubsan/|/lsan/|/fuzzer/Fuzzer)")
CRASH_KINDS = re.compile(r"^(asan: |ubsan: |assertion |deadly signal)")
SYSTEM_LOCATION = re.compile(r"(^/usr/(include|lib)/|/include/c\+\+/|/bits/)")


def artifact_kind(path: str) -> str:
    """libFuzzer's artifact prefix names the kind: leak-, timeout-, oom-; the rest are crashes."""
    base = os.path.basename(path)
    for kind in ("leak", "timeout", "oom"):
        if base.startswith(kind + "-"):
            return kind
    return "crash"


def _headline_patterns():
    """(regex, kind function) pairs; the earliest match in a report wins."""
    def fixed(kind):
        return lambda m, text: kind

    def dispatch_bug(m, text):
        what = m.group("what").strip()
        return "dispatcher-model disagreement" if "disagree" in what else what.lower()

    def ubsan(m, text):
        # report_error_type=1 names the check in the SUMMARY line that follows.
        s = re.search(r"SUMMARY: UndefinedBehaviorSanitizer: ([\w-]+)", text[m.start():])
        return "ubsan: " + (s.group(1) if s else "runtime error")

    def assertion(m, text):
        return "assertion '" + m.group("cond").strip() + "'"

    return [
        (re.compile(r"^==== DISPATCH FUZZ BUG in (?P<target>\S+): (?P<what>.*)$", re.M), dispatch_bug),
        (re.compile(r"Assertion [`'](?P<cond>.+?)' failed", re.M), assertion),
        (re.compile(r"libc\+\+.*?: ?assertion (?P<cond>.+?) failed", re.M), assertion),
        (re.compile(r"ERROR: LeakSanitizer: detected memory leaks"), fixed("leak")),
        (re.compile(r"ERROR: AddressSanitizer: (?P<what>[\w-]+)"), lambda m, t: "asan: " + m.group("what")),
        (re.compile(r"^\S*:\d+:\d+: runtime error: ", re.M), ubsan),
        (re.compile(r"^\S*: runtime error: ", re.M), ubsan),
        (re.compile(r"terminate called after throwing an instance of"), fixed("uncaught exception")),
        (re.compile(r"ALARM: working on the last Unit for|ERROR: libFuzzer: timeout after"),
         fixed("timeout")),
        (re.compile(r"ERROR: libFuzzer: out-of-memory"), fixed("oom")),
        (re.compile(r"ERROR: libFuzzer: deadly signal"), fixed("deadly signal")),
        (re.compile(r"ERROR: libFuzzer: fuzz target exited"), fixed("fuzz target exited")),
        (re.compile(r"ERROR: libFuzzer: (?P<what>[^\n]+)"),
         lambda m, t: "libfuzzer: " + m.group("what").strip()),
    ]


HEADLINES = _headline_patterns()


def find_headline(text: str) -> Optional[Tuple[int, str, str]]:
    """(position, kind, headline line) of the earliest failure headline, or None."""
    best = None
    for regex, kind_of in HEADLINES:
        m = regex.search(text)
        if m and (best is None or m.start() < best[0]):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.start())
            line = text[line_start:line_end if line_end >= 0 else len(text)].strip()
            best = (m.start(), kind_of(m, text), line)
    return best


def short_function(func: str) -> str:
    """'ns::f<T>(int, x) const' -> 'ns::f<T>' (drops the parameter list)."""
    depth = 0
    for i, ch in enumerate(func):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0 and not func.startswith("operator()", i - 8):
            return func[:i]   # "operator()" names stay whole
    return func


def top_frames(text: str, start: int, count: int = 3) -> List[dict]:
    """The first `count` non-runtime frames of the first stack trace after `start`."""
    frames = []
    in_trace = False
    for line in text[start:].splitlines():
        m = FRAME.match(line)
        if not m:
            if in_trace and frames:
                break
            in_trace = False
            continue
        in_trace = True
        func = (m.group("func") or "").strip()
        loc = m.group("loc").strip("()")
        if not func or RUNTIME_FRAME.match(func) or RUNTIME_LOCATION.search(loc):
            continue
        frames.append({"function": short_function(func), "location": re.sub(r"^.*/", "", loc),
                       "raw": line.strip()})
        if len(frames) >= count:
            break
    return frames


def is_crash(kind: str) -> bool:
    return bool(CRASH_KINDS.match(kind))


def crash_site(text: str, start: int) -> Optional[str]:
    """The first frame of the project's own code (not the standard library's) after `start`."""
    for frame in top_frames(text, start, count=12):
        if not SYSTEM_LOCATION.search(frame["raw"].rsplit(" ", 1)[-1]):
            return frame["function"].replace("dispatch::", "")
    return None


def report_from_log(log_text: str, artifact: str) -> str:
    """The report libFuzzer printed for `artifact` while fuzzing (before 'Test unit written')."""
    name = os.path.basename(artifact)
    if not name:
        return ""
    end = log_text.find(name)
    while end >= 0 and "Test unit written" not in log_text[log_text.rfind("\n", 0, end):end]:
        end = log_text.find(name, end + 1)
    if end < 0:
        return ""
    # From the last status line ("#N ...") or the start, up to the artifact line.
    begin = max(log_text.rfind("\n#", 0, end), 0)
    return log_text[begin:end]


def slug(text: str, limit: int) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:limit].strip("-") or "none"


def bucket_id_of(kind: str, action: str, key: str, flavour: str, crash: bool) -> Tuple[str, str]:
    """(bucket id, key string) of a bucket key."""
    key_str = " | ".join([kind, action, key, flavour])
    digest = hashlib.sha1(key_str.encode()).hexdigest()[:8]
    bucket = "-".join([slug(kind, 40), slug(action, 48 if crash else 24), slug(key, 24),
                       slug(flavour, 10)]) + "-" + digest
    return bucket, key_str


def classify(report_text: str, kind_from_artifact: str, preset_flavour: str,
             fallback_text: str = "") -> dict:
    """The classification of one re-run's output. `fallback_text` (the report printed while
    fuzzing) is used when the re-run shows no failure; the kind is then "(unreproducible)"."""
    reproduced = True
    head = find_headline(report_text)
    text = report_text
    if head is None and fallback_text:
        head = find_headline(fallback_text)
        text = fallback_text
        reproduced = False
    if head is None:
        reproduced = False
        pos, kind, headline = len(text), kind_from_artifact, "(no report: the input did not fail again)"
    else:
        pos, kind, headline = head
    # libFuzzer reports a leak/timeout/oom it detected itself under that name; trust the file
    # name when the text is only the generic deadly-signal line.
    if kind_from_artifact in ("leak", "timeout", "oom") and kind == "deadly signal":
        kind = kind_from_artifact
    if not reproduced:
        kind += " (unreproducible)"

    steps = [m for m in STEP.finditer(text) if m.start() < pos]
    if steps:
        last = steps[-1]
        action, key, flavour = last.group("action"), last.group("key"), last.group("flavour")
        step = {"flavour": flavour, "step": int(last.group("step")), "action": action,
                "key": key, "what": last.group("what").strip(), "line": last.group(0).strip()}
    else:
        action, key, flavour = "-", "-", preset_flavour
        step = None

    detail = ""
    m = re.search(r"^==== DISPATCH FUZZ BUG in \S+: .*\n(?P<d>.*)$", text, re.M)
    if m:
        detail = m.group("d").strip()
    elif head is not None:
        m = re.search(r"^(READ|WRITE) of size \d+", text[pos:], re.M)   # after an ASan headline
        if m:
            detail = m.group(0)

    frames = top_frames(text, pos if head is not None else 0)
    site = crash_site(text, pos) if head is not None and is_crash(kind) else None
    if site:
        action, key = f"crash in {site}", "any"
    # A known upstream bug of c10 is one bucket, whichever action and key showed it.
    known = c10_known.known_bug(text[pos:]) if head is not None else None
    if known:
        action, key = f"known upstream {known}", "any"
    bucket, key_str = bucket_id_of(kind, action, key, flavour, crash=bool(site))
    return {
        "bucket_id": bucket,
        "key": {"kind": kind, "action": action, "dispatch_key": key, "flavour": flavour},
        "key_string": key_str,
        "headline": headline,
        "detail": detail,
        "reproduced": reproduced,
        "last_step": step,
        "steps_logged": len(steps),
        "frames": frames,
        "flight_recorder": flight_recorder_block(text),
        "known_upstream": known or "",
    }


def bucket_record(first: dict, others: List[dict], notes: List[str], fields: dict) -> dict:
    """A bucket's bucket.json: the representative's classification, every artifact that fell
    into the bucket (the representative first), notes and extra fields."""
    record = dict(first)
    record["artifacts"] = [{k: c.get(k) for k in ("artifact", "artifact_size", "preset", "target",
                                                  "bucket_id", "reproduced")}
                           for c in [first, *others]]
    record["notes"] = list(notes)
    record.update(fields)
    return record


class Buckets:
    """Artifacts grouped by bucket id, in the order their buckets were first seen; each
    bucket's representative is its smallest artifact (the first one on a tie)."""

    def __init__(self):
        self.order: List[str] = []
        self.members = {}
        self.representative = {}

    def add(self, bucket_id: str, artifact: str, size: int, classification_file: str) -> None:
        if bucket_id not in self.members:
            self.order.append(bucket_id)
            self.members[bucket_id] = []
            self.representative[bucket_id] = (artifact, size, classification_file)
        elif size < self.representative[bucket_id][1]:
            self.representative[bucket_id] = (artifact, size, classification_file)
        self.members[bucket_id].append(classification_file)

    def __len__(self) -> int:
        return len(self.order)
