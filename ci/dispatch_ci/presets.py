"""CMakePresets.json and CMakeCache.txt, read without cmake: preset names, comma lists,
cache values."""
import json
from pathlib import Path
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import paths
from .log import UsageError


def configure_presets(presets_json: Path = paths.PRESETS_JSON) -> List[str]:
    """The visible configure presets, in file order (what `cmake --list-presets` lists)."""
    data = json.loads(Path(presets_json).read_text(encoding="utf-8"))
    return [p["name"] for p in data.get("configurePresets", []) if not p.get("hidden", False)]


def preset_cache_variables(name: str, presets_json: Path = paths.PRESETS_JSON) -> Dict[str, str]:
    """A configure preset's cache variables with its parents' (a later parent and the preset
    itself override), as `cmake --preset` sees them."""
    data = json.loads(Path(presets_json).read_text(encoding="utf-8"))
    by_name = {p["name"]: p for p in data.get("configurePresets", [])}

    def resolve(preset_name: str) -> Dict[str, str]:
        preset = by_name[preset_name]
        inherits = preset.get("inherits", [])
        values: Dict[str, str] = {}
        # CMake: the first parent listed wins over later ones, the preset over all.
        for parent in reversed([inherits] if isinstance(inherits, str) else inherits):
            values.update(resolve(parent))
        for key, value in preset.get("cacheVariables", {}).items():
            values[key] = value["value"] if isinstance(value, dict) else str(value)
        return values
    return resolve(name)


# Where ci/setup.sh --with-libtorch puts libtorch-dev's headers (on the host, or in a chroot).
LIBTORCH_INCLUDE_DIRS = (Path("/usr/include"), Path("/usr/local/include"))
_VERSION_HEADERS = ("torch/headeronly/version.h", "torch/csrc/api/include/torch/version.h")


def installed_libtorch_release(include_dirs: Sequence[Path] = LIBTORCH_INCLUDE_DIRS) -> Optional[str]:
    """The libtorch release ("2.14") whose headers this system has, as c10_sut/CMakeLists.txt
    reads them; None without libtorch."""
    for include in include_dirs:
        for header in _VERSION_HEADERS:
            path = Path(include) / header
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            major = re.search(r"#define TORCH_VERSION_MAJOR ([0-9]+)", text)
            minor = re.search(r"#define TORCH_VERSION_MINOR ([0-9]+)", text)
            if major and minor:
                return f"{major.group(1)}.{minor.group(1)}"
    return None


def libtorch_release_of(preset: str, presets_json: Path = paths.PRESETS_JSON) -> Optional[str]:
    """The libtorch release a preset builds against (c10_sut's default 1.13), None if it needs none."""
    values = preset_cache_variables(preset, presets_json)
    if values.get("DISPATCH_WITH_LIBTORCH", "OFF").upper() not in ("ON", "TRUE", "1", "YES"):
        return None
    return values.get("DISPATCH_LIBTORCH_RELEASE", "1.13")


def default_presets(presets_json: Path = paths.PRESETS_JSON,
                    libtorch: Optional[str] = None) -> Tuple[List[str], str]:
    """The presets a job runs when none are named: every visible one whose system is installed
    here (a c10 preset only where libtorch of its release is), and one line saying what was left
    out and why ("" when nothing was). `libtorch` is the installed release (looked up if None)."""
    libtorch = libtorch if libtorch is not None else (installed_libtorch_release() or "")
    kept, left_out = [], []
    for name in configure_presets(presets_json):
        needs = libtorch_release_of(name, presets_json)
        (kept if needs is None or needs == libtorch else left_out).append(name)
    if not left_out:
        return kept, ""
    here = f"libtorch {libtorch} is installed here" if libtorch else "no libtorch is installed here"
    return kept, (f"{len(kept)} presets; left out {', '.join(left_out)}: {here} (ci/setup.sh "
                  f"--with-libtorch RELEASE; a chroot release runs through ci/c10.sh --libtorch RELEASE)")


def chosen_presets(text: Optional[str], say: Callable[[str], None]) -> List[str]:
    """A job's --presets as given (each must exist), or the defaults, saying what they leave out."""
    if text:
        presets = split_csv(text, "presets")
        check_known(presets, configure_presets())
        return presets
    presets, left_out = default_presets()
    if left_out:
        say(left_out)
    return presets


def split_csv(text: str, what: str) -> List[str]:
    """'a,b,c' -> ['a', 'b', 'c']; an empty list or an empty item is a usage error."""
    items = text.split(",") if text else []
    if not items or any(not item.strip() for item in items):
        raise UsageError(f"no {what} given" if not items else f"empty item in {what} list '{text}'")
    return [item.strip() for item in items]


def check_known(names: List[str], known: List[str], what: str = "preset") -> None:
    for name in names:
        if name not in known:
            raise UsageError(f"unknown {what} '{name}' (known: {' '.join(known)})")


def positive_int(text: str) -> int:
    """argparse type for --jobs / --timeout: a positive whole number."""
    import argparse
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, not '{text}'")
    return int(text)


def read_cache(build_dir: Path) -> Dict[str, str]:
    """CMakeCache.txt as {name: value} (types dropped); {} when there is no cache."""
    cache = Path(build_dir) / "CMakeCache.txt"
    values: Dict[str, str] = {}
    if not cache.is_file():
        return values
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith(("#", "//")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        values[key.split(":", 1)[0]] = value
    return values


def cache_value(build_dir: Path, name: str) -> Optional[str]:
    return read_cache(build_dir).get(name)


def flavour_of(preset: str) -> str:
    """full-asan-ubsan -> full (every preset name starts with its flavour)."""
    return preset.split("-", 1)[0]
