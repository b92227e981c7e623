"""The bug benchmark's bug set: every canary a fuzz target can see (ci/canaries/), the deep bugs
(bench/bugs/deep/, canary-form patches), and the mutants of a seeded ci/mutants.sh draw that the
pre-merge suite kills (bench/bugs/mutants.tsv). Each bug is a diff of the tree with the flavour
it lives in and the fuzz targets that can see it.

bench/bugs/mutants.tsv, one drawn mutant per line (tab-separated):
    draw      seed:index of the ci/mutants.sh draw it came from
    file      the mutated file
    operator  the mutation operator (ci/dispatch_ci/mutants/mutator.py)
    before    the line as it is
    after     the line as the mutant has it
    premerge  the pre-merge suite's judgement (ci/mutants.sh): killed, survived, invalid,
              equivalent, unjudged (not yet run), or excluded (a header's mutant: drawn, and
              listed with the draw, but not in the sample; mutant_sample.py says why)
    targets   the fuzz targets that can see it, comma-separated
Only killed mutants are bugs: a survivor may be equivalent, an invalid one is no program. The
site is found again by its text (like ci/mutants_known.tsv), so the list survives edits
elsewhere in the file; a line that is gone is an error, never a silent drop.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from .. import paths
from ..canaries import patches
from ..mutants import mutator

# Bumped whenever the set's definition changes (what is drawn, what counts), so that two JSON
# results of different versions are not compared as if they measured the same bugs.
# 2: header mutants excluded; 3: report-only code has no fuzz target; 4: library_fuzzer is a trace target
BENCHMARK_VERSION = 4
BUGS = paths.ROOT / "bench" / "bugs"
DEEP = BUGS / "deep"
MUTANTS_TSV = BUGS / "mutants.tsv"
MUTANT_COLUMNS = ("draw", "file", "operator", "before", "after", "premerge", "targets")
PREMERGE = ("killed", "survived", "invalid", "equivalent", "unjudged", "excluded")
KINDS = ("canary", "deep", "mutant")
TRACE_TARGETS = ("registration_fuzzer", "fallback_fuzzer", "library_fuzzer", "boxed_call_fuzzer")
KEYSET_TARGETS = ("keyset_fuzzer", "table_index_fuzzer")
# Key and key-set code is what the key-set targets exercise; the trace targets reach it too.
_KEY_FILES = ("dispatch_key", "key_sets")
# Functions that run only after an invariant check has already failed (they walk the table to name
# the first wrong key for the report). On a correct library no input reaches them, so no fuzz
# target can see a bug in them: such a mutant is left out of the fuzzing benchmark, and the
# pre-merge depth benchmark (bench/premerge_depth.sh, which runs the unit tests) still counts it.
REPORT_ONLY_FUNCTIONS = {"dispatch/src/operator_entry_invariants.cpp": ("reportFallthroughMaskViolation",)}
_DEFINITION = re.compile(r"^[A-Za-z_].*?(\w+)\s*\(")


class BugSetError(Exception):
    """A bug that cannot be built from its record: always a loud error."""


@dataclass
class Bug:
    name: str
    kind: str             # canary | deep | mutant
    flavour: str
    targets: List[str]
    diff: str
    what: str = ""
    touched: patches.Touched = field(default_factory=patches.Touched)


@dataclass
class MutantRecord:
    draw: str
    file: str
    operator: str
    before: str
    after: str
    premerge: str
    targets: List[str]

    @property
    def name(self) -> str:
        seed, _, index = self.draw.partition(":")
        return f"mutant_s{seed}_{int(index):02d}"


def _from_patch(canary: patches.Canary, kind: str) -> Bug:
    return Bug(canary.name, kind, canary.flavours[0], list(canary.fuzz), canary.diff,
               canary.recreates, patches.touched(canary.diff))


def canaries() -> List[Bug]:
    """Every canary some fuzz target can see, in its first flavour."""
    return [_from_patch(c, "canary") for c in patches.load_all() if c.fuzz]


def deep_bugs(folder: Path = DEEP) -> List[Bug]:
    return [_from_patch(c, "deep") for c in patches.load_all(folder)]


def enclosing_function(text: str, line: int) -> str:
    """The name of the function whose body holds 1-based `line` of `text` ('' outside one): the
    nearest definition line above it (code at column 0 with a '('), unless a '}' at column 0
    closes a body in between."""
    lines = text.splitlines()
    for above in reversed(lines[:max(0, line - 1)]):
        if above.startswith("}"):
            return ""
        match = _DEFINITION.match(above)
        if match and not above.startswith(("template", "namespace", "#", "//")):
            return match.group(1)
    return ""


def targets_for(file: str, text: str = "", line: int = 0) -> List[str]:
    """The fuzz targets that can see a mutant of `file` at `line` (none in report-only code)."""
    if text and enclosing_function(text, line) in REPORT_ONLY_FUNCTIONS.get(file, ()):
        return []
    name = Path(file).name
    extra = list(KEYSET_TARGETS) if name.startswith(_KEY_FILES) else []
    return list(TRACE_TARGETS) + extra


def read_mutants(path: Path = MUTANTS_TSV) -> List[MutantRecord]:
    if not Path(path).is_file():
        return []
    records = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != len(MUTANT_COLUMNS) or cells[5] not in PREMERGE or ":" not in cells[0]:
            raise BugSetError(f"{paths.rel(path)}:{number}: expected {', '.join(MUTANT_COLUMNS)} "
                              f"separated by tabs (premerge one of {', '.join(PREMERGE)})")
        records.append(MutantRecord(*cells[:6], [t for t in cells[6].split(",") if t]))
    return records


def write_mutants(records: List[MutantRecord], header: str, path: Path = MUTANTS_TSV) -> None:
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines.append("# " + "\t".join(MUTANT_COLUMNS))
    lines += ["\t".join([r.draw, r.file, r.operator, r.before, r.after, r.premerge, ",".join(r.targets)])
              for r in records]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def site_of(record: MutantRecord, files: Dict[str, bytes]) -> mutator.Site:
    """The record's site in the current tree, found by the text of its line."""
    if record.file not in files:
        raise BugSetError(f"mutant {record.draw}: {record.file} is not in the tree")
    text = files[record.file].decode("utf-8")
    for site in mutator.sites(record.file, text):
        if site.before == record.before and site.after == record.after:
            return site
    raise BugSetError(f"mutant {record.draw}: no line of {record.file} mutates into {record.after.strip()!r} "
                      f"any more (the draw must be redone)")


