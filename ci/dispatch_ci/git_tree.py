"""The commit a measurement ran on, as results files record it."""
import os

from . import paths, procs


def commit() -> str:
    """HEAD, with '+changes' when the working tree differs from it (the measured tree). In a
    checkout without git history (actions/checkout in a bare container) the workflow's GITHUB_SHA."""
    try:
        head = procs.capture(["git", "-C", paths.ROOT, "rev-parse", "--short=10", "HEAD"])
    except OSError:   # no git at all
        head = None
    if head is None or head.returncode != 0:
        return os.environ.get("GITHUB_SHA", "")[:10] or "unknown"
    dirty = procs.capture(["git", "-C", paths.ROOT, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    return head.stdout.strip() + ("+changes" if dirty else "")
