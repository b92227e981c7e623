"""Running the bug benchmark: each bug's patched tree and the unpatched baseline are built the way
the canary job builds them (canaries/trees.py: the fuzz preset of the bug's flavour, build
folders under build/canary-work/ so ccache shares objects with the canary job), one build at a
time; then each bug x target x mutator x seed fuzzes from an empty corpus, `jobs` processes at a
time (one per core), and every run is judged (verdict.py). A run may also turn ASan's fake stacks
off (FAKE_STACKS), to measure what that detector costs a fuzzer in bugs found over time."""
import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .. import paths, scratch
from ..canaries import layers
from ..canaries.run import patched_source
from ..canaries.trees import Tree
from ..canaries.verdict import Run, Seed
from ..sanitizer_env import sanitizer_env, with_option
from .bugs import Bug
from .verdict import ERROR, Judged, judge

SETUP = "hardened"   # the canary job's fuzz setup: ASan + UBSan + hardened library + assertions
# "default" runs each target as committed; the others set DISPATCH_FUZZ_MUTATOR
# (fuzz/harness/trace_mutator_hooks.h) for the targets that have the structure-aware mutator.
MUTATORS = ("default", "bytes", "structure")
MUTATOR_TARGETS = ("registration_fuzzer", "fallback_fuzzer", "library_fuzzer", "boxed_call_fuzzer")
FINAL_STATS = ["-print_final_stats=1"]
# ASan's detect_stack_use_after_return in a run: "default" as the target fuzzes (sanitizer_builds/
# asan.options and the [asan] section of its options file), or "on" / "off" whatever those say.
# With it on, a function left by an exception can leak its fake frame (llvm/llvm-project#224084),
# and once a size class fills, every call scans all its slots: the trace targets, whose calls
# to a missing kernel throw by design, slow to a third within minutes (fuzz/campaigns.md).
FAKE_STACKS = ("default", "on", "off")


def build_baseline_once(built: Dict[tuple, bool], baseline: Tree, out: Path, flavour: str,
                        targets: List[str], jobs: int) -> bool:
    """The unpatched tree's targets of a flavour, built once per run (`built` remembers the result)."""
    key = (flavour, tuple(sorted(targets)))
    if key not in built:
        log = out / "logs" / f"baseline-{flavour.replace(':', '-')}" / "build.log"
        built[key] = baseline.build(flavour, SETUP, targets, jobs, log)
    return built[key]


@dataclass
class RunRecord:
    """One fuzzing run, as the JSON keeps it."""
    bug: str
    kind: str
    target: str
    mutator: str
    seed: int
    budget: float
    result: str
    seconds: float
    executions: Optional[int]
    how: str
    log: str
    same_run_as: str = ""   # the mutator whose run this one is (distinct_run), or "" for its own
    fake_stacks: str = "default"   # ASan's detect_stack_use_after_return in this run (FAKE_STACKS)

    def to_json(self) -> dict:
        return asdict(self)


def distinct_run(target: str, mutator: str, mutators: List[str]) -> str:
    """The mutator column whose run stands for (target, mutator): a target without the
    structure-aware mutator runs libFuzzer's own mutation in every column, and a seed gives the
    same run each time, so its first column's run is every column's (running it again would
    only cost its budget)."""
    return mutator if target in MUTATOR_TARGETS else mutators[0]


def run_env(fuzzing: Dict[str, str], mutator: str, target: str, fake_stacks: str) -> Dict[str, str]:
    """The run's environment: the target's fuzzing environment (layers.fuzzing_env) with the
    mutator's switch (mutator_env), and ASan's fake stacks set when the run names them."""
    env = mutator_env(fuzzing, mutator, target)
    if fake_stacks != "default":
        env["ASAN_OPTIONS"] = with_option(env.get("ASAN_OPTIONS", ""), "detect_stack_use_after_return",
                                          "1" if fake_stacks == "on" else "0")
    return env


def mutator_env(base: Dict[str, str], mutator: str, target: str) -> Dict[str, str]:
    """The run's environment: DISPATCH_FUZZ_MUTATOR for a target that has the custom mutator and
    a mutator other than its default; unset otherwise (a target without the hook is always
    libFuzzer's own mutation, whatever the column says)."""
    env = dict(base)
    env.pop("DISPATCH_FUZZ_MUTATOR", None)
    if mutator != "default" and target in MUTATOR_TARGETS:
        env["DISPATCH_FUZZ_MUTATOR"] = mutator
    return env


