"""Bucket-preserving delta debugging: the smallest input (within a time limit) that still
fails in the SAME bucket.

Used when libFuzzer's -minimize_crash drifts to another bug: it compares only the sanitizer's
DEDUP_TOKEN, which is the same for every abort() (the harness's own reports, library
assertions), so it readily lands on another bucket (docs/harness.md §8).
"""
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

from . import triage


@dataclass
class Shrunk:
    data: bytes
    tests: int
    reproduced: bool   # False: the original input did not land in the bucket; nothing done


def ddmin(data: bytes, same_bucket: Callable[[bytes], bool], seconds: float,
          clock: Callable[[], float] = time.monotonic) -> Shrunk:
    """Removes chunks while `same_bucket(candidate)` holds (classic ddmin over bytes), then
    tries each byte at 0 (smaller action and key indices). Stops at the deadline; what it has
    then is still a valid (same-bucket) input."""
    deadline = clock() + seconds
    tests = 0

    def same(candidate: bytes) -> bool:
        nonlocal tests
        tests += 1
        return same_bucket(candidate)

    if not same(data):
        return Shrunk(data, tests, False)
    n = 2
    while len(data) >= 2 and clock() < deadline:
        chunk = -(-len(data) // n)
        for i in range(n):
            candidate = data[:i * chunk] + data[(i + 1) * chunk:]
            if candidate and clock() < deadline and same(candidate):
                data = candidate
                n = max(n - 1, 2)
                break
        else:
            if n >= len(data):
                break
            n = min(len(data), n * 2)
    for i in range(len(data)):
        if clock() >= deadline:
            break
        if data[i] == 0:
            continue
        candidate = data[:i] + b"\0" + data[i + 1:]
        if same(candidate):
            data = candidate
    return Shrunk(data, tests, True)


def rerun_bucket(command: List[str], data: bytes, path: str, kind: str, preset_flavour: str,
                 timeout: float, env: dict) -> Optional[str]:
    """Writes `data` to `path`, runs `command` ("@@" = path) with DISPATCH_FUZZ_TRACE=1 and
    returns the bucket id its output lands in (None: no failure, or it hung)."""
    with open(path, "wb") as f:
        f.write(data)
    env = dict(env)
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
    if triage.find_headline(text) is None:
        return None
    return triage.classify(text, kind, preset_flavour)["bucket_id"]


def minimize_keeping_bucket(input_path: str, output_path: str, bucket: str, command: List[str],
                            kind: str, preset_flavour: str, seconds: float, env: dict,
                            timeout: float = 60, log=None) -> bool:
    """ddmin of `input_path` into `output_path`; False when the input does not reproduce the
    bucket (nothing is written then)."""
    with open(input_path, "rb") as f:
        data = f.read()
    scratch = output_path + ".candidate"
    result = ddmin(data, lambda c: rerun_bucket(command, c, scratch, kind, preset_flavour,
                                                timeout, env) == bucket, seconds)
    try:
        os.remove(scratch)
    except OSError:
        pass
    if not result.reproduced:
        if log:
            log.write(f"ddmin: the input does not reproduce bucket {bucket}; nothing to do\n")
        return False
    with open(output_path, "wb") as f:
        f.write(result.data)
    if log:
        log.write(f"ddmin: {len(data)} -> {len(result.data)} bytes in {result.tests} runs\n")
    return True
