"""ci/replay.sh -- replay every committed fuzz input under every preset, fast.

  ci/replay.sh [--presets a,b,c] [--targets a,b] [--jobs N] [--timeout S] [--input-timeout S]
               [--input-root DIR]... [--canary NAME]

With no --presets: the presets ci/premerge.sh takes (those whose system is installed here).
For each preset: `cmake --preset P` (reuses build/P), builds ONLY the fuzz targets
(`print_fuzz_targets` names them), and runs each target once over its directories
fuzz/corpus/<target>/ and fuzz/regressions/<target>/ under the sanitizer environment
(sanitizer_builds/env.sh): replay binaries take the directories directly, libFuzzer binaries
(fuzz presets) as `-runs=0 <scratch> <dirs>`. Reports inputs/s per target x preset. A failing
input is named (from the replay main's "Running: <file>" line, or from libFuzzer's
crash-/leak-/timeout-<sha1> artifact); the rest of the inputs are then replayed without it, so
one run names every failing file. Exits non-zero on any failure.

--canary NAME replays against build/<preset>-canary-NAME (configured on first use from the tree
with ci/canaries/NAME.patch applied, as ci/nightly.sh --canary does): does the committed corpus catch that planted bug?
(It should FAIL.)

Logs: build/replay-results/logs/<preset>.<target>.log; failing files: build/replay-results/failures.txt;
JUnit: build/replay-results/junit.xml (one case per preset x target; a failing input is a failure,
no inputs or a broken build an error).
"""
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List

from .. import junit, paths, procs, project, replay_rules as rules, table
from ..log import Say, UsageError
from ..presets import chosen_presets, positive_int, read_cache, split_csv
from ..sanitizer_env import sanitizer_env
from ..canaries.trees import canary_source

SCRIPT = "ci/replay.sh"


def add_arguments(p):
    p.add_argument("--presets", help="presets (default: every visible configure preset whose system is "
                                     "installed here; the c10 ones only where libtorch of their release is)")
    p.add_argument("--targets", help="only these fuzz targets (default: all that print_fuzz_targets names)")
    p.add_argument("--jobs", "-j", type=positive_int, default=os.cpu_count() or 2,
                   help="build parallelism (default: nproc)")
    p.add_argument("--timeout", type=positive_int, default=900, help="wall-clock limit per binary run (default 900)")
    p.add_argument("--input-timeout", type=positive_int, default=25,
                   help="limit per input (default 25, libFuzzer's -timeout in the nightly): the replay main is "
                        "killed when no new \"Running:\" line came for S seconds")
    p.add_argument("--input-root", action="append", default=[],
                   help="replay DIR/<target>/ instead of fuzz/corpus/ and fuzz/regressions/ (repeatable)")
    p.add_argument("--canary", help="replay against build/<preset>-canary-NAME (it should FAIL)")


@dataclass
class Row:
    preset: str
    target: str
    inputs: str = "-"
    seconds: str = "-"
    rate: str = "-"
    result: str = ""


