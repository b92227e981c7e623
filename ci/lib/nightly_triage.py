#!/usr/bin/env python3
"""ci/lib/nightly_triage.py -- failure classification and bucketing for ci/nightly.sh.

    nightly_triage.py classify --report FILE [--report-from-log LOG... --artifact PATH]
                               --artifact-kind {crash,leak,timeout,oom} --preset-flavour F
                               [--preset P --target T] [--out JSON]
        Reads the output of a re-run of one failing input (sanitizer env, DISPATCH_FUZZ_TRACE=1)
        and prints the bucket id; --out also gets the whole classification as JSON.
        If the re-run shows no failure, the report printed while fuzzing (the text before
        "Test unit written to <artifact>" in LOG) is used instead, and the kind is marked
        "(unreproducible)".

    nightly_triage.py bucket-json --first JSON [--classification JSON...] --out FILE
                                  [--set KEY=VALUE...] [--notes TEXT...]
        Writes a bucket's bucket.json: the representative classification, every artifact
        that fell into the bucket, notes, and extra fields (--set; JSON values or strings).

    nightly_triage.py ddmin --input FILE --output FILE --bucket ID [--seconds S]
                            --artifact-kind K --preset-flavour F -- COMMAND... @@ ...
        Bucket-preserving delta debugging: shrinks FILE while the re-run (COMMAND with @@
        replaced by the candidate, DISPATCH_FUZZ_TRACE=1) still lands in bucket ID. Used when
        libFuzzer's -minimize_crash drifts to another bug: it compares only the sanitizer's
        DEDUP_TOKEN, the same for every abort().

    nightly_triage.py field JSON DOTTED.FIELD
        Prints one field of a JSON file (for the shell).

Bucket key (harness-notes (c)2 and (d)8: the top frames of every dispatcher bug are the same
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
  action, key, flavour
           from the LAST "DISPATCH-STEP flavour=.. step=.. action=.. key=.. |" line before
           the headline. Targets that log no steps get action "-" and key "-", and the
           flavour of the preset that built the binary.

The top 3 symbolized frames (sanitizer/libFuzzer/libc frames skipped) are reported beside
the bucket, never part of the key. The bucket id is "<slug of the key>-<8 hex of its sha1>".
Standard library only.
"""
import argparse
import hashlib
import json
import os
import re
import sys

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


def headline_patterns():
    """(regex, kind function) pairs; the earliest match in a report wins."""
    def fixed(kind):
        return lambda m, text: kind

    def dispatch_bug(m, text):
        what = m.group("what").strip()
        if "disagree" in what:
            return "dispatcher-model disagreement"
        return what.lower()

    def asan(m, text):
        what = m.group("what")
        return "asan: " + what

    def ubsan(m, text):
        # report_error_type=1 names the check in the SUMMARY line that follows.
        s = re.search(r"SUMMARY: UndefinedBehaviorSanitizer: ([\w-]+)", text[m.start():])
        return "ubsan: " + (s.group(1) if s else "runtime error")

    def assertion(m, text):
        return "assertion '" + m.group("cond").strip() + "'"

    def libfuzzer(m, text):
        return "libfuzzer: " + m.group("what").strip()

    return [
        (re.compile(r"^==== DISPATCH FUZZ BUG in (?P<target>\S+): (?P<what>.*)$", re.M), dispatch_bug),
        (re.compile(r"Assertion [`'](?P<cond>.+?)' failed", re.M), assertion),
        (re.compile(r"libc\+\+.*?: ?assertion (?P<cond>.+?) failed", re.M), assertion),
        (re.compile(r"ERROR: LeakSanitizer: detected memory leaks"), fixed("leak")),
        (re.compile(r"ERROR: AddressSanitizer: (?P<what>[\w-]+)"), asan),
        (re.compile(r"^\S*:\d+:\d+: runtime error: ", re.M), ubsan),
        (re.compile(r"^\S*: runtime error: ", re.M), ubsan),
        (re.compile(r"terminate called after throwing an instance of"), fixed("uncaught exception")),
        (re.compile(r"ALARM: working on the last Unit for|ERROR: libFuzzer: timeout after"),
         fixed("timeout")),
        (re.compile(r"ERROR: libFuzzer: out-of-memory"), fixed("oom")),
        (re.compile(r"ERROR: libFuzzer: deadly signal"), fixed("deadly signal")),
        (re.compile(r"ERROR: libFuzzer: fuzz target exited"), fixed("fuzz target exited")),
        (re.compile(r"ERROR: libFuzzer: (?P<what>[^\n]+)"), libfuzzer),
    ]


def find_headline(text):
    """Returns (position, kind, headline line) of the earliest failure headline, or None."""
    best = None
    for regex, kind_of in headline_patterns():
        m = regex.search(text)
        if m and (best is None or m.start() < best[0]):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.start())
            line = text[line_start:line_end if line_end >= 0 else len(text)].strip()
            best = (m.start(), kind_of(m, text), line)
    return best


