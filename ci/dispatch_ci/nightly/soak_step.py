"""A nightly step: the concurrency soak (fuzz/soak/, ctest concurrency_soak) under full-tsan for
--soak-seconds (default 60; 0 skips it): writers register and drop while readers call, checked
against the reference model at checkpoints and at the end (the test's header says how).

Verdict (soak_result): ok only when the test passed and every flavour of the tree (its
flavours.tsv: the declared ones and any drawn) printed its summary line with calls,
registrations and checkpoints above zero; a ThreadSanitizer report, a failed
expectation (a model disagreement) or any other non-zero exit is FAILED; a run over its time
limit is INCONCLUSIVE; a run that printed no summary ran nothing and is FAILED. All three turn
the night red.
"""
import os
import re
import time
from typing import Sequence, Tuple

from .. import flavours as flavour_list
from .. import procs
from . import build_step
from .context import Night

PRESET = "full-tsan"
TARGET = "concurrency_soak"
_SUMMARY = re.compile(r"^([a-z][a-z0-9_]*): (\d+) calls, (\d+) registrations, (\d+) checkpoints", re.M)


def add_arguments(p) -> None:
    p.add_argument("--soak-seconds", type=int, default=60, metavar="SECONDS",
                   help="the TSan concurrency soak's length under full-tsan (default 60; 0 skips it)")


def soak_result(returncode: int, timed_out: bool, output: str, limit: int,
                flavours: Sequence[str]) -> Tuple[str, str]:
    """(step result, detail) from the soak binary's exit code and output; `flavours` are the
    tree's, each of which must report."""
    if not flavours:
        return "FAILED", "no flavours known for the tree: nothing to check the soak against"
    if timed_out:
        return "INCONCLUSIVE", f"the soak did not finish within {limit}s"
    tsan = re.search(r"^SUMMARY: ThreadSanitizer: (.*)$", output, re.M)
    if tsan or "WARNING: ThreadSanitizer:" in output:
        return "FAILED", f"ThreadSanitizer report: {tsan.group(1) if tsan else 'see the log'}"
    if returncode != 0:
        # The test's first problem line ("<flavour>: <when>: ..."), else gtest's failure line.
        names = "|".join(re.escape(f) for f in flavours)
        failure = re.search(rf"^({names}): (?!\d+ calls).*$", output, re.M) or \
            re.search(r"^.*Failure$", output, re.M)
        return "FAILED", f"exit {returncode}: {failure.group(0).strip()[:200] if failure else 'see the log'}"
    counts = {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in _SUMMARY.finditer(output)}
    missing = [f for f in flavours if f not in counts or 0 in counts[f]]
    if missing:
        return "FAILED", f"no summary with calls, registrations and checkpoints for {', '.join(missing)}: ran nothing"
    return "ok", "; ".join(f"{f}: {c[0]} calls, {c[1]} registrations, {c[2]} checkpoints"
                           for f, c in sorted(counts.items()))


def run(night: Night, seconds: int) -> None:
    folder = night.folder
    if seconds <= 0:
        folder.record_step("tsan soak", "skipped", 0, "--soak-seconds 0")
        return
    start = time.time()
    log = night.log("tsan-soak.log")
    build_dir = night.build_dir(PRESET)
    limit = seconds * 4 + 300   # TSan start-up and the checkpoints on a loaded machine
    night.say(f"tsan soak: {TARGET} under {PRESET} for {seconds}s (log: {folder.rel}/logs/tsan-soak.log)")
    if not build_step.configure(night, PRESET, log):
        result, detail = "FAILED", "configure failed"
    elif not procs.run(["cmake", "--build", build_dir, "-j", str(night.options.jobs), "--target", TARGET],
                       log=log, append=True).ok:
        result, detail = "FAILED", "build failed (logs/tsan-soak.log)"
    else:
        env = dict(night.env, DISPATCH_SOAK_SECONDS=str(seconds))
        binary = build_dir / "fuzz" / "soak" / TARGET
        r = procs.run([binary], log=log, append=True, env=env, timeout=limit)
        output = log.read_text(errors="replace") if os.path.exists(log) else ""
        names = [f.name for f in flavour_list.of_build(build_dir)]
        result, detail = soak_result(r.returncode, r.timed_out, output, limit, names)
    folder.record_step("tsan soak", result, int(time.time() - start), detail)
    night.say(f"tsan soak: {result} ({detail})")