def mutant_bug(record: MutantRecord, files: Dict[str, bytes]) -> Bug:
    site = site_of(record, files)
    diff = mutator.diff(files[record.file].decode("utf-8"), site)
    git_diff = f"diff --git a/{record.file} b/{record.file}\n{diff}"
    return Bug(record.name, "mutant", "full", list(record.targets), git_diff,
               f"{site.describe()}: {site.after.strip()}", patches.touched(git_diff))


def mutants(files: Dict[str, bytes], path: Path = MUTANTS_TSV) -> List[Bug]:
    """The killed mutants of the committed draw."""
    return [mutant_bug(r, files) for r in read_mutants(path) if r.premerge == "killed"]


def load(files: Dict[str, bytes]) -> List[Bug]:
    return canaries() + deep_bugs() + mutants(files)


def select(all_bugs: List[Bug], wanted: List[str]) -> List[Bug]:
    """Bugs by name or by kind (canary, deep, mutant); every name must exist."""
    if not wanted:
        return all_bugs
    known = {b.name for b in all_bugs}
    unknown = [w for w in wanted if w not in known and w not in KINDS]
    if unknown:
        raise BugSetError(f"unknown bug(s) {', '.join(unknown)} (names, or the kinds {', '.join(KINDS)})")
    return [b for b in all_bugs if b.name in wanted or b.kind in wanted]
