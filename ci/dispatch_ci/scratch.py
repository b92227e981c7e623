"""Scratch copies of the source tree under build/, for builds of a changed tree (canary
patches, mutants) that must never touch the checkout.

A copy holds the tracked files as they are in the working tree (so uncommitted edits count),
plus the change. Only files whose content differs are written, so a re-run rebuilds only what
changed (ninja compares modification times). Layout: <root>/src/ is the copy; build folders go
next to it (<root>/<name>/), so the compiler sees the same relative paths in every copy and a
compiler cache can share objects between copies.
"""
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from . import paths, procs


class ApplyError(Exception):
    """A patch that does not apply to the current tree."""


def tracked_files(root: Path = paths.ROOT) -> List[str]:
    out = procs.capture(["git", "-C", root, "ls-files", "-z"])
    if out.returncode != 0:
        raise RuntimeError(f"git ls-files failed: {out.stderr.strip()}")
    return [f for f in out.stdout.split("\0") if f and (Path(root) / f).is_file()]


def read_tree(root: Path = paths.ROOT, files: Optional[Iterable[str]] = None) -> Dict[str, bytes]:
    files = tracked_files(root) if files is None else files
    return {f: (Path(root) / f).read_bytes() for f in files}


def read_revision(revision: str, root: Path = paths.ROOT) -> Dict[str, bytes]:
    """The tracked files of a commit (git archive), as read_tree gives the working tree.
    Raises ApplyError when git cannot read it."""
    result = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", revision],
                            capture_output=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise ApplyError(f"git archive {revision}: {result.stderr.decode(errors='replace').strip()}")
    files = {}
    with tarfile.open(fileobj=io.BytesIO(result.stdout)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                files[member.name] = tar.extractfile(member).read()
    return files


def tree_key(tree: Dict[str, bytes], ignore_prefixes: Iterable[str] = ()) -> str:
    """A hash of the tree's content (the commit plus any uncommitted edit), leaving out paths
    that cannot change a build or test result."""
    ignore = tuple(ignore_prefixes)
    digest = hashlib.sha256()
    for name in sorted(tree):
        if ignore and name.startswith(ignore):
            continue
        digest.update(name.encode() + b"\0" + hashlib.sha256(tree[name]).digest())
    return digest.hexdigest()[:16]


def apply_patch(tree: Dict[str, bytes], diff: str, what: str) -> Dict[str, bytes]:
    """`tree` with the git diff `diff` applied (only the files it names are copied out to a
    temporary folder). Raises ApplyError with git's message when it does not apply."""
    with tempfile.TemporaryDirectory(prefix="dispatch-patch-") as tmp:
        work = Path(tmp)
        for name in tree:
            if f"a/{name}" in diff or f"b/{name}" in diff:
                (work / name).parent.mkdir(parents=True, exist_ok=True)
                (work / name).write_bytes(tree[name])
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(work.parent))
        patch_file = work.parent / f"{work.name}.diff"
        patch_file.write_text(diff, encoding="utf-8")
        try:
            result = subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch_file)],
                                    cwd=work, env=env, capture_output=True, text=True)
        finally:
            patch_file.unlink(missing_ok=True)
        if result.returncode != 0:
            raise ApplyError(f"{what} does not apply to this tree:\n{result.stderr.strip()}")
        patched = dict(tree)
        changed = 0
        for file in work.rglob("*"):
            if file.is_file():
                name = str(file.relative_to(work))
                data = file.read_bytes()
                if patched.get(name) != data:
                    changed += 1
                patched[name] = data
        for name in list(patched):
            if name in tree and not (work / name).exists() and (f"a/{name}" in diff):
                del patched[name]  # deleted by the patch
                changed += 1
    if changed == 0:
        raise ApplyError(f"{what} applies but changes nothing")
    return patched


def sync(tree: Dict[str, bytes], dest: Path, modes_from: Path = paths.ROOT) -> int:
    """Makes `dest` hold exactly `tree`, writing only files whose content differs (with the
    permission bits of the same file under `modes_from`: scripts stay executable). Returns
    the number of files written or removed."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    for name, data in tree.items():
        target = dest / name
        try:
            if target.read_bytes() == data:
                continue
        except OSError:
            target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        source = Path(modes_from) / name
        if source.is_file():
            os.chmod(target, source.stat().st_mode & 0o777)
        written += 1
    for file in list(dest.rglob("*")):
        if file.is_file() and str(file.relative_to(dest)) not in tree:
            file.unlink()
            written += 1
    return written


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
