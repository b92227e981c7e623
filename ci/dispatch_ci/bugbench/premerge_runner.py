"""Running the pre-merge depth benchmark: each bug's patched tree and the unpatched baseline are
built as the canary job builds them (canaries/trees.py: the fuzz preset of the bug's flavour,
hardened setup, under build/canary-work/ so ccache shares objects), with only the targets of the
chosen layers; then each layer's ctest entries run at their pre-merge case counts, the seeded
ones once per RapidCheck seed (RC_PARAMS="seed=N noshrink=1" and nothing else: the tests' own
max_success stays; a failing case is not shrunk), the deterministic ones once per tree. Every seed is judged (premerge_verdict.py)."""
import hashlib
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .. import paths, procs, scratch
from ..canaries.layers import _read
from ..canaries.patches import touched
from ..canaries.run import patched_source
from ..canaries.trees import BaselineCache, Tree
from ..canaries.verdict import Run
from . import premerge_layers, premerge_report
from .bugs import Bug
from .premerge_layers import Entry
from .premerge_verdict import Part, SeedVerdict, build_error, seed_verdict
from .runner import SETUP, build_baseline_once

# Kill limits per layer run (all its entries), well above their pre-merge times on a loaded
# 2-core machine: a run that overruns one is a timeout (an error), never a catch.
LAYER_TIMEOUT = {"property": 900, "unit": 600, "corpus": 1200}


@dataclass
class SeedRecord:
    """One bug x layer x seed, as the JSON keeps it."""
    bug: str
    kind: str
    layer: str
    seed: int
    result: str
    how: str
    seconds: float
    seeded: bool        # False: the layer has no RapidCheck entry, one run stands for every seed
    log: str
    # RapidCheck test -> the case that first failed ("Falsifiable after N tests"): how much of
    # its case count the property needed, i.e. the margin of the catch.
    first_failure: Dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def run_entries(build_dir: Path, entries: List[Entry], seed: Optional[int], log: Path, timeout: int) -> Run:
    """The entries in one ctest run; RC_PARAMS is exactly "seed=N noshrink=1" (or unset without
    a seed), so every property keeps its own pre-merge case count and size."""
    log.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("RC_PARAMS", None)
    if seed is not None:
        # noshrink: whether a layer catches the bug is decided when a case fails; shrinking
        # only makes its report shorter, at minutes per failure in a sanitizer build.
        env["RC_PARAMS"] = f"seed={seed} noshrink=1"
    cmd = ["ctest", "--test-dir", build_dir, "-R", premerge_layers.ctest_regex(entries),
           "--no-tests=error", "--output-on-failure"]
    result = procs.run(cmd, log=log, timeout=timeout, nice=10, cwd=paths.ROOT, env=env)
    return Run(result.returncode, result.timed_out, round(result.seconds, 1), _read(log))


