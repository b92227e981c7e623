"""The pre-merge layers of the pre-merge depth benchmark, as ctest entries of a configured tree:

  property  label property, without the entries that replay committed inputs: the property
            layer alone (its generators must reach the bug by themselves)
  unit      label unit, without the entries that replay committed inputs
  corpus    label corpus, plus the replays labelled otherwise: regressions_props (the committed
            counterexamples of properties/regressions.md), checker_agreement_props (reads
            fuzz/corpus and fuzz/regressions) and the GoogleTests of fuzz/regression_tests/
            (one per input that once failed)

An entry is seeded when its executable is a RapidCheck test (it reads RC_PARAMS): it runs once
per seed. Any other entry is deterministic and runs once per tree; its result stands for every
seed (the report says which layers were).
"""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

from .. import procs

LAYERS = ("property", "unit", "corpus")
REPLAY_TESTS = ("regressions_props", "checker_agreement_props")
REPLAY_DIRS = ("fuzz/regression_tests/",)
REPLAY_SUFFIXES = ("_corpus", "_regressions")
# RapidCheck reads its parameters from this variable: a binary without the string has no seed.
SEEDED_MARK = b"RC_PARAMS"


class LayerError(Exception):
    """The tree's ctest entries could not be listed: the layers cannot be run."""


@dataclass
class Entry:
    name: str
    labels: List[str]
    executable: str   # path of the test's command, relative to the build folder when inside it

    @property
    def target(self) -> str:
        """The build target: dispatch_add_test and the fuzz targets name it like the binary."""
        return Path(self.executable).name


def is_replay(entry: Entry) -> bool:
    return entry.name in REPLAY_TESTS or entry.executable.startswith(REPLAY_DIRS)


def layer_entries(entries: List[Entry]) -> Dict[str, List[Entry]]:
    """The entries of each layer (an entry may be in two: model_tests is unit and property)."""
    layers: Dict[str, List[Entry]] = {layer: [] for layer in LAYERS}
    for entry in entries:
        replay = is_replay(entry)
        if "corpus" in entry.labels or replay:
            layers["corpus"].append(entry)
        for layer in ("property", "unit"):
            if layer in entry.labels and not replay:
                layers[layer].append(entry)
    return layers


def parse_show_only(text: str, build_dir: Path) -> List[Entry]:
    """Entries from `ctest --show-only=json-v1`."""
    try:
        tests = json.loads(text)["tests"]
    except (ValueError, KeyError, TypeError) as e:
        raise LayerError(f"ctest --show-only=json-v1 gave no test list: {e}")
    entries = []
    for test in tests:
        properties = {p.get("name"): p.get("value") for p in test.get("properties", [])}
        if test.get("command"):
            executable = Path(test["command"][0])
        else:
            # Not built yet (ctest names no command then): the test's folder and its target.
            executable = Path(properties.get("WORKING_DIRECTORY") or build_dir) / target_of(test["name"])
        try:
            executable = executable.relative_to(build_dir)
        except ValueError:
            pass
        entries.append(Entry(test["name"], list(properties.get("LABELS") or []), str(executable)))
    return entries


def target_of(test_name: str) -> str:
    """The target a test runs: its own name (dispatch_add_test), or the fuzz target whose
    committed inputs <target>_corpus and <target>_regressions replay (fuzz/CMakeLists.txt)."""
    for suffix in REPLAY_SUFFIXES:
        if test_name.endswith(suffix):
            return test_name[:-len(suffix)]
    return test_name


def list_entries(build_dir: Path) -> List[Entry]:
    result = procs.capture(["ctest", "--test-dir", build_dir, "--show-only=json-v1"])
    if result.returncode != 0:
        raise LayerError(f"ctest --show-only failed in {build_dir}: {result.stderr.strip()[:200]}")
    return parse_show_only(result.stdout, Path(build_dir).resolve())


def is_seeded(binary: Path) -> bool:
    """Whether the built test reads RC_PARAMS (a RapidCheck test). A missing binary is not
    seeded; running it fails loudly anyway."""
    try:
        return SEEDED_MARK in Path(binary).read_bytes()
    except OSError:
        return False


def ctest_regex(entries: List[Entry]) -> str:
    return "^(" + "|".join(sorted(e.name for e in entries)) + ")$"