def short_function(func):
    """'ns::f<T>(int, x) const' -> 'ns::f<T>' (drops the parameter list)."""
    depth = 0
    for i, ch in enumerate(func):
        if ch in "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0 and not func.startswith("operator()", i - 8):
            # keep "operator()" names whole
            return func[:i]
    return func


def top_frames(text, start, count=3):
    """The first `count` non-runtime frames of the first stack trace after `start`."""
    frames = []
    in_trace = False
    for line in text[start:].splitlines():
        m = FRAME.match(line)
        if not m:
            if in_trace and frames:
                break
            if in_trace:
                in_trace = False
            continue
        in_trace = True
        func = (m.group("func") or "").strip()
        loc = m.group("loc").strip("()")
        if not func or RUNTIME_FRAME.match(func) or RUNTIME_LOCATION.search(loc):
            continue
        loc_short = re.sub(r"^.*/", "", loc)
        frames.append({"function": short_function(func), "location": loc_short, "raw": line.strip()})
        if len(frames) >= count:
            break
    return frames


CRASH_KINDS = re.compile(r"^(asan: |ubsan: |assertion |deadly signal)")
SYSTEM_LOCATION = re.compile(r"(^/usr/(include|lib)/|/include/c\+\+/|/bits/)")


def is_crash(kind):
    return bool(CRASH_KINDS.match(kind))


def crash_site(text, start):
    """The first frame of the project's own code (not the standard library's) after `start`."""
    for frame in top_frames(text, start, count=12):
        location = frame["raw"].rsplit(" ", 1)[-1]
        if not SYSTEM_LOCATION.search(location):
            return frame["function"].replace("dispatch::", "")
    return None


def report_from_log(log_path, artifact):
    """The report libFuzzer printed for `artifact` while fuzzing (before 'Test unit written')."""
    try:
        with open(log_path, "r", errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    name = os.path.basename(artifact)
    end = text.find(name)
    while end >= 0 and "Test unit written" not in text[text.rfind("\n", 0, end):end]:
        end = text.find(name, end + 1)
    if end < 0:
        return ""
    # From the last status line ("#N ...") or start before the report.
    begin = max(text.rfind("\n#", 0, end), 0)
    return text[begin:end]


def slug(text, limit):
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:limit].strip("-") or "none"


def classify(report_text, artifact_kind, preset_flavour, fallback_text=""):
    reproduced = True
    head = find_headline(report_text)
    text = report_text
    if head is None and fallback_text:
        head = find_headline(fallback_text)
        text = fallback_text
        reproduced = False
    if head is None:
        reproduced = False
        pos, kind, headline = len(text), artifact_kind, "(no report: the input did not fail again)"
    else:
        pos, kind, headline = head
    # libFuzzer reports a leak/timeout/oom it detected itself under that name; trust the file
    # name when the text is only the generic deadly-signal line.
    if artifact_kind in ("leak", "timeout", "oom") and kind in ("deadly signal",):
        kind = artifact_kind
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
        # e.g. "WRITE of size 8 at 0x... thread T0" after an ASan headline
        m = re.search(r"^(READ|WRITE) of size \d+", text[pos:], re.M)
        if m:
            detail = m.group(0)

    frames = top_frames(text, pos if head is not None else 0)
    site = crash_site(text, pos) if head is not None and is_crash(kind) else None
    key_tuple = [kind, f"crash in {site}", "any", flavour] if site else [kind, action, key, flavour]
    action, key = key_tuple[1], key_tuple[2]
    key_str = " | ".join(key_tuple)
    digest = hashlib.sha1(key_str.encode()).hexdigest()[:8]
    bucket_id = "-".join([slug(kind, 40), slug(action, 48 if site else 24), slug(key, 24),
                          slug(flavour, 10)]) + "-" + digest
    return {
        "bucket_id": bucket_id,
        "key": {"kind": kind, "action": action, "dispatch_key": key, "flavour": flavour},
        "key_string": key_str,
        "headline": headline,
        "detail": detail,
        "reproduced": reproduced,
        "last_step": step,
        "steps_logged": len(steps),
        "frames": frames,
    }


def read(path):
    with open(path, "r", errors="replace") as f:
        return f.read()


def cmd_classify(args):
    report = read(args.report) if args.report and os.path.exists(args.report) else ""
    fallback = ""
    if args.report_from_log:
        for log in args.report_from_log:
            fallback = report_from_log(log, args.artifact or "")
            if fallback:
                break
    result = classify(report, args.artifact_kind, args.preset_flavour, fallback)
    result["preset"] = args.preset
    result["target"] = args.target
    if not result["reproduced"] and fallback:
        result["fuzz_log_report"] = fallback
    if args.artifact:
        result["artifact"] = args.artifact
        try:
            result["artifact_size"] = os.path.getsize(args.artifact)
        except OSError:
            pass
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    print(result["bucket_id"])
    return 0


