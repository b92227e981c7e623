"""Canary patches: ci/canaries/<name>.patch (the folder is the list), their headers, and what
each one changes.

A canary patch is a `git diff` of the repository with a header in front of the first
`diff --git` line (git apply ignores it). The header is `key: value` lines, `#` comments allowed:

    # re-creates: pytorch#74963: ...         (free text, required)
    flavours: mobile                           the flavours the bug lives in (first = --fast's): names
                                               of cmake/flavours.list, or random:N:SEED (a tree with
                                               N flavours drawn from SEED, see cmake/flavours.cmake)
    unit: dispatcher_test,errors_test          ctest entries of the unit layer
    property: stateful_props                   ctest entries of the property layer
    fuzz: fallback_fuzzer,registration_fuzzer  fuzz targets (fuzz layer; corpus layer replays them)
    fast: corpus:fallback_fuzzer               the one layer:target --fast runs
    compare: plain-asan                        optional: also run the plain-ASan comparison
    expect: ESCAPED                            selftest patches only: the verdict they must get
    timeout: 30                                optional: per-test timeout (s) for ctest layers
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set

from .. import flavours as flavour_list
from .. import paths
from . import enclosing

PATCHES = paths.CANARY_PATCHES
SELFTEST_PATCHES = PATCHES / "selftest"
LAYERS = ("unit", "property", "corpus", "fuzz")
_LIST_KEYS = ("flavours", "unit", "property", "fuzz")
_KNOWN_KEYS = {"re-creates", "fast", "compare", "expect", "timeout", *_LIST_KEYS}
RANDOM_FLAVOURS = re.compile(r"random:([1-9][0-9]*):([0-9]+)")
_HUNK = re.compile(r"^@@ [^@]* @@ ?(.*)$")
_FUNC_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "static_assert"}


class PatchError(Exception):
    """A canary patch that is malformed or no longer applies: always a loud error."""


@dataclass
class Canary:
    name: str
    path: Path
    recreates: str
    flavours: List[str]
    unit: List[str] = field(default_factory=list)
    property: List[str] = field(default_factory=list)
    fuzz: List[str] = field(default_factory=list)
    fast: str = ""
    compare: bool = False
    expect: Optional[str] = None
    timeout: Optional[int] = None
    diff: str = ""

    def plan(self, layers: List[str], fast: bool) -> List[str]:
        """LAYER:TARGET items to run; --fast runs only the `fast` one."""
        if fast:
            return [self.fast]
        items = []
        for layer in layers:
            targets = self.fuzz if layer in ("corpus", "fuzz") else getattr(self, layer)
            items += [f"{layer}:{t}" for t in targets]
        return items


def parse(path: Path) -> Canary:
    text = Path(path).read_text(encoding="utf-8")
    start = text.find("diff --git ")
    if start < 0:
        raise PatchError(f"{paths.rel(path)}: no 'diff --git' section")
    values: Dict[str, str] = {}
    for number, line in enumerate(text[:start].splitlines(), 1):
        body = line.lstrip("#").strip()
        if not body:
            continue
        key, sep, value = body.partition(":")
        key = key.strip()
        if not sep or key not in _KNOWN_KEYS:
            if line.startswith("#"):
                continue  # free comment text
            raise PatchError(f"{paths.rel(path)}:{number}: not a 'key: value' header line: {line!r}")
        values[key] = value.strip()
    name = Path(path).name[:-len(".patch")]
    missing = [k for k in ("re-creates", "flavours", "fast") if not values.get(k)]
    if missing:
        raise PatchError(f"{paths.rel(path)}: header lacks {', '.join(missing)}")
    lists = {k: [v.strip() for v in values.get(k, "").split(",") if v.strip()] for k in _LIST_KEYS}
    canary = Canary(name=name, path=Path(path), recreates=values["re-creates"],
                    fast=values["fast"], compare=values.get("compare") == "plain-asan",
                    expect=values.get("expect"), diff=text[start:], **lists)
    if values.get("timeout"):
        if not values["timeout"].isdigit():
            raise PatchError(f"{paths.rel(path)}: timeout must be whole seconds")
        canary.timeout = int(values["timeout"])
    layer, _, target = canary.fast.partition(":")
    if layer not in ("unit", "property", "corpus") or not target:
        raise PatchError(f"{paths.rel(path)}: fast must be unit|property|corpus:<target>, "
                         f"not {canary.fast!r}")
    for flavour in canary.flavours:
        problem = flavour_problem(flavour)
        if problem:
            raise PatchError(f"{paths.rel(path)}: {problem}")
    return canary


def flavour_problem(flavour: str) -> str:
    """'' for a flavour a canary can run in (declared, or random:N:SEED), else why not."""
    declared = flavour_list.declared_names()
    if flavour in declared or RANDOM_FLAVOURS.fullmatch(flavour):
        return ""
    return f"unknown flavour {flavour!r} (declared: {' '.join(declared)}; or random:N:SEED)"


def configure_args(flavour: str) -> List[str]:
    """The cmake arguments of a canary tree for `flavour`: its fuzz preset (full and mobile have
    one), else full-fuzz with DISPATCH_FLAVOUR, or with the drawn flavours of random:N:SEED."""
    drawn = RANDOM_FLAVOURS.fullmatch(flavour)
    if drawn:
        return ["--preset", "full-fuzz", *flavour_list.random_cmake_args(int(drawn[1]), int(drawn[2]))]
    if flavour in ("full", "mobile"):
        return ["--preset", f"{flavour}-fuzz"]
    return ["--preset", "full-fuzz", f"-DDISPATCH_FLAVOUR={flavour}"]


def load_all(folder: Path = PATCHES) -> List[Canary]:
    """Every canary in `folder`, by name; an unreadable one stops the job."""
    found = sorted(Path(folder).glob("*.patch"))
    if not found:
        raise PatchError(f"no canary patches in {paths.rel(folder)}")
    return [parse(p) for p in found]


@dataclass
class Touched:
    """What a patch changes: files (repository paths) and the functions its hunks sit in."""
    files: Set[str] = field(default_factory=set)
    functions: Set[str] = field(default_factory=set)

    def covers(self, frame_file: str, frame_function: str = "") -> bool:
        """True when a stack frame lies in code the patch changed (same file, or a function
        named in a hunk header)."""
        if any(frame_file == f or frame_file.endswith("/" + f) for f in self.files):
            return True
        if "/" not in frame_file:  # a condensed report's bare file name: one changed file only
            if [f for f in self.files if f.rsplit("/", 1)[-1] == frame_file] and \
                    len({f.rsplit("/", 1)[-1] for f in self.files}) == len(self.files):
                return True
        return any(f and re.search(rf"\b{re.escape(f)}\b", frame_function) for f in self.functions)

    def called_in(self, source: str) -> str:
        """The first function the patch changed that `source` (a function body) calls, or ''."""
        for f in sorted(self.functions):
            if re.search(rf"\b{re.escape(f)}\s*\(", source):
                return f
        return ""


def touched(diff: str) -> Touched:
    """The files a diff changes, and per hunk the function its first change lies in: found in
    the hunk's own context lines (enclosing.py) when they reach its definition, else the one
    git's hunk header names."""
    result = Touched()
    header_name, context, open_hunk = "", [], False
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            result.files.add(line[len("+++ b/"):].strip())
        elif line.startswith("--- a/"):
            result.files.add(line[len("--- a/"):].strip())
        elif _HUNK.match(line):
            names = [n for n in _FUNC_NAME.findall(_HUNK.match(line).group(1)) if n not in _KEYWORDS]
            header_name, context, open_hunk = (names[0] if names else ""), [], True
        elif open_hunk and line.startswith(" "):
            context.append(line[1:])
        elif open_hunk and line[:1] in ("+", "-"):
            name, _ = enclosing.enclosing(context + [line[1:]], len(context))
            if name or header_name:
                result.functions.add(name or header_name)
            open_hunk = False  # one function per hunk: the one its first change is in
    return result
