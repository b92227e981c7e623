"""Which dispatcher a nightly fuzzes (--system): our own (the default) or PyTorch's c10 through
libtorch (c10_sut/, fuzz/c10/; 1.13.1 needs ci/setup.sh --with-libtorch, a later release
--with-libtorch RELEASE and runs in that release's chroot: system_for("c10", "2.14")). A system names its
presets, the build target that lists its fuzz targets, the property preset and label, extra
environment, and where a target's options, dictionary and seed corpora live."""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from .. import c10_known, paths
from .context import DEFAULT_PRESETS

C10_FUZZ = paths.FUZZ / "c10"


@dataclass(frozen=True)
class System:
    presets: List[str]
    lister: str                 # build target printing the fuzz targets (last line)
    property_preset: str
    property_label: str
    env: Dict[str, str] = field(default_factory=dict)


SYSTEMS = {
    "ours": System(DEFAULT_PRESETS.split(","), "print_fuzz_targets", "full-asan-ubsan", "property"),
    # Inputs that only show a known upstream bug are skipped by the target, so a campaign goes
    # on past them (every night's c10 test label re-checks the known ones).
    "c10": System(["full-c10"], "print_c10_fuzz_targets", "full-c10", "c10",
                  {"DISPATCH_C10_KNOWN_UPSTREAM": str(c10_known.SIGNATURES)}),
}


def system_for(name: str, libtorch: str = "1.13") -> System:
    """The system; c10 of a release other than 1.13 builds and tests in that release's preset."""
    system = SYSTEMS[name]
    if name != "c10" or libtorch == "1.13":
        return system
    preset = f"full-c10-{libtorch}"
    return System([preset], system.lister, preset, system.property_label, system.env)


def is_c10_target(target: str) -> bool:
    return target.startswith("c10_")


def options_file(target: str) -> Path:
    return (C10_FUZZ if is_c10_target(target) else paths.FUZZ_OPTIONS) / f"{target}.options"


def dictionary_file(target: str) -> Path:
    """c10 targets decode the registration fuzzer's bytes: its dictionary (named in the options)."""
    return paths.FUZZ_DICTIONARIES / f"{target}.dict"


def seed_corpora(target: str) -> List[Path]:
    """The committed inputs a campaign starts from: the target's own corpus and regressions; a c10
    target also registration_fuzzer's regressions (c10_registration_fuzzer reads them as the same
    actions, c10_release_keys_fuzzer with its own weights, NamedKey among them). A c10 target's
    corpus is registration_fuzzer's distilled by what it reaches on c10 (docs/c10-harness.md), so
    the seed replay fits a night's budget."""
    dirs = [paths.FUZZ_CORPUS / target, paths.FUZZ_REGRESSIONS / target]
    if is_c10_target(target):
        dirs.append(paths.FUZZ_REGRESSIONS / "registration_fuzzer")
    return [d for d in dirs if d.is_dir()]
