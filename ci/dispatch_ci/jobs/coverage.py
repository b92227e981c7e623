"""ci/coverage.sh -- coverage of dispatch/ by the fuzz corpora and the test suites, per flavour.

  ci/coverage.sh [--presets full-coverage,mobile-coverage] [--jobs N] [--no-tests]
                 [--input-root DIR]... [--timeout S]

For each coverage preset (clang-14 source-based coverage, -O0, no sanitizer):
  1. configure and build build/<preset>;
  2. replay every input of fuzz/corpus/<target>/ and fuzz/regressions/<target>/ through the
     target's replay binary, one process per target and folder, with LLVM_PROFILE_FILE per
     process and DISPATCH_TABLE_CELLS (table-cell recorder, oracle/ours/cell_recorder.h);
  3. the unit tests and the property suite (ctest -L 'unit|property'; ctest gives each test
     LLVM_PROFILE_FILE=build/<preset>/profraw/%4m.profraw, sanitizer_builds/sanitizer_env.cmake);
  4. llvm-profdata merge, then llvm-cov report / export / show over dispatch/ only (tests,
     properties, fuzz harness and system headers are ignored).
Then the summary (summary.{md,txt,json}: lines, branches, functions, regions per flavour) and the
table cells (cells.{md,html,json}: which table cells, fallback slots and index -1 paths the
corpora reached, per flavour).

Output: build/coverage/: summary.md (+ .txt, .json), cells.md (+ .html, .json),
html/<preset>/index.html (llvm-cov, line and branch counts), <preset>/ (profiles, merged
profdata, cell records, timings.tsv), logs/. Exit code 0 when every step worked, 1 when a
replay, test or tool failed (the reports are still written for what ran), 2 for bad arguments.
"""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import List

from .. import paths, procs
from ..coverage import cells, summary
from ..log import Say, UsageError
from ..presets import check_known, configure_presets, flavour_of, positive_int, read_cache, split_csv

SCRIPT = "ci/coverage.sh"


def add_arguments(p):
    p.add_argument("--presets", default="full-coverage,mobile-coverage",
                   help="coverage presets (default full-coverage,mobile-coverage)")
    p.add_argument("--jobs", "-j", type=positive_int, default=2, help="build and ctest parallelism (default 2)")
    p.add_argument("--no-tests", action="store_true", help="corpora only (skip step 3)")
    p.add_argument("--input-root", action="append", default=[],
                   help="also replay DIR/<target>/ (repeatable; e.g. build/nightly/latest/corpus)")
    p.add_argument("--timeout", type=positive_int, default=1800, help="limit per replay process and per test (default 1800)")


def ignore_regex(root: Path) -> str:
    """System headers and every folder of the repository but the library's sources."""
    return f"^/usr/|^{re.escape(str(root))}/({'|'.join(paths.COVERAGE_IGNORED)})/"


def object_args(objects: List[str]) -> List[str]:
    """llvm-cov's object arguments: the first binary, then -object for each further one."""
    out = objects[:1]
    for o in objects[1:]:
        out += ["-object", o]
    return out


