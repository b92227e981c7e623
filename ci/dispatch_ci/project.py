"""What the repository itself declares: its canaries, its fuzz targets (and how a build tree
names them). Read from the files other folders own; their paths are in paths.py."""
import re
import subprocess
from pathlib import Path
from typing import List, Optional, Sequence

from . import paths, procs

_TARGET_LINE = re.compile(r"^[A-Za-z0-9_-]+([ \t]+[A-Za-z0-9_-]+)*$")


def known_canaries(folder: Path = paths.CANARY_PATCHES) -> List[str]:
    """The canaries: one ci/canaries/<name>.patch each (the folder is the list)."""
    return sorted(p.name[:-len(".patch")] for p in Path(folder).glob("*.patch"))


def fuzz_target_sources(fuzz_dir: Path = paths.FUZZ) -> List[str]:
    """The fuzz/<name>.cpp files that define the libFuzzer entry point, by name."""
    return sorted(p.stem for p in Path(fuzz_dir).glob("*.cpp")
                  if "LLVMFuzzerTestOneInput" in p.read_text(errors="replace"))


def targets_from_output(text: str) -> List[str]:
    """The last line of `cmake --build <dir> --target print_fuzz_targets` output that is only
    target names (ninja's "[1/1] ..." lines are not)."""
    names: List[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("[") and _TARGET_LINE.match(line):
            names = line.split()
    return names


def targets_from_cmakelists(cmakelists: Path = paths.FUZZ_CMAKELISTS) -> List[str]:
    m = re.search(r"^\s*set\(DISPATCH_FUZZ_TARGETS\s+([A-Za-z0-9_ -]*)\)\s*$",
                  Path(cmakelists).read_text(errors="replace"), re.M)
    return m.group(1).split() if m else []


def print_fuzz_targets(build_dir: Path, log: Optional[Path] = None,
                       lister: str = "print_fuzz_targets") -> Optional[List[str]]:
    """The targets the build tree names; None when it has no `lister` target."""
    out = procs.capture(["cmake", "--build", build_dir, "--target", lister])
    text = out.stdout + out.stderr
    if log:
        with open(log, "a") as f:
            f.write(text)
    return targets_from_output(out.stdout) if out.returncode == 0 else None


def install_packages(say, skip: bool, extra_args: Sequence[str] = ()) -> bool:
    """ci/setup.sh (the Debian 12 packages every job needs; it installs only what is missing),
    unless `skip` (--no-setup). False when it failed: the job stops there."""
    if skip:
        say("--no-setup: not checking the packages (ci/setup.sh)")
        return True
    say("ci/setup.sh: checking the Debian 12 packages, installing what is missing")
    return subprocess.run(["bash", str(paths.SETUP_SCRIPT), *extra_args], cwd=paths.ROOT).returncode == 0
