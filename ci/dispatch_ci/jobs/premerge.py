"""ci/premerge.sh -- the pre-merge matrix: every flavour x setup preset, every test label.

  ci/premerge.sh [--presets a,b,c] [--labels a,b,c] [--jobs N] [--configure-only]

With no --presets: every visible configure preset whose system is installed here (the c10
presets only where libtorch of their release is; one line says which were left out and why).
--configure-only configures each preset into a scratch tree (build/configure-check/<preset>)
and stops: the cheap check that the matrix still configures, which the test command runs.

For each preset (CMakePresets.json): `cmake --preset P` (reuses build/P, never --fresh),
`cmake --build build/P`, then one ctest run per label (`ctest -L ^label$`). A label with no
test in a preset (`ctest -N -L`) is "n/a", not a pass and not a failure. The pseudo-label
`canary` runs `ci/canaries.sh --fast` once (if that script exists). Prints a matrix summary
(preset x label: passed/failed and time) and exits 0 only if everything passed.

Results: build/premerge-results/
  <preset>.<label>.xml    ctest JUnit per preset x label (a synthetic failing one for a
                          configure/build failure: <preset>.build.xml)
  logs/<preset>.{configure,build}.log, logs/<preset>.<label>.log, logs/canary.log
  summary.txt             the matrix printed at the end
"""
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from .. import ctest, flavours, junit, paths, procs, table
from ..log import Say
from ..presets import chosen_presets, positive_int, split_csv

SCRIPT = "ci/premerge.sh"
DEFAULT_LABELS = "unit,property,corpus,fuzz-smoke,selfcheck,ci,canary"
CANARY_LABEL = "canary"
_NINJA_STEP = re.compile(r"^\[([0-9]+)/([0-9]+)\]")


def add_arguments(p):
    p.add_argument("--presets", default=None,
                   help="configure presets (default: every visible one whose system is installed "
                        "here: full/mobile x asan-ubsan,tsan,release,coverage,fuzz, and a c10 "
                        "preset only where libtorch of its release is)")
    p.add_argument("--labels", default=DEFAULT_LABELS, help=f"labels (default: {DEFAULT_LABELS})")
    p.add_argument("--jobs", "-j", type=positive_int, default=os.cpu_count() or 2,
                   help="build and ctest parallelism (default: nproc)")
    p.add_argument("--configure-only", action="store_true",
                   help="configure each preset into build/configure-check/<preset> and stop")


@dataclass
class LabelResult:
    """One cell of the matrix."""
    listed: int = 0
    returncode: int = 0
    passed: int = 0
    failed: int = 0
    seconds: int = 0
    not_run: bool = False

    @property
    def ok(self) -> bool:
        return self.not_run is False and (self.listed == 0 or self.returncode == 0)

    def cell(self) -> str:
        if self.not_run:
            return "not run"
        if self.listed == 0:
            return "n/a"
        if self.returncode == 0:
            return f"pass {self.listed} {self.seconds}s"
        return f"FAIL {self.failed}/{self.passed + self.failed} {self.seconds}s"


@dataclass
class PresetResult:
    preset: str
    build_cell: str = ""
    build_ok: bool = True
    labels: Dict[str, LabelResult] = field(default_factory=dict)


def build_progress(preset: str, line: str) -> Optional[str]:
    """The console line for one build output line: every 25th ninja step and every error."""
    m = _NINJA_STEP.match(line)
    if m:
        done, total = int(m.group(1)), int(m.group(2))
        if done > 0 and (done % 25 == 0 or done == total):
            return f"    {preset} build [{done}/{total}]"
        return None
    if line.startswith("FAILED:") or "error:" in line:
        return f"    {line}"
    return None