class Coverage:
    def __init__(self, args, presets: List[str]):
        self.args, self.presets = args, presets
        self.out = paths.BUILD / "coverage"
        self.say = Say(SCRIPT)
        self.failed = False

    def step(self, preset: str, name: str, log: Path, cmd, env=None, stdout_to: Path = None,
             timeout=None) -> bool:
        """Runs cmd at low priority, logs it, records "<step>\t<seconds>\t<ok|failed>" in timings.tsv."""
        start = time.time()
        if stdout_to:
            with open(stdout_to, "w") as out, open(log, "a") as err:
                ok = subprocess.run(["nice", "-n", "10", *map(str, cmd)], stdout=out, stderr=err, env=env,
                                    stdin=subprocess.DEVNULL).returncode == 0
        else:
            ok = procs.run(cmd, log=log, append=True, env=env, nice=10, timeout=timeout).ok
        seconds = int(time.time() - start)
        status = "ok" if ok else "failed"
        self.failed |= not ok
        with open(self.out / preset / "timings.tsv", "a") as f:
            f.write(f"{name}\t{seconds}\t{status}\n")
        self.say(f"{preset}: {name}: {status} ({seconds} s)")
        return ok

    def replay_corpora(self, preset: str, build: Path, data: Path, log: Path) -> List[str]:
        """One process per target and folder, so a failing folder names itself."""
        objects = []
        for src in sorted(paths.FUZZ.glob("*_fuzzer.cpp")):
            target = src.stem
            binary = build / "fuzz" / target
            if not os.access(binary, os.X_OK):
                self.say(f"{preset}: {target} was not built")
                self.failed = True
                continue
            objects.append(str(binary))
            for root in [paths.rel(paths.FUZZ_CORPUS), paths.rel(paths.FUZZ_REGRESSIONS), *self.args.input_root]:
                folder = Path(root) / target
                if not folder.is_dir():
                    continue
                count = sum(1 for f in folder.rglob("*") if f.is_file())
                env = dict(os.environ, LLVM_PROFILE_FILE=str(data / "profraw" / f"{target}.{Path(root).name}.%p.profraw"),
                           DISPATCH_TABLE_CELLS=str(data / "cells" / f"{target}.jsonl"))
                self.step(preset, f"replay {target} {folder} ({count} inputs)", log, [binary, folder], env=env,
                          timeout=self.args.timeout)
        return objects

    def test_executables(self, build: Path) -> List[str]:
        out = procs.capture(["ctest", "--test-dir", build, "-L", "^(unit|property)$", "--show-only=json-v1"])
        return sorted({t["command"][0] for t in json.loads(out.stdout or "{}").get("tests", []) if t.get("command")})

    def run_preset(self, preset: str) -> None:
        build, data = paths.build_dir(preset), self.out / preset
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(self.out / "html" / preset, ignore_errors=True)
        shutil.rmtree(build / "profraw", ignore_errors=True)
        (data / "profraw").mkdir(parents=True)
        (data / "cells").mkdir()
        (data / "timings.tsv").write_text("")
        log = self.out / "logs" / f"{preset}.log"
        log.write_text("")
        start = time.time()
        if not self.step(preset, "build", log, ["bash", "-c", f"cmake --preset '{preset}' && "
                                                f"cmake --build --preset '{preset}' -j '{self.args.jobs}'"]):
            return
        cache = read_cache(build)
        if cache.get("DISPATCH_COVERAGE") != "ON":
            self.say(f"{preset} is not a coverage build")
            self.failed = True
            return
        profdata, cov = cache.get("DISPATCH_LLVM_PROFDATA"), cache.get("DISPATCH_LLVM_COV")
        corpus_objects = self.replay_corpora(preset, build, data, log)
        objects = list(corpus_objects)
        if not self.args.no_tests:
            self.step(preset, "ctest unit+property", log,
                      ["ctest", "--test-dir", build, "-L", "^(unit|property)$", "-j", str(self.args.jobs),
                       "--timeout", str(self.args.timeout), "--output-on-failure", "--output-junit", data / "junit.xml"])
            objects += self.test_executables(build)
        profiles = sorted((data / "profraw").glob("*.profraw")) + sorted((build / "profraw").glob("*.profraw"))
        if not profiles:
            self.say(f"{preset}: no profiles written")
            self.failed = True
            return
        merged = data / "merged.profdata"
        if not self.step(preset, f"llvm-profdata merge ({len(profiles)} profiles)", log,
                         [profdata, "merge", "-sparse", "-o", merged, *profiles]):
            return
        cov_args = [f"-instr-profile={merged}", f"-ignore-filename-regex={ignore_regex(paths.ROOT)}"]
        self.step(preset, "llvm-cov report", log, [cov, "report", "-show-branch-summary", *cov_args,
                                                   *object_args(objects)], stdout_to=data / "report.txt")
        self.step(preset, "llvm-cov export", log, [cov, "export", *cov_args, *object_args(objects)],
                  stdout_to=data / "export.json")
        self.step(preset, "llvm-cov show (html)", log,
                  [cov, "show", "-format=html", f"-output-dir={self.out / 'html' / preset}", "-show-branches=count",
                   "-show-line-counts-or-regions", "-show-expansions", *cov_args, *object_args(objects)])
        # What the corpora alone reach (summary.md shows it next to the total).
        corpus_profiles = sorted((data / "profraw").glob("*.profraw"))
        if corpus_profiles and self.step(preset, "corpora only: llvm-profdata merge", log,
                                         [profdata, "merge", "-sparse", "-o", data / "corpus.profdata", *corpus_profiles]):
            self.step(preset, "corpora only: llvm-cov export", log,
                      [cov, "export", "-summary-only", f"-instr-profile={data / 'corpus.profdata'}",
                       f"-ignore-filename-regex={ignore_regex(paths.ROOT)}", *object_args(corpus_objects)],
                      stdout_to=data / "corpus-export.json")
        with open(data / "timings.tsv", "a") as f:
            f.write(f"total\t{int(time.time() - start)}\t-\n")


def run(args) -> int:
    presets = split_csv(args.presets, "presets")
    check_known(presets, configure_presets())
    for r in args.input_root:
        if not Path(r).is_dir():
            raise UsageError(f"--input-root {r} is not a folder")
    job = Coverage(args, presets)
    (job.out / "logs").mkdir(parents=True, exist_ok=True)
    for preset in presets:
        job.run_preset(preset)
    job.say("writing summary and table-cell reports")
    if summary.main(["--out", str(job.out), *presets]) != 0:
        job.failed = True
    # Each flavour's cells from its own preset's replay: <flavour>-coverage records layout <flavour>.
    flavours = [a for p in presets for a in ("--flavour", f"{flavour_of(p)}={job.out / p / 'cells'}")]
    if cells.main(["--out", str(job.out), *flavours]) != 0:
        job.failed = True
    job.say(f"report: {job.out}/summary.md, {job.out}/cells.md, {job.out}/html/<preset>/index.html")
    return 1 if job.failed else 0