class BenchRun:
    """`done`: runs an earlier sitting judged (journal.py), by key_of; they are kept, not run.
    `on_record`: called with each new record as it is judged (the journal)."""

    def __init__(self, files: Dict[str, bytes], out: Path, jobs: int, budget: int,
                 say: Callable[[str], None], done: Optional[Dict[tuple, dict]] = None,
                 on_record: Callable[[dict], None] = lambda record: None):
        self.files = files
        self.done = done or {}
        self.on_record = on_record
        self.baseline = Tree("baseline", files)
        self.out = out
        self.jobs = jobs
        self.budget = budget
        self.say = say
        self.env = sanitizer_env()
        self.records: List[RunRecord] = []
        self._baseline_built: Dict[tuple, bool] = {}

    def _build_baseline(self, flavour: str, targets: List[str]) -> bool:
        return build_baseline_once(self._baseline_built, self.baseline, self.out, flavour, targets, self.jobs)

    def run_bug(self, bug: Bug, targets: List[str], mutators: List[str], seeds: int,
                fake_stacks: Sequence[str] = ("default",)) -> None:
        """Builds the bug's tree and runs every target x mutator x fake stacks x seed that no
        earlier sitting judged; a bug whose tree does not apply or build gets an error record
        per run still to do (it never drops out)."""
        log_dir = self.out / "logs" / bug.name
        planned = [(t, m, f, s) for t in targets for m in mutators for f in fake_stacks for s in range(1, seeds + 1)]
        distinct = [(t, m, f, s) for t, m, f, s in planned if distinct_run(t, m, mutators) == m]
        ran = {item: RunRecord(**self.done[(bug.name, *item)]) for item in distinct if (bug.name, *item) in self.done}
        todo = [item for item in distinct if item not in ran]
        if ran:
            self.say(f"{bug.name}: {len(ran)} of {len(distinct)} runs judged in an earlier sitting")
        tree, why = self._build(bug, targets, log_dir) if todo else (None, "")
        if why:
            self.say(f"{bug.name}: ERROR: {why}")
            ran.update({item: self._error(bug, item, why) for item in todo})
        elif todo:
            self.say(f"{bug.name}: {len(todo)} runs of {self.budget}s, {self.jobs} at a time"
                     + (f" ({len(planned) - len(distinct)} more are the same runs: targets without the "
                        "structure-aware mutator)" if len(distinct) < len(planned) else ""))
            ran.update(self._run_all(bug, tree, todo, log_dir))
        for item in distinct:
            self.records.append(ran[item])
        for target, mutator, fake, seed in planned:
            stands_for = distinct_run(target, mutator, mutators)
            if stands_for != mutator:
                self.records.append(replace(ran[(target, stands_for, fake, seed)], mutator=mutator,
                                            same_run_as=stands_for))

    def _build(self, bug: Bug, targets: List[str], log_dir: Path) -> Tuple[Optional[Tree], str]:
        """The bug's tree, built with the baseline; or why not."""
        try:
            tree = Tree(bug.name, scratch.apply_patch(self.files, bug.diff, bug.name))
        except scratch.ApplyError as e:
            return None, f"the patch does not apply: {str(e).splitlines()[0]}"
        self.say(f"{bug.name}: build {' '.join(targets)} ({bug.flavour})")
        start = time.time()
        if not tree.build(bug.flavour, SETUP, targets, self.jobs, log_dir / "build.log"):
            return None, f"build failed: see {paths.rel(log_dir / 'build.log')}"
        if not self._build_baseline(bug.flavour, targets):
            return None, "the unpatched build failed"
        self.say(f"{bug.name}: built in {int(time.time() - start)}s")
        return tree, ""

    def _run_all(self, bug: Bug, tree: Tree, todo: list, log_dir: Path) -> Dict[tuple, RunRecord]:
        """Runs `todo`, `jobs` at a time; each record goes to on_record as soon as it is judged."""
        def one(item) -> RunRecord:
            target, mutator, fake, seed = item
            work = log_dir / (f"{target}-{mutator}" + ("-no-fake-stacks" if fake == "off" else ""))
            return self._run(bug, tree, target, mutator, fake, seed, work)
        ran = {}
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(one, item): item for item in todo}
            for future in as_completed(futures):
                record = future.result()
                ran[futures[future]] = record
                self.on_record(record.to_json())
                self.say(f"    {record.target} {record.mutator}"
                         + (" no-fake-stacks" if record.fake_stacks == "off" else "")
                         + f" seed {record.seed}: {record.result}"
                         + (f" in {record.seconds:.1f}s / {record.executions} executions"
                            if record.result == "found" else "")
                         + (f" ({record.how})" if record.result == ERROR else ""))
        return ran

    def _error(self, bug: Bug, item: tuple, why: str) -> RunRecord:
        target, mutator, fake, seed = item
        return RunRecord(bug.name, bug.kind, target, mutator, seed, self.budget, ERROR, 0.0, None, why, "",
                         fake_stacks=fake)

    def _run(self, bug: Bug, tree: Tree, target: str, mutator: str, fake_stacks: str, seed: int,
             work: Path) -> RunRecord:
        binary = tree.build_dir(bug.flavour, SETUP) / "fuzz" / target
        base_binary = self.baseline.build_dir(bug.flavour, SETUP) / "fuzz" / target
        env = run_env(layers.fuzzing_env(self.env, target, tree.src), mutator, target, fake_stacks)
        exists = binary.is_file() and os.access(binary, os.X_OK) and base_binary.is_file()
        result = Seed(Run(127), None)
        if exists:
            result.run = layers.run_seed(binary, target, seed, work, tree.src, env, self.budget,
                                         from_corpus=False, extra_flags=FINAL_STATS)
            artifact = layers.artifact_of(work, seed)
            if not result.run.passed and artifact is not None:
                result.artifact = str(artifact)
                # Re-runs as the replays check a found input: the sanitizers' options as committed.
                result.rerun_patched = layers.rerun_artifact(
                    binary, artifact, work / f"seed{seed}.rerun-patched.log", self.env)
                result.rerun_baseline = layers.rerun_artifact(
                    base_binary, artifact, work / f"seed{seed}.rerun-baseline.log", self.env)
        judged: Judged = judge(exists, result, self.budget, bug.touched, patched_source(tree.src))
        return RunRecord(bug.name, bug.kind, target, mutator, seed, self.budget, judged.result,
                         round(judged.seconds, 1), judged.executions, judged.how,
                         paths.rel(work / f"seed{seed}.log"), fake_stacks=fake_stacks)
