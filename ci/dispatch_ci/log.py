"""Progress lines in the one format every job prints: `==> [ci/<job>.sh HH:MM:SS] message`."""
import sys
import time


class Say:
    """say("...") prints a timestamped progress line tagged with the job's script name."""

    def __init__(self, tag: str, stream=None):
        self.tag = tag
        self.stream = stream

    def __call__(self, message: str) -> None:
        stream = self.stream or sys.stdout
        stamp = time.strftime("%H:%M:%S", time.gmtime())
        print(f"==> [{self.tag} {stamp}] {message}", file=stream, flush=True)


def error(tag: str, message: str) -> None:
    print(f"{tag}: {message}", file=sys.stderr, flush=True)


class UsageError(Exception):
    """Bad command-line input: the job prints the message and exits 2."""
