"""The commit a measurement ran on, as results files record it."""
import os
from pathlib import Path
from typing import Optional, Sequence

from . import paths, procs


def _git(args: Sequence[str], root: Path) -> Optional[str]:
    """git's output, or None without git or outside a repository."""
    try:
        result = procs.capture(["git", "-C", root, *args])
    except OSError:   # no git at all
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def _without_git() -> str:
    """A checkout without git history (actions/checkout in a bare container): the workflow's GITHUB_SHA."""
    return os.environ.get("GITHUB_SHA", "")[:10] or "unknown"


def commit(root: Path = paths.ROOT) -> str:
    """HEAD, with '+changes' when the working tree differs from it (the measured tree)."""
    head = _git(["rev-parse", "--short=10", "HEAD"], root)
    if head is None:
        return _without_git()
    dirty = _git(["status", "--porcelain", "--untracked-files=no"], root)
    return head + ("+changes" if dirty else "")


def source(pathspecs: Sequence[str], root: Path = paths.ROOT) -> str:
    """The newest commit that changed any of `pathspecs`, with '+changes' when they differ from
    it in the working tree: what a measurement of those files ran on, unchanged by commits that
    only add results (so the shards of one run may come from several sessions)."""
    last = _git(["log", "-1", "--format=%h", "--abbrev=10", "--", *pathspecs], root)
    if not last:
        return _without_git()
    dirty = _git(["status", "--porcelain", "--untracked-files=no", "--", *pathspecs], root)
    return last + ("+changes" if dirty else "")
