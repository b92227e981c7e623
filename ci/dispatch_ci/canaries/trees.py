"""The trees a canary run builds: one scratch copy per canary (patched) plus one unpatched
copy (the baseline), each configured with the fuzz preset of a flavour and a setup; and the
baseline's cached results, keyed by the tree's content.

    build/canary-work/<canary>/src/                 the patched copy
    build/canary-work/<canary>/<flavour>-<setup>/   its build
    build/canary-work/baseline/...                  the unpatched copy and its builds
    build/canary-baseline/<tree key>/<flavour>-<setup>/<layer>-<target>[.seedN].json
"""
import json
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional

from .. import compiler_cache, paths, procs, scratch
from . import patches
from .verdict import Run

WORK = paths.BUILD / "canary-work"
BASELINE_CACHE = paths.BUILD / "canary-baseline"
SETUPS = {
    "hardened": [],  # the fuzz preset as it is: ASan + UBSan + hardened library + assertions
    "plain-asan": ["-DDISPATCH_SANITIZE_UNDEFINED=OFF", "-DDISPATCH_HARDENED=OFF"],
}
# Paths whose content cannot change a build or test result: not part of the baseline key.
KEY_IGNORES = ("ci/canaries/", "ci/dispatch_ci/", "ci/tests/", "README.md", "docs/")


class Tree:
    """A scratch copy (`files`) and its builds."""

    def __init__(self, name: str, files: Dict[str, bytes]):
        self.name = name
        self.files = files
        self.root = WORK / name
        self.src = self.root / "src"
        self._synced = False

    def build_dir(self, flavour: str, setup: str) -> Path:
        return self.root / f"{flavour.replace(':', '-')}-{setup}"

    def build(self, flavour: str, setup: str, targets: List[str], jobs: int, log: Path) -> bool:
        """Configure (once) and build `targets`; output to `log`. False when either fails."""
        if not self._synced:
            scratch.sync(self.files, self.src)
            self._synced = True
        log.parent.mkdir(parents=True, exist_ok=True)
        build_dir = self.build_dir(flavour, setup)
        if not (build_dir / "build.ninja").is_file():
            configure = ["cmake", *patches.configure_args(flavour), "-B", build_dir, *SETUPS[setup],
                         *compiler_cache.configure_args()]
            if not procs.run(configure, log=log, cwd=self.src, env=compiler_cache.build_env()).ok:
                return False
        cmd = ["cmake", "--build", build_dir, "-j", str(jobs), "--target", *sorted(set(targets))]
        return procs.run(cmd, log=log, append=True, nice=10, cwd=self.src,
                         env=compiler_cache.build_env()).ok


class BaselineCache:
    """Passing baseline runs, stored per tree content: a failing one is run again next time
    (it may have been load), a passing one is reused until the tree changes."""

    def __init__(self, files: Dict[str, bytes]):
        self.key = scratch.tree_key(files, KEY_IGNORES)
        self.root = BASELINE_CACHE / self.key

    def _path(self, flavour: str, setup: str, name: str) -> Path:
        return self.root / f"{flavour.replace(':', '-')}-{setup}" / f"{name}.json"

    def get(self, flavour: str, setup: str, name: str) -> Optional[Run]:
        try:
            return Run(**json.loads(self._path(flavour, setup, name).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def put(self, flavour: str, setup: str, name: str, run: Run) -> None:
        if not run.passed:
            return
        path = self._path(flavour, setup, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(run)), encoding="utf-8")


def canary_source(name: str) -> Path:
    """The tree with ci/canaries/<name>.patch applied, written (only what changed) to
    build/canary-work/<name>/src/: for jobs that build a canary themselves (nightly, replay,
    repro: `cmake -S <this> --preset P -B ...`). Raises PatchError / ApplyError."""
    path = patches.PATCHES / f"{name}.patch"
    if not path.is_file():
        raise patches.PatchError(f"unknown canary '{name}' (no {paths.rel(path)})")
    canary = patches.parse(path)
    tree = Tree(name, scratch.apply_patch(scratch.read_tree(), canary.diff, paths.rel(path)))
    scratch.sync(tree.files, tree.src)
    return tree.src


def canary_of_build(cache: Dict[str, str]) -> str:
    """The canary a configured build tree was made from ('' for the real tree): its source
    folder (CMAKE_HOME_DIRECTORY) is build/canary-work/<name>/src."""
    source = Path(cache.get("CMAKE_HOME_DIRECTORY", ""))
    if source.name == "src" and source.parent.parent == WORK and source.parent.name != "baseline":
        return source.parent.name
    return ""
