#!/usr/bin/env python3
"""ci/lib/nightly_run.py -- run one fuzzer process for ci/nightly.sh, with a timeline.

    nightly_run.py --log FILE [--timeline FILE] [--kill-after SECONDS] -- COMMAND [ARG...]

Runs COMMAND with stdout and stderr merged, copies every line to --log as it comes, and
writes each libFuzzer status line ("#1234  NEW  cov: 56 ft: 78 corp: 9/10b ...") to
--timeline prefixed with the seconds since the start ("12.345<TAB>#1234 ..."), so that
ci/lib/nightly_report.py can plot coverage and corpus size over time (libFuzzer's own lines
carry no time). --kill-after is a hard wall-clock limit: SIGTERM, then SIGKILL 5 s later
(libFuzzer's -max_total_time is the normal stop; this only catches a hang in start-up or
in the final stats). SIGTERM/SIGINT to this script are passed on to COMMAND.

Exits with COMMAND's exit code (128+N when it died of signal N; 124 when --kill-after hit).
Standard library only.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

STATUS = re.compile(rb"^#\d+\s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeline")
    ap.add_argument("--kill-after", type=float, default=0.0)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command given (put it after --)")

    start = time.monotonic()
    try:
        # Own process group, so that a hard stop also ends what the fuzzer started itself.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        with open(args.log, "w") as log:
            log.write(f"nightly_run.py: cannot run {cmd[0]}: {e}\n")
        if args.timeline:
            open(args.timeline, "w").close()
        return 127
    killed = {"hard": False}

    def signal_group(signum):
        try:
            os.killpg(proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def forward(signum, _frame):
        if proc.poll() is None:
            signal_group(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    def watchdog():
        deadline = start + args.kill_after
        while proc.poll() is None:
            if time.monotonic() >= deadline:
                killed["hard"] = True
                signal_group(signal.SIGTERM)
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    signal_group(signal.SIGKILL)
                return
            time.sleep(0.5)

    if args.kill_after > 0:
        threading.Thread(target=watchdog, daemon=True).start()

    timeline = open(args.timeline, "wb") if args.timeline else None
    with open(args.log, "wb") as log:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            log.write(line)
            log.flush()
            if timeline is not None and STATUS.match(line):
                timeline.write(b"%.3f\t" % (time.monotonic() - start) + line.rstrip(b"\n") + b"\n")
                timeline.flush()
    if timeline is not None:
        timeline.close()
    rc = proc.wait()
    if killed["hard"]:
        return 124
    return 128 - rc if rc < 0 else rc


if __name__ == "__main__":
    sys.exit(main())
