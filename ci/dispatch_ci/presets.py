"""CMakePresets.json and CMakeCache.txt, read without cmake: preset names, comma lists,
cache values."""
import json
from pathlib import Path
from typing import Dict, List, Optional

from . import paths
from .log import UsageError


def configure_presets(presets_json: Path = paths.PRESETS_JSON) -> List[str]:
    """The visible configure presets, in file order (what `cmake --list-presets` lists)."""
    data = json.loads(Path(presets_json).read_text(encoding="utf-8"))
    return [p["name"] for p in data.get("configurePresets", []) if not p.get("hidden", False)]


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