def cmd_bucket_json(args):
    classifications = []
    for path in [args.first] + (args.classification or []):
        with open(path) as f:
            classifications.append(json.load(f))
    rep = dict(classifications[0])
    rep["artifacts"] = [{k: c.get(k) for k in ("artifact", "artifact_size", "preset", "target",
                                               "bucket_id", "reproduced")}
                        for c in classifications]
    rep["notes"] = args.notes or []
    for item in args.set or []:
        k, _, v = item.partition("=")
        try:
            rep[k] = json.loads(v)
        except ValueError:
            rep[k] = v
    with open(args.out, "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    return 0


def run_and_classify(command, data, path, kind, preset_flavour, timeout):
    """Writes data to path, runs command (its "@@" replaced by path), returns the bucket id."""
    import subprocess
    with open(path, "wb") as f:
        f.write(data)
    env = dict(os.environ)
    env["DISPATCH_FUZZ_TRACE"] = "1"
    # Frames are not part of the key: skip symbolization, it is most of a re-run's time.
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        env[var] = (env.get(var, "") + ":symbolize=0").lstrip(":")
    cmd = [path if a == "@@" else a for a in command]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             timeout=timeout, stdin=subprocess.DEVNULL).stdout
    except subprocess.TimeoutExpired:
        return None
    text = out.decode(errors="replace")
    if find_headline(text) is None:
        return None
    return classify(text, kind, preset_flavour)["bucket_id"]


def cmd_ddmin(args):
    """Bucket-preserving delta debugging: the smallest input (within --seconds) that still
    fails in the SAME bucket. libFuzzer's -minimize_crash compares only the sanitizer's
    DEDUP_TOKEN, which is the same for every abort() (the harness's own reports, library
    assertions), so it readily drifts to another bug (harness-notes (c)3)."""
    import time
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    with open(args.input, "rb") as f:
        data = f.read()
    deadline = time.monotonic() + args.seconds
    tmp = args.output + ".candidate"
    tests = 0

    def same(candidate):
        nonlocal tests
        tests += 1
        return run_and_classify(command, candidate, tmp, args.artifact_kind, args.preset_flavour,
                                args.timeout) == args.bucket

    if not same(data):
        print(f"ddmin: the input does not reproduce bucket {args.bucket}; nothing to do")
        return 1
    n = 2
    while len(data) >= 2 and time.monotonic() < deadline:
        chunk = -(-len(data) // n)
        for i in range(n):
            candidate = data[:i * chunk] + data[(i + 1) * chunk:]
            if candidate and time.monotonic() < deadline and same(candidate):
                data = candidate
                n = max(n - 1, 2)
                break
        else:
            if n >= len(data):
                break
            n = min(len(data), n * 2)
    # one pass of single-byte simplification towards 0 (smaller action/key indices)
    for i in range(len(data)):
        if time.monotonic() >= deadline or data[i] == 0:
            continue
        candidate = data[:i] + b"\0" + data[i + 1:]
        if same(candidate):
            data = candidate
    try:
        os.remove(tmp)
    except OSError:
        pass
    with open(args.output, "wb") as f:
        f.write(data)
    print(f"ddmin: {os.path.getsize(args.input)} -> {len(data)} bytes in {tests} runs")
    return 0


def cmd_field(args):
    """Prints one (dotted) field of a JSON file, for the shell."""
    with open(args.json) as f:
        value = json.load(f)
    for part in args.field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    print("" if value is None else (value if isinstance(value, str) else json.dumps(value)))
    return 0


def main():
    ap = argparse.ArgumentParser(description="failure classification for ci/nightly.sh")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("classify")
    c.add_argument("--report")
    c.add_argument("--report-from-log", action="append")
    c.add_argument("--artifact")
    c.add_argument("--artifact-kind", default="crash")
    c.add_argument("--preset-flavour", default="-")
    c.add_argument("--preset", default="")
    c.add_argument("--target", default="")
    c.add_argument("--out")
    c.set_defaults(fn=cmd_classify)
    b = sub.add_parser("bucket-json")
    b.add_argument("--first", required=True, help="the representative's classification")
    b.add_argument("--classification", nargs="*", help="the other members' classifications")
    b.add_argument("--notes", nargs="*")
    b.add_argument("--out", required=True)
    b.add_argument("--set", action="append")
    b.set_defaults(fn=cmd_bucket_json)
    d = sub.add_parser("ddmin")
    d.add_argument("--input", required=True)
    d.add_argument("--output", required=True)
    d.add_argument("--bucket", required=True)
    d.add_argument("--seconds", type=float, default=60)
    d.add_argument("--timeout", type=float, default=60, help="per run")
    d.add_argument("--artifact-kind", default="crash")
    d.add_argument("--preset-flavour", default="-")
    d.add_argument("command", nargs=argparse.REMAINDER, help="-- re-run command, @@ = the input")
    d.set_defaults(fn=cmd_ddmin)
    g = sub.add_parser("field")
    g.add_argument("json")
    g.add_argument("field")
    g.set_defaults(fn=cmd_field)
    args = ap.parse_args()
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