class Premerge:
    def __init__(self, presets: List[str], labels: List[str], jobs: int):
        self.presets = presets
        self.run_canary = CANARY_LABEL in labels
        self.test_labels = [l for l in labels if l != CANARY_LABEL]
        self.jobs = jobs
        self.say = Say(SCRIPT)
        self.results_dir = paths.BUILD / "premerge-results"
        self.logs = self.results_dir / "logs"
        self.results: List[PresetResult] = []
        self.canary_cell = "-"
        self.canary_ok = True

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def prepare(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        # Results of an earlier run must not pass for this one's.
        for old in [*self.results_dir.glob("*.xml"), *self.logs.glob("*.log"),
                    self.results_dir / "summary.txt"]:
            old.unlink(missing_ok=True)

    def configure(self, preset: str) -> bool:
        return procs.run(["cmake", "--preset", preset], log=self.log(f"{preset}.configure"),
                         cwd=paths.ROOT).ok

    def build(self, preset: str) -> int:
        log = self.log(f"{preset}.build")
        log.write_text("")
        build_dir = paths.build_dir(preset)
        self.say(f"{preset}: cmake --build build/{preset} -j {self.jobs}  (log: {paths.rel(log)})")
        rc = 0
        for attempt in (1, 2):
            start_size = log.stat().st_size

            def show(line, preset=preset):
                text = build_progress(preset, line)
                if text:
                    print(text, flush=True)
            # -k 0: build everything that builds, so one broken target still lets the rest be tested.
            rc = procs.run(["cmake", "--build", build_dir, "-j", str(self.jobs), "--", "-k", "0"],
                           log=log, append=True, on_line=show, cwd=paths.ROOT).returncode
            # One retry: a build tree shared with other builders can lose a race on a library
            # being relinked; a real compile error fails twice, and the retry is incremental.
            if rc == 0 or attempt == 2:
                break
            self.say(f"{preset}: build failed (rc={rc}); retrying once (incremental)")
        if rc != 0:
            with open(log, encoding="utf-8", errors="replace") as f:
                f.seek(start_size)
                self.last_attempt_failures = [l.rstrip("\n") for l in f if l.startswith("FAILED: ")]
        return rc

    def run_label(self, preset: str, label: str) -> LabelResult:
        build_dir = paths.build_dir(preset)
        listed = ctest.tests_with_label(build_dir, label)
        if listed == 0:
            self.say(f"{preset}/{label}: n/a (no tests with this label)")
            return LabelResult(listed=0)
        log = self.log(f"{preset}.{label}")
        xml = self.results_dir / f"{preset}.{label}.xml"
        self.say(f"{preset}/{label}: ctest -L ^{label}$ ({listed} tests, -j {self.jobs})  (log: {paths.rel(log)})")
        start = time.time()
        rc = procs.run(["ctest", "--test-dir", build_dir, "-L", f"^{label}$", "-j", str(self.jobs),
                        "--no-tests=error", "--output-on-failure", "--output-junit", xml],
                       log=log, cwd=paths.ROOT).returncode
        seconds = int(time.time() - start)
        if xml.is_file():
            junit.relabel_ctest(xml, f"{preset}.{label}")
        text = log.read_text(encoding="utf-8", errors="replace")
        totals = ctest.last_totals(text)
        if totals:
            listed = totals[1]
        passed, failed = ctest.pass_fail_counts(text, listed, rc)
        result = LabelResult(listed, rc, passed, failed, seconds)
        if rc == 0:
            self.say(f"{preset}/{label}: passed {listed}/{listed} in {seconds}s")
        else:
            self.say(f"{preset}/{label}: FAILED ({failed} of {listed} failed, rc={rc}, {seconds}s); failing tests:")
            for line in ctest.failing_tests(text) + ctest.problem_lines(text):
                print(f"    {line}", flush=True)
        return result

    def run_preset(self, preset: str, index: int) -> PresetResult:
        result = PresetResult(preset)
        self.say(f"({index}/{len(self.presets)}) {preset}: cmake --preset {preset}  "
                 f"(log: build/premerge-results/logs/{preset}.configure.log)")
        start = time.time()
        xml = self.results_dir / f"{preset}.build.xml"
        if not self.configure(preset):
            log = self.log(f"{preset}.configure")
            print("\n".join(log.read_text(errors="replace").splitlines()[-30:]))
            self.say(f"{preset}: CONFIGURE FAILED")
            result.build_cell, result.build_ok = "CONFIG-FAIL", False
            junit.write_single(xml, f"{preset}.build", "configure", False,
                               f"cmake --preset {preset} failed", log)
            result.labels = {l: LabelResult(not_run=True) for l in self.test_labels}
            return result
        rc = self.build(preset)
        seconds = int(time.time() - start)
        if rc != 0:
            # Still run the tests: those whose executable did not build fail as "Not Run".
            self.say(f"{preset}: BUILD FAILED (rc={rc}, {seconds}s); failed targets:")
            for line in self.last_attempt_failures:
                print(f"    {line}")
            result.build_cell, result.build_ok = f"FAIL {seconds}s", False
            junit.write_single(xml, f"{preset}.build", "build", False,
                               f"cmake --build build/{preset} failed (rc={rc})", self.log(f"{preset}.build"))
        else:
            result.build_cell = f"ok {seconds}s"
            junit.write_single(xml, f"{preset}.build", "build", True)
            self.say(f"{preset}: configure+build ok in {seconds}s")
        for label in self.test_labels:
            result.labels[label] = self.run_label(preset, label)
        return result

    def run_canaries(self) -> None:
        script = paths.CI / "canaries.sh"
        if not script.is_file():
            self.canary_cell = "not present"
            self.say("canary: not present (no ci/canaries.sh)")
            return
        log = self.log("canary")
        self.say(f"canary: ci/canaries.sh --fast  (log: {paths.rel(log)})")
        result = procs.run(["bash", script, "--fast"], log=log, cwd=paths.ROOT)
        seconds = int(result.seconds)
        xml = self.results_dir / "canary.xml"
        if result.ok:
            self.canary_cell = f"pass {seconds}s"
            junit.write_single(xml, "canary", "ci/canaries.sh --fast", True)
        else:
            self.canary_cell, self.canary_ok = f"FAIL rc={result.returncode} {seconds}s", False
            for line in log.read_text(errors="replace").splitlines()[-30:]:
                print(f"    {line}")
            junit.write_single(xml, "canary", "ci/canaries.sh --fast", False,
                               f"ci/canaries.sh --fast exited {result.returncode}", log)
        self.say(f"canary: {self.canary_cell}")

    def failed(self) -> bool:
        return (not self.canary_ok) or any(
            not r.build_ok or not all(l.ok for l in r.labels.values()) for r in self.results)

    def summary(self, seconds: int) -> str:
        widths = [18, 13] + [15] * len(self.test_labels)
        lines = [f"ci/premerge.sh summary ({seconds}s total, jobs={self.jobs})",
                 table.row(widths, ["preset", "build"] + self.test_labels)]
        for r in self.results:
            lines.append(table.row(widths, [r.preset, r.build_cell] +
                                   [r.labels[l].cell() for l in self.test_labels]))
        if self.run_canary:
            lines.append(f"canary: {self.canary_cell}")
        lines += [f"flavours of {r.preset}: {flavours.listing(paths.build_dir(r.preset))}" for r in self.results]
        passed = sum(l.passed for r in self.results for l in r.labels.values())
        failed = sum(l.failed for r in self.results for l in r.labels.values())
        lines.append(f"tests: {passed} passed, {failed} failed; JUnit + logs: build/premerge-results/")
        lines.append("RESULT: FAILED" if self.failed() else "RESULT: passed")
        return "\n".join(lines)


def configure_only(presets: List[str], say: Say) -> int:
    """Each preset configured into a scratch tree of its own, so a running build is untouched."""
    failed = []
    for preset in presets:
        tree = paths.BUILD / "configure-check" / preset
        log = paths.BUILD / "configure-check" / f"{preset}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        ok = procs.run(["cmake", "--preset", preset, "-B", tree], log=log, cwd=paths.ROOT).ok
        say(f"{preset}: configure {'ok' if ok else 'FAILED'} (log: {paths.rel(log)})")
        if not ok:
            print("\n".join(log.read_text(errors="replace").splitlines()[-20:]), flush=True)
            failed.append(preset)
    say(f"RESULT: {'FAILED: ' + ', '.join(failed) if failed else 'passed'} "
        f"({len(presets) - len(failed)} of {len(presets)} presets configure)")
    return 1 if failed else 0


def run(args) -> int:
    say = Say(SCRIPT)
    presets = chosen_presets(args.presets, say)
    if args.configure_only:
        return configure_only(presets, say)
    labels = split_csv(args.labels, "labels")
    job = Premerge(presets, labels, args.jobs)
    job.prepare()
    start = time.time()
    for i, preset in enumerate(presets, 1):
        job.results.append(job.run_preset(preset, i))
    if job.run_canary:
        job.run_canaries()
    text = job.summary(int(time.time() - start))
    (job.results_dir / "summary.txt").write_text(text + "\n")
    print()
    print(text)
    return 1 if job.failed() else 0
