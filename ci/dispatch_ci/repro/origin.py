"""Where a failing input comes from: its preset, target, canary and build tree, read from its
path (build/nightly/<run>/artifacts/<preset>/<target>/crash-..., build/<preset>/fuzz/smoke/<target>/
artifacts/..., fuzz/regressions/<target>/...), a bucket folder's bucket.json, and a nightly run's
state/meta.tsv."""
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ARTIFACT_NAMES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


@dataclass
class Origin:
    input: Optional[Path] = None
    bucket: Optional[Path] = None
    preset: str = ""
    target: str = ""
    canary: str = ""
    build_dir: Optional[Path] = None    # from bucket.json
    flavour_declaration: str = ""       # from bucket.json: a drawn flavour, name=Key,Key,...
    how: str = "the path"


def from_path_parts(rel_input: str, presets: List[str], targets: List[str], canaries: List[str],
                    origin: Origin) -> Origin:
    """Path components name the preset (or <preset>-canary-<name>) and the target; what is
    already known (bucket.json) is kept."""
    for part in rel_input.split("/"):
        if not origin.preset and part in presets:
            origin.preset = part
        if not origin.target and part in targets:
            origin.target = part
        m = re.fullmatch(r"(.+)-canary-(.+)", part)
        if not origin.preset and m and m.group(1) in presets and m.group(2) in canaries:
            origin.preset = m.group(1)
            origin.canary = origin.canary or m.group(2)
    return origin


def bucket_input(bucket: Path) -> Optional[Path]:
    """A bucket folder's input: minimized, else input, else the first artifact in it."""
    for name in ("minimized", "input"):
        if (bucket / name).is_file():
            return bucket / name
    found = sorted(p for p in bucket.glob("*") if p.is_file() and (p.name.startswith(ARTIFACT_NAMES) or p.name == "testcase"))
    found += sorted(p for p in bucket.glob("*/*") if p.is_file() and (p.name.startswith(ARTIFACT_NAMES) or p.name == "testcase"))
    return found[0] if found else None


def read_bucket_json(path: Path, root: Path, origin: Origin) -> Optional[Path]:
    """Fills preset, target and build tree from bucket.json; returns the original artifact it
    names (absolute), if any."""
    b = json.loads(path.read_text())
    first = (b.get("artifacts") or [{}])[0]

    def field(key):
        value = b.get(key) or first.get(key)
        return value if isinstance(value, str) and value and "\n" not in value else ""
    if field("preset"):
        origin.preset, origin.how = field("preset"), "bucket.json"
    if field("target"):
        origin.target, origin.how = field("target"), "bucket.json"
    if field("build_dir"):
        origin.build_dir = root / field("build_dir")
    origin.flavour_declaration = b.get("flavour_declaration") or ""
    return root / field("artifact") if field("artifact") else None


def run_canary(input_file: Path, root: Path) -> Optional[Path]:
    """The state/meta.tsv of the nightly run folder the input is in, if any."""
    d = input_file.parent
    while d != root and d != d.parent:
        if (d / "state" / "meta.tsv").is_file():
            return d / "state" / "meta.tsv"
        d = d.parent
    return None


def enclosing_build_tree(input_file: Path, root: Path) -> Optional[Path]:
    d = input_file.parent
    while d != root and d != d.parent:
        if (d / "CMakeCache.txt").is_file():
            return d
        d = d.parent
    return None


def choose_build_dir(root: Path, preset: str, canary: str, src_preset: str, bucket_build_dir: Optional[Path],
                     tree_dir: Optional[Path]) -> Path:
    """A canary's own tree; else the tree the bucket was found in (same preset); else the build
    tree the input lies in (when it is that preset's); else build/<preset>."""
    if canary:
        return root / "build" / f"{preset}-canary-{canary}"
    if bucket_build_dir and preset == src_preset:
        return bucket_build_dir
    if tree_dir and (not src_preset or tree_dir.name == src_preset):
        return tree_dir
    return root / "build" / preset
