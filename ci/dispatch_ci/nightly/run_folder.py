"""The folder of one nightly run, build/nightly/<UTC time>/ (build/nightly/latest points at it),
and its state files, which the report, ci/repro.sh and the corpus cache read:
state/meta.tsv, steps.tsv, runs.tsv, plan.tsv, corpus.tsv, property.tsv."""
import os
import threading
import time
from pathlib import Path
from typing import List, Tuple

from .. import paths

SUBDIRS = ("logs", "state", "artifacts", "new-units", "corpus", "failures", "triage")


def step_breaks_night(result: str) -> bool:
    """A step that failed, or could not decide (a property run that timed out), turns the night
    red; only "ok", "skipped" (asked for) and FAILURES (counted through the buckets) do not."""
    return result.startswith(("FAILED", "INCONCLUSIVE"))


def utc(fmt: str = "%Y-%m-%dT%H:%M:%SZ") -> str:
    return time.strftime(fmt, time.gmtime())


class RunFolder:
    def __init__(self, root: Path = paths.BUILD / "nightly"):
        root.mkdir(parents=True, exist_ok=True)
        stamp = utc("%Y%m%dT%H%M%SZ")
        name, n = stamp, 1
        while True:
            try:
                (root / name).mkdir()
                break
            except FileExistsError:
                n += 1
                name = f"{stamp}-{n}"
        self.name = name
        # Relative to the repository root (the jobs' working folder): commands, logs and
        # bucket.json name build/nightly/<name>/..., as they always did.
        self.path = Path(paths.rel(root / name))
        latest = root / "latest"
        tmp = root / f".latest-{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(name)
        tmp.replace(latest)
        for sub in SUBDIRS:
            (self.path / sub).mkdir()
        self.steps: List[Tuple[str, str, int, str]] = []
        self._lock = threading.Lock()
        for f in ("steps.tsv", "runs.tsv", "corpus.tsv", "property.tsv"):
            self.state(f).write_text("")

    @property
    def rel(self) -> str:
        """build/nightly/<name>, as every message and command names it."""
        return paths.rel(self.path)

    def state(self, name: str) -> Path:
        return self.path / "state" / name

    def record_step(self, name: str, result: str, seconds: int, detail: str) -> None:
        """result: ok | FAILED... or INCONCLUSIVE... (break the night) | FAILURES | skipped | ..."""
        self.steps.append((name, result, seconds, detail))
        with open(self.state("steps.tsv"), "a") as f:
            f.write(f"{name}\t{result}\t{seconds}\t{detail}\n")

    @property
    def broken(self) -> bool:
        return any(step_breaks_night(result) for _, result, _, _ in self.steps)

    def append_row(self, state_file: str, *columns) -> None:
        """Thread-safe: fuzz workers append to runs.tsv concurrently."""
        with self._lock, open(self.state(state_file), "a") as f:
            f.write("\t".join(str(c) for c in columns) + "\n")

    def write_kv(self, state_file: str, items, append: bool = False) -> None:
        with open(self.state(state_file), "a" if append else "w") as f:
            for key, value in items:
                f.write(f"{key}\t{value}\n")


def read_kv(path: Path) -> dict:
    """key<TAB>value lines (meta.tsv); {} when the file is missing."""
    values = {}
    try:
        for line in Path(path).read_text(errors="replace").splitlines():
            key, _, value = line.partition("\t")
            values[key] = value
    except OSError:
        pass
    return values
