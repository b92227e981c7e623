"""The build flavours as ci/ sees them: cmake/flavours.list (declared) and <build>/flavours.tsv
(what a configured tree has, drawn flavours included; cmake/flavour_codegen.cmake writes it).

A drawn flavour exists only in the tree configured with its seed, so a failure in one records
its declaration ("rand3=Undefined,CPU,...") and ci/repro.sh configures a tree with exactly that
flavour (-DDISPATCH_EXTRA_FLAVOURS)."""
import datetime
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from . import paths

FLAVOURS_LIST = paths.ROOT / "cmake" / "flavours.list"
DECLARATION = re.compile(r"^([a-z][a-z0-9_]*)=([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)+)$")


@dataclass(frozen=True)
class Flavour:
    name: str
    keys: str          # "full", or the kept keys comma-separated, slot order
    generated: bool    # drawn (or given) at configure time, not in cmake/flavours.list

    def declaration(self) -> str:
        """name=Key,Key,... as -DDISPATCH_EXTRA_FLAVOURS takes it."""
        return f"{self.name}={self.keys}"


def declared_names(list_file: Path = FLAVOURS_LIST) -> List[str]:
    """The flavour names of cmake/flavours.list, in order."""
    names = []
    for line in Path(list_file).read_text(encoding="ascii").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            names.append(line.split(":", 1)[0].strip())
    return names


def of_build(build_dir: Path) -> List[Flavour]:
    """The flavours a configured tree was generated with; [] when it has no flavours.tsv."""
    tsv = Path(build_dir) / "flavours.tsv"
    if not tsv.is_file():
        return []
    out = []
    for line in tsv.read_text().splitlines():
        name, keys, origin = (line.split("\t") + ["", "", ""])[:3]
        if name:
            out.append(Flavour(name, keys, origin == "generated"))
    return out


def generated_declaration(build_dir: Path, name: str) -> Optional[str]:
    """The declaration of flavour `name` of that tree if it is a generated one, else None."""
    for f in of_build(build_dir):
        if f.name == name and f.generated:
            return f.declaration()
    return None


def seed_of_today(today: Optional[datetime.date] = None) -> int:
    """The nightly's default flavour seed: the UTC date as YYYYMMDD."""
    d = today or datetime.datetime.now(datetime.timezone.utc).date()
    return int(d.strftime("%Y%m%d"))


def random_cmake_args(count: int, seed: int) -> List[str]:
    return [f"-DDISPATCH_RANDOM_FLAVOURS={count}", f"-DDISPATCH_FLAVOUR_SEED={seed}"]


def check_declaration(text: str) -> str:
    """A name=Key,Key,... declaration, or ValueError."""
    if not DECLARATION.match(text):
        raise ValueError(f"'{text}' is not a flavour declaration name=Undefined,Key,...")
    return text


def tree_suffix_of_declaration(declaration: str) -> str:
    """A build-tree suffix naming one extra flavour: -flavour-<name>-<8 hex of the key list>."""
    name = declaration.split("=", 1)[0]
    return f"-flavour-{name}-{hashlib.sha1(declaration.encode()).hexdigest()[:8]}"


def listing(build_dir: Path) -> str:
    """'full mobile lite mobile_gpu' as a configured tree has them, drawn ones marked with *;
    the declared names when the tree is not configured (yet)."""
    listed = of_build(build_dir)
    if not listed:
        return " ".join(declared_names())
    return " ".join(f.name + ("*" if f.generated else "") for f in listed)
