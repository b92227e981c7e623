"""Stored benchmark results (results.json): reading them, refusing to put side by side or merge
results that measure different things, and merging the parts of one measurement (e.g. a slice
run target by target, or the shards of one full run on several machines) into one document."""
import json
import os
from pathlib import Path
from typing import Iterable, List, Tuple

Document = dict


class ResultsError(Exception):
    """A results file that cannot be read, or results that do not go together."""


def load_average() -> List[float]:
    """The machine's load (1/5/15 min) as a document records it before and after its runs."""
    return [round(x, 2) for x in os.getloadavg()]


def read(given: Iterable[Path]) -> List[Tuple[Path, Document]]:
    documents = []
    for path in given:
        try:
            documents.append((Path(path), json.loads(Path(path).read_text(encoding="utf-8"))))
        except (OSError, ValueError) as e:
            raise ResultsError(f"cannot read {path}: {e}")
    return documents


def check_comparable(documents: List[Document], keys: Tuple[str, ...]) -> None:
    """Every document must agree on `keys` (version, budget_seconds, seeds ...)."""
    for key in keys:
        values = sorted({json.dumps(d.get(key)) for d in documents})
        if len(values) > 1:
            raise ResultsError(f"the results measure different things ({key}: {', '.join(values)})")


def shards_cover_the_set(documents: List[Document]) -> bool:
    """Whether `documents` are the shards of one run (`--shard K/N`): every one a shard of the same
    N, of the same measured files (their newest commit, `source`), each K once. True when they are
    all N of a run whose every shard covered its whole share, at a known commit of those files;
    False for some of the shards, or for files with uncommitted changes; an
    error for a mix of shards and other results, two copies of one shard, or shards that measured
    different files."""
    shards = [d.get("shard") for d in documents]
    if not all(shards):
        raise ResultsError("shards of a run (--shard K/N) cannot be merged with other results")
    check_comparable(documents, ("source", "mutators", "fake_stacks"))
    counts = {s["count"] for s in shards}
    if len(counts) > 1:
        raise ResultsError(f"shards of runs cut differently (of {', '.join(map(str, sorted(counts)))})")
    indices = [s["index"] for s in shards]
    if len(set(indices)) < len(indices):
        raise ResultsError(f"a shard given twice (shards {', '.join(map(str, sorted(indices)))})")
    return (set(indices) == set(range(1, counts.pop() + 1)) and all(s["full_scope"] for s in shards)
            and source_is_known(documents[0].get("source")))


def source_is_known(source) -> bool:
    """Whether two shards with this `source` are known to have measured the same files: not when
    the files had uncommitted changes (two sessions' changes look alike) or git gave no commit."""
    return bool(source) and source != "unknown" and not str(source).endswith("+changes")


def merge(documents: List[Document]) -> Document:
    """One document from the parts of one measurement: the runs of all, the bugs and mutators
    of all in first-seen order; the load before the first part and after the last; a full
    benchmark only if every part is one, or if the parts are every shard of one full run."""
    check_comparable(documents, ("version", "budget_seconds", "seeds"))
    sharded = any(d.get("shard") for d in documents)
    full = shards_cover_the_set(documents) if sharded else all(d["full"] for d in documents)
    if len(documents) == 1 and not sharded:
        return documents[0]
    merged = dict(documents[0])
    merged.pop("shard", None)
    if sharded:
        merged["shards"] = sorted(d["shard"]["index"] for d in documents)
        merged["shard_count"] = documents[0]["shard"]["count"]
    merged["runs"] = [r for d in documents for r in d["runs"]]
    merged["bugs"] = list({b["name"]: b for d in documents for b in d["bugs"]}.values())
    merged["unseen"] = list({b["name"]: b for d in documents for b in d.get("unseen", [])}.values())
    merged["mutators"] = list(dict.fromkeys(m for d in documents for m in d["mutators"]))
    if any("fake_stacks" in d for d in documents):   # results older than the switch ran as each target fuzzes
        merged["fake_stacks"] = list(dict.fromkeys(f for d in documents for f in d.get("fake_stacks", ["default"])))
    merged["full"] = full
    merged["load_after"] = documents[-1]["load_after"]
    merged["minutes_taken"] = sum(d["minutes_taken"] for d in documents)
    merged["date"] = " and ".join(dict.fromkeys(d["date"] for d in documents))
    merged["parts"] = len(documents)
    return merged