class Replay:
    def __init__(self, args, presets: List[str], roots: List[Path], env: dict):
        self.args, self.presets, self.roots, self.env = args, presets, roots, env
        self.wanted = split_csv(args.targets, "targets") if args.targets else []
        self.say = Say(SCRIPT)
        self.results = paths.BUILD / "replay-results"
        self.rows: List[Row] = []
        self.failed = False   # set from the rows at the end (replay_rules.replay_failed)

    def failure(self, preset, target, file, what) -> None:
        with open(self.results / "failures.txt", "a") as f:
            f.write(f"{preset}\t{target}\t{file}\t{what}\n")

    def watched(self, binary, args, out: Path, libfuzzer: bool) -> procs.Result:
        # libFuzzer enforces -timeout itself; the replay main is watched for progress.
        return procs.run([binary, *args], log=out, env=self.env, timeout=self.args.timeout,
                         idle_timeout=None if libfuzzer else self.args.input_timeout,
                         progress=lambda line: line.startswith("Running: "))

    def run_target(self, preset: str, target: str, binary: Path, libfuzzer: bool, work: Path) -> None:
        log = self.results / "logs" / f"{preset}.{target}.log"
        inputs = rules.list_inputs(self.roots, target)
        row = Row(preset, target, str(len(inputs)))
        self.rows.append(row)
        if not inputs:
            # Nothing replayed is not a pass (a renamed corpus folder, an empty --input-root).
            row.result = rules.NO_INPUTS
            self.say(f"{preset}/{target}: FAILED: no inputs in {' '.join(map(str, self.roots))} (/{target})")
            return
        dirs = [r / target for r in self.roots if any(f.is_file() and not f.name.startswith(".")
                                                      for f in (r / target).glob("*"))]
        remaining, failed = list(inputs), []
        scratch = work / f"{preset}.{target}"
        log.write_text("")
        start = time.time()
        first_pass = None
        attempt = 0
        while True:
            attempt += 1
            shutil.rmtree(scratch, ignore_errors=True)
            for sub in ("new", "artifacts", "in"):
                (scratch / sub).mkdir(parents=True)
            resume = {}
            if attempt == 1:
                args = [str(d) for d in dirs]
            else:
                # What is left, from one folder of hard links/copies named <n>.<name>, so that
                # they keep their order and map back to their source.
                for n, f in enumerate(remaining):
                    link = scratch / "in" / f"{n:06d}.{f.name}"
                    try:
                        os.link(f, link)
                    except OSError:
                        shutil.copyfile(f, link)
                    resume[str(link)] = f
                args = [str(scratch / "in")]
            if libfuzzer:
                # The scratch folder first: libFuzzer writes new units only into the first one.
                args = ["-runs=0", f"-timeout={self.args.input_timeout}", "-rss_limit_mb=2560",
                        f"-artifact_prefix={scratch}/artifacts/", str(scratch / "new"), *args]
            with open(log, "a") as f:
                f.write(f"### attempt {attempt}: {binary} {' '.join(args)}\n")
            r = self.watched(binary, args, scratch / "out", libfuzzer)
            output = (scratch / "out").read_text(errors="replace")
            with open(log, "a") as f:
                f.write(output)
            first_pass = first_pass or time.time()
            if r.ok:
                break
            artifact = next((a for a in sorted((scratch / "artifacts").iterdir())
                             if a.name.startswith(rules.ARTIFACT_PREFIXES)), None) if libfuzzer else None
            ran = [] if libfuzzer else [resume.get(x, Path(x)) for x in rules.ran_inputs(output)]
            culprit = (rules.culprit_from_artifact(artifact, remaining) if libfuzzer
                       else rules.culprit_from_output(output, resume))
            if culprit is None:
                # No name in the output (e.g. a leak reported at exit): one input at a time.
                for f in remaining:
                    if not self.watched(binary, [str(f)], scratch / "one", libfuzzer).ok:
                        culprit = f
                        one = (scratch / "one").read_text(errors="replace")
                        with open(log, "a") as lf:
                            lf.write(f"### one by one: {f} fails\n{one}")
                        output = one
                        break
            what = rules.failure_text(r.returncode, r.timed_out, artifact, output, self.args.input_timeout,
                                      self.args.timeout, libfuzzer)
            if culprit is None:
                self.failure(preset, target, "(input not identified)", what)
                failed.append(None)
                self.say(f"{preset}/{target}: FAILED (rc={r.returncode}) and no single input reproduces it: {what}")
                break
            failed.append(culprit)
            self.failure(preset, target, culprit, what)
            self.say(f"{preset}/{target}: FAILED on {culprit}: {what}")
            remaining = rules.still_to_replay(remaining, [f for f in failed if f], ran)
            if not remaining:
                break
            if len(failed) >= rules.MAX_FAILURES:
                self.say(f"{preset}/{target}: {rules.MAX_FAILURES} failing inputs; not replaying the other {len(remaining)}")
                break
        row.seconds = f"{time.time() - start:.2f}"
        if not failed:
            # Speed of the first pass over the folders (start-up included): what CI pays.
            row.rate = rules.inputs_per_second(len(inputs), first_pass - start)
            row.result = "passed"
            self.say(f"{preset}/{target}: {len(inputs)} inputs passed in {row.seconds}s ({row.rate} inputs/s)")
        else:
            row.result = f"FAILED ({len(failed)})"

    def run_preset(self, index: int, preset: str, work: Path) -> None:
        logs = self.results / "logs"
        build_dir = paths.build_dir(preset)
        cfg = ["cmake", "--preset", preset]
        if self.args.canary:
            build_dir = paths.BUILD / f"{preset}-canary-{self.args.canary}"
            cfg = ["cmake", "-S", canary_source(self.args.canary), "--preset", preset, "-B",
                   build_dir]
        self.say(f"({index}/{len(self.presets)}) {preset}: {' '.join(cfg)}")
        if not procs.run(cfg, log=logs / f"{preset}.configure.log").ok:
            print("\n".join((logs / f"{preset}.configure.log").read_text(errors="replace").splitlines()[-20:]))
            self.say(f"{preset}: CONFIGURE FAILED")
            self.rows.append(Row(preset, "-", result="CONFIG-FAIL"))
            return
        targets = project.print_fuzz_targets(build_dir, logs / f"{preset}.targets.log")
        if targets is None:
            self.say(f"{preset}: builds no fuzz targets (no print_fuzz_targets); skipped")
            return
        if self.wanted:
            targets = [t for t in targets if t in self.wanted]
        if not targets:
            self.say(f"{preset}: no fuzz targets selected; skipped")
            return
        self.env["LLVM_PROFILE_FILE"] = str(build_dir / "profraw" / "replay-%m.profraw")
        libfuzzer = read_cache(build_dir).get("DISPATCH_FUZZ") == "ON"
        self.say(f"{preset}: building {' '.join(targets)} ({'libFuzzer' if libfuzzer else 'replay main'})")
        start = time.time()
        build_log = logs / f"{preset}.build.log"
        if not procs.run(["cmake", "--build", build_dir, "-j", str(self.args.jobs), "--target", *targets],
                         log=build_log).ok:
            errors = [l for l in build_log.read_text(errors="replace").splitlines()
                      if l.startswith("FAILED:") or "error:" in l][:20]
            print("\n".join("    " + l for l in errors))
            self.say(f"{preset}: BUILD FAILED (log: {paths.rel(build_log)})")
            self.rows += [Row(preset, t, result="BUILD-FAIL") for t in targets]
            return
        self.say(f"{preset}: built in {int(time.time() - start)}s")
        for t in targets:
            self.run_target(preset, t, build_dir / "fuzz" / t, libfuzzer, work)

    def warn_orphan_folders(self) -> None:
        """Corpus folders without a target are a mistake (a renamed target leaves its seeds unreplayed)."""
        if self.wanted:
            return
        replayed = {r.target for r in self.rows}
        for root in self.roots:
            for d in sorted(p for p in root.iterdir() if p.is_dir()):
                if d.name not in replayed:
                    self.say(f"warning: {root}/{d.name} has no fuzz target of that name in any replayed preset")

    def write_junit(self) -> None:
        failures = {}
        for line in (self.results / "failures.txt").read_text().splitlines():
            fp, ft, ff, fw = line.split("\t", 3)
            failures.setdefault((fp, ft), []).append(f"{ff}: {fw}\n  reproduce: ci/repro.sh {ff} --preset {fp}")
        cases = []
        for r in self.rows:
            outcome = rules.junit_outcome(r.result)
            seconds = float(r.seconds) if r.seconds != "-" else 0.0
            cases.append(junit.Case(f"replay.{r.preset}", r.target, outcome,
                                    "" if outcome == "passed" else f"{r.result} ({r.inputs} inputs)",
                                    "\n".join(failures.get((r.preset, r.target), [])), seconds,
                                    output=f"{r.inputs} inputs, {r.rate} inputs/s: {r.result}"))
        junit.write_suite(self.results / "junit.xml", "replay" + (f" canary {self.args.canary}" if self.args.canary else ""),
                          cases)

    def summary(self, seconds: int) -> str:
        canary = f"; CANARY builds: {self.args.canary}" if self.args.canary else ""
        widths = (18, 22, -8, -9, -10)
        lines = [f"ci/replay.sh summary ({seconds}s total{canary})",
                 table.row(widths, ("preset", "target", "inputs", "time(s)", "inputs/s")) + "  result"]
        lines += [table.row(widths, (r.preset, r.target, r.inputs, r.seconds, r.rate)) + f"  {r.result}"
                  for r in self.rows]
        failures = (self.results / "failures.txt").read_text().splitlines()
        if failures:
            lines += ["", "failing inputs (preset, target, file, what; also in build/replay-results/failures.txt):"]
            for line in failures:
                fp, ft, ff, fw = line.split("\t", 3)
                lines += [f"  FAILED {fp} {ft} {ff}", f"         {fw}",
                          f"         reproduce: ci/repro.sh {ff} --preset {fp}"
                          + (f" --canary {self.args.canary}" if self.args.canary else "")]
        lines += ["", "RESULT: FAILED" if self.failed else "RESULT: passed"]
        return "\n".join(lines)


def run(args) -> int:
    presets = chosen_presets(args.presets, Say(SCRIPT))
    if args.canary and args.canary not in project.known_canaries():
        raise UsageError(f"unknown canary '{args.canary}' (the canaries are "
                         f"{paths.rel(paths.CANARY_PATCHES)}/*.patch)")
    roots = [Path(r) for r in args.input_root] or [Path(paths.rel(paths.FUZZ_CORPUS)), Path(paths.rel(paths.FUZZ_REGRESSIONS))]
    for r in roots:
        if not r.is_dir():
            raise UsageError(f"--input-root {r} is not a folder")
    job = Replay(args, presets, roots, sanitizer_env())
    (job.results / "logs").mkdir(parents=True, exist_ok=True)
    for old in (job.results / "logs").glob("*.log"):
        old.unlink()
    (job.results / "failures.txt").write_text("")
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="work.", dir=job.results) as work:
        for i, preset in enumerate(presets, 1):
            job.run_preset(i, preset, Path(work))
    job.warn_orphan_folders()
    job.failed = rules.replay_failed([r.result for r in job.rows])
    job.write_junit()
    print()
    print(job.summary(int(time.time() - start)))
    return 1 if job.failed else 0
