"""One canary run: for each canary x flavour x setup, build the patched and the unpatched tree,
run the planned layers on both, and turn the recorded runs into rows (verdict.py decides)."""
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional

from .. import fuzz_options, paths
from ..log import Say
from ..sanitizer_env import sanitizer_env
from . import layers
from .classify import OWN_DIRS, short_path
from .enclosing import function_body
from .patches import Canary, touched
from .trees import BaselineCache, Tree
from .verdict import (ERROR, FUZZ_SEEDS, Outcome, Row, Run, Seed, ctest_outcome, fuzz_outcome)


class CanaryRun:
    def __init__(self, files: Dict[str, bytes], patched: Dict[str, Dict[str, bytes]],
                 out: Path, jobs: int, say: Say):
        self.baseline_tree = Tree("baseline", files)
        self.cache = BaselineCache(files)
        self.patched = patched  # canary name -> its patched file set
        self.logs = out / "logs"
        self.jobs = jobs
        self.say = say
        self.rows: List[Row] = []
        self._env: Optional[Dict[str, str]] = None
        self._baseline_built: Dict[tuple, bool] = {}

    def env(self) -> Dict[str, str]:
        if self._env is None:
            self._env = sanitizer_env()
        return self._env

    def run(self, canary: Canary, flavour: str, setup: str, items: List[str]) -> None:
        targets = sorted({item.split(":", 1)[1] for item in items})
        tree = Tree(canary.name, self.patched[canary.name])
        tag = f"{canary.name} [{flavour}, {setup}]"
        log_dir = self.logs / f"{canary.name}-{flavour}-{setup}"
        self.say(f"{tag}: build {' '.join(targets)}")
        start = time.time()
        built = tree.build(flavour, setup, targets, self.jobs, log_dir / "build.log")
        base_ok = self._build_baseline(flavour, setup, targets)
        if not built or not base_ok:
            what = "build failed" if not built else "baseline build failed"
            log = log_dir / "build.log" if not built else self._baseline_log(flavour, setup)
            self.say(f"{tag}: {what.upper()} (log: {paths.rel(log)})")
            for line in _tail(log, 15):
                print(f"    {line}", flush=True)
            for item in items:
                layer, target = item.split(":", 1)
                self._add(canary, flavour, setup, layer, target,
                          Outcome(ERROR, what, 0, f"see {paths.rel(log)}"))
            return
        self.say(f"{tag}: built in {int(time.time() - start)}s")
        changed = touched(canary.diff)
        for item in items:
            layer, target = item.split(":", 1)
            self.say(f"{tag} {layer} {target}")
            if layer == "fuzz":
                outcome = self._fuzz(tree, canary, flavour, setup, target, log_dir, changed)
            else:
                outcome = self._ctest(tree, canary, flavour, setup, layer, target, log_dir, changed)
            self._add(canary, flavour, setup, layer, target, outcome)
            print(f"    {outcome.result} ({outcome.detail}, {outcome.seconds}s) {outcome.how}",
                  flush=True)

    def _add(self, canary, flavour, setup, layer, target, outcome: Outcome) -> None:
        self.rows.append(Row(canary.name, flavour, setup, layer, target, outcome))

    def _baseline_log(self, flavour: str, setup: str) -> Path:
        return self.logs / f"baseline-{flavour}-{setup}" / "build.log"

    def _build_baseline(self, flavour: str, setup: str, targets: List[str]) -> bool:
        """The unpatched tree, same flavour and setup, with every target this run needs."""
        key = (flavour, setup, tuple(targets))
        if key not in self._baseline_built:
            self._baseline_built[key] = self.baseline_tree.build(
                flavour, setup, targets, self.jobs, self._baseline_log(flavour, setup))
        return self._baseline_built[key]

    def _baseline_ctest(self, flavour, setup, layer, target, timeout) -> Run:
        name = f"{layer}-{target}"
        cached = self.cache.get(flavour, setup, name)
        if cached:
            return cached
        log = self.logs / f"baseline-{flavour}-{setup}" / f"{name}.log"
        run = layers.run_ctest(self.baseline_tree.build_dir(flavour, setup), layer, target, log,
                               timeout)
        self.cache.put(flavour, setup, name, run)
        return run

    def _ctest(self, tree, canary, flavour, setup, layer, target, log_dir, changed) -> Outcome:
        timeout = canary.timeout or layers.CTEST_TIMEOUT[layer]
        baseline = self._baseline_ctest(flavour, setup, layer, target, timeout)
        patched = layers.run_ctest(tree.build_dir(flavour, setup), layer, target,
                                   log_dir / f"{layer}-{target}.log", timeout)
        return ctest_outcome(patched, baseline, changed, patched_source(tree.src))

    def _fuzz(self, tree, canary, flavour, setup, target, log_dir, changed) -> Outcome:
        binary = tree.build_dir(flavour, setup) / "fuzz" / target
        base_binary = self.baseline_tree.build_dir(flavour, setup) / "fuzz" / target
        for b in (binary, base_binary):
            if not b.is_file():
                return Outcome(ERROR, "not built", 0, f"missing {paths.rel(b)}")
        work = log_dir / f"fuzz-{target}"
        base_work = self.logs / f"baseline-{flavour}-{setup}" / f"fuzz-{target}"
        env = self.env()

        def one(seed: int) -> Seed:
            return self._seed(tree, binary, base_binary, flavour, setup, target, seed, work,
                              base_work, env)
        try:
            # `jobs` seeds at a time, as the old job ran them.
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                seeds = list(pool.map(one, range(1, FUZZ_SEEDS + 1)))
        except FileNotFoundError as e:
            return Outcome(ERROR, "missing file", 0, str(e))
        except fuzz_options.OptionsError as e:
            return Outcome(ERROR, "bad options file", 0, str(e))
        return fuzz_outcome(seeds, changed, layers.FUZZ_SECONDS, patched_source(tree.src))

    def _seed(self, tree, binary, base_binary, flavour, setup, target, seed, work, base_work,
              env) -> Seed:
        name = f"fuzz-{target}.seed{seed}"
        baseline = self.cache.get(flavour, setup, name)
        if baseline is None:
            baseline = layers.run_seed(base_binary, target, seed, base_work, self.baseline_tree.src,
                                       layers.fuzzing_env(env, target, self.baseline_tree.src))
            self.cache.put(flavour, setup, name, baseline)
        run = layers.run_seed(binary, target, seed, work, tree.src, layers.fuzzing_env(env, target, tree.src))
        result = Seed(run, baseline)
        if run.passed:
            return result
        artifact = layers.artifact_of(work, seed)
        if artifact is not None:
            result.artifact = str(artifact)
            result.rerun_patched = layers.rerun_artifact(
                binary, artifact, work / f"seed{seed}.rerun-patched.log", env)
            result.rerun_baseline = layers.rerun_artifact(
                base_binary, artifact, work / f"seed{seed}.rerun-baseline.log", env)
        return result


def patched_source(src: Path):
    """The verdict's source reader: a report's file read from the patched copy `src`, by its
    path from the first own folder on (debug info may name another copy: ccache); a bare
    file name (condensed report) only when exactly one own file has it."""
    def read(path: str, line: int):
        if "/" in path:
            return function_body(str(src / short_path(path)), line)
        found = [p for own in OWN_DIRS for p in (src / own).rglob(path) if p.is_file()]
        return function_body(str(found[0]), line) if len(found) == 1 else ("", "")
    return read


def _tail(log: Path, count: int) -> List[str]:
    try:
        return Path(log).read_text(encoding="utf-8", errors="replace").splitlines()[-count:]
    except OSError:
        return []