class PremergeRun:
    def __init__(self, files: Dict[str, bytes], out: Path, jobs: int, layers: List[str], seeds: int,
                 say: Callable[[str], None]):
        self.files = files
        self.baseline = Tree("baseline", files)
        self.cache = BaselineCache(files)
        self.out = out
        self.jobs = jobs
        self.layers = layers
        self.seeds = seeds
        self.say = say
        self.records: List[SeedRecord] = []
        self._baseline_built: Dict[tuple, bool] = {}

    def _layer_entries(self, tree: Tree, flavour: str, log: Path) -> Dict[str, List[Entry]]:
        """Configure the tree (a build of no target) and list its layers' entries."""
        tree.build(flavour, SETUP, ["dispatch"], self.jobs, log)
        entries = premerge_layers.list_entries(tree.build_dir(flavour, SETUP))
        chosen = premerge_layers.layer_entries(entries)
        return {layer: chosen[layer] for layer in self.layers}

    def _build_baseline(self, flavour: str, targets: List[str]) -> bool:
        return build_baseline_once(self._baseline_built, self.baseline, self.out, flavour, targets, self.jobs)

    def run_bug(self, bug: Bug) -> None:
        log_dir = self.out / "logs" / bug.name
        try:
            tree = Tree(bug.name, scratch.apply_patch(self.files, bug.diff, bug.name))
        except scratch.ApplyError as e:
            return self._errors(bug, f"the patch does not apply: {str(e).splitlines()[0]}")
        try:
            layers = self._layer_entries(tree, bug.flavour, log_dir / "build.log")
        except premerge_layers.LayerError as e:
            return self._errors(bug, str(e))
        targets = sorted({e.target for entries in layers.values() for e in entries})
        self.say(f"{bug.name}: build {len(targets)} targets ({bug.flavour})")
        if not tree.build(bug.flavour, SETUP, targets, self.jobs, log_dir / "build.log"):
            return self._errors(bug, f"build failed: see {paths.rel(log_dir / 'build.log')}")
        baseline_ok = self._build_baseline(bug.flavour, targets)
        changed, source = touched(bug.diff), patched_source(tree.src)
        for layer, entries in layers.items():
            build_dir = tree.build_dir(bug.flavour, SETUP)
            seeded = [e for e in entries if premerge_layers.is_seeded(build_dir / e.executable)]
            fixed = [e for e in entries if e not in seeded]
            fixed_part = (self._part(tree, bug, layer, "deterministic", fixed, None, baseline_ok, log_dir)
                          if fixed else None)
            for seed in range(1, self.seeds + 1):
                parts = [p for p in (fixed_part,) if p is not None]
                if seeded:
                    parts.append(self._part(tree, bug, layer, "seeded", seeded, seed, baseline_ok, log_dir))
                verdict = seed_verdict(parts, changed, source)
                self._add(bug, layer, seed, verdict, bool(seeded),
                          log_dir / f"{layer}-seeded.seed{seed}.log" if seeded else log_dir / f"{layer}-deterministic.log")
                if seeded:
                    self.records[-1].first_failure = premerge_report.first_failures(parts[-1].patched.log)
            mine = [r for r in self.records if r.bug == bug.name and r.layer == layer]
            self.say(f"    {layer}: caught in {sum(r.result == 'caught' for r in mine)}/{len(mine)} seeds"
                     + (f", {sum(r.result == 'error' for r in mine)} error(s): {next(r.how for r in mine if r.result == 'error')}"
                        if any(r.result == "error" for r in mine) else "")
                     + ("" if seeded else " (deterministic: one run for every seed)"))

    def _part(self, tree: Tree, bug: Bug, layer: str, what: str, entries: List[Entry], seed: Optional[int],
              baseline_ok: bool, log_dir: Path) -> Part:
        name = f"{layer}-{what}" + (f".seed{seed}" if seed is not None else "")
        timeout = LAYER_TIMEOUT[layer]
        baseline = None
        if baseline_ok:
            # The entry list is part of the key: another layer split must not reuse the run.
            entries_key = hashlib.sha256(premerge_layers.ctest_regex(entries).encode()).hexdigest()[:12]
            cache_name = f"premerge-{name}-{entries_key}"
            baseline = self.cache.get(bug.flavour, SETUP, cache_name)
            if baseline is None:
                log = self.out / "logs" / f"baseline-{bug.flavour.replace(':', '-')}" / f"{name}.log"
                baseline = run_entries(self.baseline.build_dir(bug.flavour, SETUP), entries, seed, log, timeout)
                self.cache.put(bug.flavour, SETUP, cache_name, baseline)
        patched = run_entries(tree.build_dir(bug.flavour, SETUP), entries, seed, log_dir / f"{name}.log", timeout)
        return Part(what, patched, baseline)

    def _add(self, bug: Bug, layer: str, seed: int, verdict: SeedVerdict, seeded: bool, log: Path) -> None:
        self.records.append(SeedRecord(bug.name, bug.kind, layer, seed, verdict.result, verdict.how,
                                       round(verdict.seconds, 1), seeded, paths.rel(log)))

    def _errors(self, bug: Bug, why: str) -> None:
        self.say(f"{bug.name}: ERROR: {why}")
        for layer in self.layers:
            for seed in range(1, self.seeds + 1):
                self._add(bug, layer, seed, build_error(why), True, self.out / "logs" / bug.name / "build.log")
