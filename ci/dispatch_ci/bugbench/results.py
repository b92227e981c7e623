"""Stored benchmark results (results.json): reading them, refusing to put side by side or merge
results that measure different things, and merging the parts of one measurement (e.g. a slice
run target by target) into one document."""
import json
from pathlib import Path
from typing import Iterable, List, Tuple

Document = dict


class ResultsError(Exception):
    """A results file that cannot be read, or results that do not go together."""


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


def merge(documents: List[Document]) -> Document:
    """One document from the parts of one measurement: the runs of all, the bugs and mutators
    of all in first-seen order; the load before the first part and after the last; a full
    benchmark only if every part is one."""
    check_comparable(documents, ("version", "budget_seconds", "seeds"))
    if len(documents) == 1:
        return documents[0]
    merged = dict(documents[0])
    merged["runs"] = [r for d in documents for r in d["runs"]]
    merged["bugs"] = list({b["name"]: b for d in documents for b in d["bugs"]}.values())
    merged["mutators"] = list(dict.fromkeys(m for d in documents for m in d["mutators"]))
    merged["full"] = all(d["full"] for d in documents)
    merged["load_after"] = documents[-1]["load_after"]
    merged["minutes_taken"] = sum(d["minutes_taken"] for d in documents)
    merged["date"] = " and ".join(dict.fromkeys(d["date"] for d in documents))
    merged["parts"] = len(documents)
    return merged
