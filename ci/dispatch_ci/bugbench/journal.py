"""The journal of a bug-benchmark run (build/bug-benchmark/journal.jsonl): what the run measures,
then each judged run's record as it comes. A full run takes hours, and the machine or the session
under it can stop; `--resume` goes on from the journal and runs only what is missing. Runs are
independent (each fuzzes from an empty corpus), so a run cut off before its record was written
simply runs again from the start; an error record is not kept, so a resume runs that again too.

A resume is refused unless it measures the same thing: the same settings (bugs, targets,
mutators, fake stacks, seeds, budget, shard, processes at a time) and the same measured files at
a known commit (uncommitted changes could differ between sittings). Each sitting's start, end and
machine load are kept, and the results name how many sittings there were.

One JSON object per line: {"settings": {...}}, then for each sitting {"sitting": {"started",
"load_before"}}, the {"run": record} lines, and {"sitting_end": {"ended", "load_after"}} when
the sitting finished."""
import datetime
import json
import threading
import time
from pathlib import Path
from typing import Dict, List

from . import results
from .verdict import ERROR


class JournalError(Exception):
    """A journal that cannot be resumed: missing, unreadable, or of another measurement."""


class Journal:
    def __init__(self, path: Path, settings: dict, done: List[dict], sittings: List[dict]):
        self.path = Path(path)
        self.settings = settings
        self.done = done            # the run records of earlier sittings, in the order judged
        self.sittings = sittings    # {"started", "load_before", "ended"?, "load_after"?, "seconds"?}
        self._lock = threading.Lock()
        self._started = time.time()

    @classmethod
    def start(cls, path: Path, settings: dict) -> "Journal":
        """A new journal (an old one at `path` is replaced)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps({"settings": settings}) + "\n", encoding="utf-8")
        journal = cls(path, settings, [], [])
        journal._open_sitting()
        return journal

    @classmethod
    def resume(cls, path: Path, settings: dict) -> "Journal":
        """The journal at `path`, for a run with `settings`, with a new sitting begun."""
        if not results.source_is_known(settings.get("source")):
            raise JournalError(f"the measured files are not at a known commit ({settings.get('source')}): "
                               "a resumed run could mix two versions of them; commit first")
        try:
            lines = _entries(path)
        except (OSError, ValueError) as e:
            raise JournalError(f"cannot read {path}: {e}")
        if not lines or "settings" not in lines[0]:
            raise JournalError(f"{path} does not begin with the run's settings")
        recorded = lines[0]["settings"]
        for key in sorted(set(recorded) | set(settings)):
            if recorded.get(key) != settings.get(key):
                raise JournalError(f"{path} measured something else ({key}: {recorded.get(key)!r} there, "
                                   f"{settings.get(key)!r} now)")
        done, sittings = [], []
        for line in lines[1:]:
            if "sitting" in line:
                sittings.append(dict(line["sitting"]))
            elif "sitting_end" in line and sittings:
                sittings[-1].update(line["sitting_end"])
            elif "run" in line and sittings:
                done.append(line["run"])
                # A sitting cut off lasted at least until its last record.
                sittings[-1].setdefault("cut_off_after", 0.0)
                sittings[-1]["cut_off_after"] = max(sittings[-1]["cut_off_after"], line.get("at", 0.0))
        journal = cls(path, settings, done, sittings)
        journal._open_sitting()
        return journal

    def _open_sitting(self) -> None:
        sitting = {"started": datetime.datetime.now().isoformat(timespec="seconds"),
                   "load_before": results.load_average()}
        self.sittings.append(sitting)
        self._write({"sitting": sitting})

    def record(self, run: dict) -> None:
        """A judged run; an error measured nothing and is left for the next sitting to run."""
        if run["result"] != ERROR:
            self._write({"run": run, "at": round(time.time() - self._started, 1)})

    def close(self) -> None:
        end = {"ended": datetime.datetime.now().isoformat(timespec="seconds"),
               "load_after": results.load_average(), "seconds": round(time.time() - self._started, 1)}
        self.sittings[-1].update(end)
        self._write({"sitting_end": end})

    def minutes(self) -> float:
        """Minutes over the sittings; one cut off counts until its last record."""
        return sum(s.get("seconds", s.get("cut_off_after", 0.0)) for s in self.sittings) / 60

    def done_runs(self) -> Dict[tuple, dict]:
        """The earlier sittings' records by (bug, target, mutator, fake stacks, seed)."""
        return {key_of(r): r for r in self.done}

    def _write(self, entry: dict) -> None:
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()


def _entries(path: Path) -> List[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line]


def cut_off_runs(path: Path) -> int:
    """How many judged runs the journal at `path` holds if its last sitting was cut off (0 for
    none, or a finished run): what a new run replacing it throws away."""
    try:
        lines = _entries(path)
    except (OSError, ValueError):
        return 0
    if not lines or "sitting_end" in lines[-1]:
        return 0
    return sum(1 for line in lines if "run" in line)


def key_of(run: dict) -> tuple:
    return (run["bug"], run["target"], run["mutator"], run.get("fake_stacks", "default"), run["seed"])
