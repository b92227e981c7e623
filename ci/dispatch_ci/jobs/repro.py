"""ci/repro.sh -- from a failing fuzz input to understanding, in one command.

  ci/repro.sh [options] <artifact>
  ci/repro.sh [options] --name SCENARIO


<artifact> is a failing input file, e.g.
  build/nightly/<run>/artifacts/<preset>/<target>/crash-<sha1>   (preset and target from the path)
  build/<preset>/fuzz/smoke/<target>/artifacts/crash-<sha1>      (that build tree is used)
  fuzz/regressions/<target>/<sha1>                               (target from the path)
or a bucket folder build/nightly/<run>/failures/<id>/ (its bucket.json names the input, preset
and target). When the path names no target, every fuzz target is tried until one fails.

Steps: builds the target in the matching preset (default full-asan-ubsan, whose binaries use the
replay main), reruns the input under the sanitizers (sanitizer_builds/env.sh) with
DISPATCH_FUZZ_TRACE=1 and a symbolized stack trace, prints the decoded action sequence
(`<target> --print`), then writes
  fuzz/regressions/<target>/<sha1 of the input>          a copy of the input
  fuzz/regression_tests/<target>_<sha1:12>_test.cpp      a GoogleTest replaying it (the Action
                                                         list spelt out for trace targets)
  fuzz/regression_tests/CMakeLists.txt                   its dispatch_add_test() line
and builds and runs that test in the same build tree (it must fail while the bug is in).

An input of a c10 target (fuzz/c10/, PyTorch's own dispatcher; default preset full-c10, or
full-c10-RELEASE when run through ci/c10.sh --libtorch RELEASE) gets,
instead of a regression test, the standalone C++ program against libtorch's public API that
reproduces it (build/repro/<sha1:12>-<tree>/repro.cpp), built with g++ against libtorch-dev and
run: it exits 1 while the bug is in libtorch.

--name SCENARIO runs a committed regression scenario (fuzz/regression_tests/<target>_<scenario>_test.cpp)
by its name: its input, its target and, for a planted-bug pin, the canary its header names
(--canary none: the real tree); it
writes nothing, but builds and runs that test too: the input and the test must agree (both fail:
exit 0; both pass: exit 3; they disagree: exit 1).

Exit code: 0 reproduced (and written), 3 the input did not fail, 2 usage, 1 other errors.
Logs: build/repro/<sha1:12>-<build tree>/{run.log,print.txt,cpp.txt,test-run.log}.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .. import flavours, paths, procs, project
from ..log import Say
from ..presets import configure_presets, positive_int, read_cache
from ..nightly.systems import C10_FUZZ, is_c10_target
from ..repro import c10_program, origin as origins, report, scenario as scenarios, write_test
from ..sanitizer_env import sanitizer_env
from ..canaries.trees import canary_of_build, canary_source
from ..recorder import flight_recorder_block

SCRIPT = "ci/repro.sh"
DID_NOT_FAIL, FAILED = 3, 1



def libtorch_release() -> str:
    """The libtorch release this process runs against: ci/c10.sh names it, else the host's 1.13."""
    return os.environ.get("DISPATCH_LIBTORCH_RELEASE", "1.13")


def c10_preset() -> str:
    release = libtorch_release()
    return "full-c10" if release == "1.13" else f"full-c10-{release}"

class Abort(Exception):
    """Stops the job with a message and an exit code (1: other errors, 2: usage)."""

    def __init__(self, message: str, code: int = FAILED):
        super().__init__(message)
        self.code = code


def add_arguments(p):
    p.add_argument("artifact", nargs="?", help="a failing input file or a bucket folder")
    p.add_argument("--name", help="a committed regression scenario, e.g. drop_first_of_two_catch_alls (instead of <artifact>)")
    p.add_argument("--preset", help="preset to build and run (default: from the path, else full-asan-ubsan)")
    p.add_argument("--target", help="fuzz target (default: from the path, else try each)")
    p.add_argument("--canary", help="plant canary NAME: uses build/<preset>-canary-<NAME> ('none': the real tree, "
                                    "also for a --name scenario that pins a canary)")
    p.add_argument("--flavour", help="add this flavour, name=Undefined,Key,... (default: a bucket's drawn "
                   "flavour); uses build/<preset>-flavour-<name>-<hash>")
    p.add_argument("--build-dir", help="use this build tree (configured from --preset if it does not exist)")
    p.add_argument("--no-write", action="store_true", help="only reproduce and print; write nothing")
    p.add_argument("--force-write", action="store_true", help="write the test and the input even if the input does not fail")
    p.add_argument("--jobs", "-j", type=positive_int, default=os.cpu_count() or 2, help="build parallelism (default: nproc)")


def section(title: str) -> None:
    print(f"\n---------------- {title} ----------------", flush=True)


def rel(path: Path) -> str:
    return os.path.relpath(path, paths.ROOT)


def tail(path: Path, n: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-n:]) if path.is_file() else ""


class Repro:
    def __init__(self, args):
        self.args, self.say = args, Say(SCRIPT)
        root = paths.ROOT
        self.presets, self.canaries = configure_presets(), project.known_canaries()
        self.targets = project.fuzz_target_sources() + project.fuzz_target_sources(C10_FUZZ)
        if args.preset and args.preset not in self.presets:
            raise Abort(f"unknown preset '{args.preset}'", 2)
        if args.target and args.target not in self.targets:
            raise Abort(f"unknown fuzz target '{args.target}' (known: {' '.join(self.targets)})", 2)
        if args.canary and args.canary != "none" and args.canary not in self.canaries:
            raise Abort(f"unknown canary '{args.canary}' (known: {' '.join(self.canaries)})", 2)
        self.scenario = self.named_scenario(args)
        artifact = (paths.ROOT / self.scenario.input if self.scenario else paths.START_DIR / args.artifact).resolve()
        if not artifact.exists():
            raise Abort(f"no such file or folder: {artifact}", 2)
        self.origin = self.locate(artifact, root)
        self.canary = args.canary or (self.scenario.canary if self.scenario else "") or self.origin.canary
        self.canary = "" if self.canary == "none" else self.canary
        self.target = args.target or self.origin.target
        default_preset = c10_preset() if is_c10_target(self.target or "") else "full-asan-ubsan"
        self.preset = args.preset or self.origin.preset or default_preset
        self.flavour = args.flavour or self.origin.flavour_declaration
        if self.flavour:
            try:
                flavours.check_declaration(self.flavour)
            except ValueError as e:
                raise Abort(str(e), 2)
        if args.build_dir:
            self.build_dir = Path(os.path.abspath(paths.START_DIR / args.build_dir))
        elif self.flavour:
            # Exactly the failing flavour (drawn at the nightly's configure time) beside the declared ones.
            canary = f"-canary-{self.canary}" if self.canary else ""
            self.build_dir = paths.BUILD / f"{self.preset}{canary}{flavours.tree_suffix_of_declaration(self.flavour)}"
        else:
            self.build_dir = origins.choose_build_dir(root, self.preset, self.canary, self.origin.preset,
                                                      self.origin.build_dir,
                                                      origins.enclosing_build_tree(self.input, root))
        data = self.input.read_bytes()
        self.sha1, self.size = hashlib.sha1(data).hexdigest(), len(data)
        self.logdir = paths.BUILD / "repro" / f"{self.sha1[:12]}-{self.build_dir.name}"
        self.logdir.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def named_scenario(args):
        """The scenario --name names (None without --name); exactly one of it and <artifact>."""
        if bool(args.name) == bool(args.artifact):
            raise Abort("give either an <artifact> or --name SCENARIO", 2)
        if not args.name:
            return None
        try:
            found = scenarios.find(args.name, scenarios.scenarios(paths.REGRESSION_TESTS))
        except scenarios.ScenarioError as e:
            raise Abort(str(e), 2)
        if args.target and args.target != found.target:
            raise Abort(f"scenario {found.test} replays a {found.target} input, not {args.target}", 2)
        return found

    def locate(self, artifact: Path, root: Path) -> origins.Origin:
        o = origins.Origin()
        self.input, bucket = artifact, None
        if artifact.is_dir():
            bucket, self.input = artifact, origins.bucket_input(artifact)
        elif (artifact.parent / "bucket.json").is_file():
            bucket = artifact.parent
        if bucket and (bucket / "bucket.json").is_file():
            named = origins.read_bucket_json(bucket / "bucket.json", root, o)
            if self.input is None and named and named.is_file():
                self.input = named
        if bucket and (self.input is None or not self.input.is_file()):
            raise Abort(f"bucket folder {bucket}: no minimized, input or crash-* file, and no bucket.json "
                        "naming an existing input", 2)
        self.how_found = f"bucket {rel(bucket)}" if bucket else ""
        self.input = self.input.resolve()
        origins.from_path_parts(rel(self.input), self.presets, self.targets, self.canaries, o)
        meta = origins.run_canary(self.input, root)
        if meta:
            canary = dict(l.split("\t", 1) for l in meta.read_text().splitlines() if "\t" in l).get("canary", "")
            if not o.canary and not self.args.canary and canary not in ("", "none") and canary in self.canaries:
                o.canary = canary
                o.how = f"the path and {rel(meta)}"
        return o

    def configure(self) -> list:
        """Configures a new tree, or re-runs an existing tree's configure (new sources), keeping its cache."""
        log = self.logdir / "configure.log"
        if not (self.build_dir / "CMakeCache.txt").is_file():
            cfg = ["cmake", "--preset", self.preset, "-B", str(self.build_dir)]
            if self.canary:  # a canary is a patch: configure its patched copy of the tree
                cfg[1:1] = ["-S", str(canary_source(self.canary))]
            self.say(f"configuring a new build tree: {' '.join(cfg)}")
        elif self.build_dir == paths.build_dir(self.preset):
            cfg = ["cmake", "--preset", self.preset]
        else:
            source = canary_source(self.canary) if self.canary else paths.ROOT
            cfg = ["cmake", "-S", str(source), "-B", str(self.build_dir)]
        if self.flavour:
            cfg.append(f"-DDISPATCH_EXTRA_FLAVOURS={self.flavour}")
            self.say(f"flavour {self.flavour} is added to the declared ones (-DDISPATCH_EXTRA_FLAVOURS)")
        if not procs.run(cfg, log=log).ok:
            print(tail(log))
            raise Abort(f"configure failed: {' '.join(cfg)} (log: {log})")
        return cfg

    def build(self, targets) -> None:
        self.say(f"building {' '.join(targets)} in {rel(self.build_dir)}")
        log = self.logdir / "build.log"
        r = procs.run(["cmake", "--build", self.build_dir, "-j", str(self.args.jobs), "--target", *targets], log=log)
        if not r.ok:
            errors = [l for l in log.read_text(errors="replace").splitlines() if l.startswith("FAILED:") or "error:" in l]
            print("\n".join(errors[:20]), flush=True)
            raise Abort(f"build failed (log: {log})")
        self.say(f"built in {int(r.seconds)}s")

    def run_input(self, binary: Path, env: dict) -> int:
        cmd = [str(binary)] + (["-timeout=25", "-rss_limit_mb=2560"] if self.libfuzzer else []) + [str(self.input)]
        log = self.logdir / "run.log"
        log.write_text(f"$ {' '.join(cmd)}\n")
        return procs.run(cmd, log=log, append=True, env=env, timeout=300).returncode

    def candidates(self) -> list:
        if self.target:
            return [self.target]
        names = project.print_fuzz_targets(self.build_dir, self.logdir / "targets.log")
        if names is None:
            raise Abort(f"{rel(self.build_dir)} builds no fuzz targets")
        if not names:
            raise Abort(f"print_fuzz_targets named no targets in {rel(self.build_dir)}")
        return names

    def verify_test(self, name: str, cfg: list, rc: int):
        """Builds and runs regression test `name` in the build tree; its ctest exit code, None
        when it was not built or not run."""
        wired = re.search(r"^[^#]*add_subdirectory\(\s*regression_tests", paths.FUZZ_CMAKELISTS.read_text(), re.M)
        if not wired:
            self.say("fuzz/regression_tests is not built: fuzz/CMakeLists.txt needs add_subdirectory(regression_tests)")
            return None
        procs.run(cfg, log=self.logdir / "reconfigure.log")
        rel_log = rel(self.logdir / "test-run.log")
        self.say(f"building and running {name} in {rel(self.build_dir)}")
        if not procs.run(["cmake", "--build", self.build_dir, "-j", str(self.args.jobs), "--target", name],
                         log=self.logdir / "test-build.log").ok:
            errors = [l for l in (self.logdir / "test-build.log").read_text(errors="replace").splitlines()
                      if l.startswith("FAILED:") or "error:" in l]
            print("\n".join(errors[:20]))
            self.say(f"WARNING: {name} does not build in {rel(self.build_dir)} (log: {rel(self.logdir / 'test-build.log')})")
            return None
        trc = procs.run(["ctest", "--test-dir", self.build_dir, "-R", f"^{name}$", "--output-on-failure"],
                        log=self.logdir / "test-run.log").returncode
        shown = re.compile(r"^\[ +(RUN|OK|FAILED) +\]|Failure$|: step [0-9]+ |Test +#|tests passed")
        lines = [l[:200] for l in (self.logdir / "test-run.log").read_text(errors="replace").splitlines() if shown.search(l)]
        print("\n".join("    " + l for l in lines[:12]), flush=True)
        where = rel(self.build_dir)
        if trc != 0 and rc != 0:
            self.say(f"{name} FAILS in {where}, as it must while the bug is in (log: {rel_log})")
        elif trc == 0 and rc == 0:
            self.say(f"{name} PASSES in {where}, like the input (log: {rel_log})")
        elif trc == 0:
            self.say(f"WARNING: {name} PASSES in {where} although the input fails there (log: {rel_log})")
        else:
            self.say(f"WARNING: {name} FAILS in {where} although the input passes there (log: {rel_log})")
        return trc

    def run(self) -> int:
        o = self.origin
        self.say(f"input: {rel(self.input)} ({self.size} bytes, sha1 {self.sha1})"
                 + (f", from {self.how_found}" if self.how_found else ""))
        self.say(f"target: {self.target or 'unknown (will try each)'}; preset: {self.preset}"
                 + (f" (from {o.how})" if o.preset else "") + f"; build tree: {rel(self.build_dir)}"
                 + (f" (canary {self.canary})" if self.canary else ""))
        cfg = self.configure()
        cache = read_cache(self.build_dir)
        tree_canary, flavour = canary_of_build(cache), cache.get("DISPATCH_FLAVOUR", "")
        self.libfuzzer = cache.get("DISPATCH_FUZZ") == "ON"
        if tree_canary:
            self.say(f"NOTE: {rel(self.build_dir)} is a CANARY build (ci/canaries/{tree_canary}.patch): "
                     "the library has a planted bug")
        candidates = self.candidates()
        self.build(candidates)
        env = sanitizer_env()
        env.update(DISPATCH_FUZZ_TRACE="1", LLVM_PROFILE_FILE=str(self.build_dir / "profraw" / "repro-%m.profraw"))
        rc, found = 0, ""
        for t in candidates:
            binary = self.build_dir / "fuzz" / t
            if not os.access(binary, os.X_OK):
                raise Abort(f"no binary {binary}")
            self.say(f"running {t} on the input (sanitizer env, DISPATCH_FUZZ_TRACE=1)")
            rc = self.run_input(binary, env)
            if rc != 0:
                found = t
                break
            if len(candidates) > 1:
                self.say(f"{t}: no failure")
        if not found and len(candidates) > 1:
            self.say(f"no target fails on this input in {rel(self.build_dir)}")
        target = found or self.target or candidates[0]
        binary = self.build_dir / "fuzz" / target
        run_log = (self.logdir / "run.log").read_text(errors="replace")
        section(f"run: {target} (exit code {rc}) -- full output in {rel(self.logdir / 'run.log')}")
        print(run_log, end="", flush=True)
        section(f"decoded input: {target} --print {rel(self.input)}")
        procs.run([binary, "--print", self.input], log=self.logdir / "print.txt", env=env, timeout=300)
        print((self.logdir / "print.txt").read_text(errors="replace"), end="", flush=True)
        if is_c10_target(target):
            return self.c10_program(target, binary, env, rc)

        section("summary")
        head, what, step = report.headline(run_log), report.detail(run_log), report.last_step(run_log)
        print(f"input:      {rel(self.input)} ({self.size} bytes)")
        if self.flavour:
            print(f"flavour:    {self.flavour} (a drawn flavour, configured into this tree)")
        print(f"target:     {target}   build: {rel(self.build_dir)} (preset {self.preset}, flavour {flavour or '?'}, "
              f"canary {tree_canary or 'none'}, libFuzzer {cache.get('DISPATCH_FUZZ') or 'OFF'})")
        if rc == 0:
            print("result:     DID NOT FAIL (exit code 0)")
        else:
            print(f"result:     FAILED (exit code {rc})")
            print(f"failure:    {head or '(no sanitizer or harness headline; see the output)'}")
            if what:
                print(f"            {what}")
            if step:
                print(f"last step:  {step}")
            frames = report.project_frames(run_log, str(paths.ROOT))
            if frames:
                print("top frames in this project:")
                print("\n".join("  " + f.lstrip() for f in frames))
            events = flight_recorder_block(run_log)
            if events:
                print("the dispatcher's last events (flight recorder):")
                print("\n".join("  " + e for e in events))
            if report.unsymbolized(run_log):
                print(f"WARNING: {report.unsymbolized(run_log)} stack frames are not symbolized "
                      f"(ASAN_SYMBOLIZER_PATH={env.get('ASAN_SYMBOLIZER_PATH', 'unset')})")
        if self.scenario:
            return self.check_scenario(cfg, rc)
        name = f"{target}_{self.sha1[:12]}_test"
        if rc == 0 and not self.args.force_write:
            print(f"\nThe input does not fail in {rel(self.build_dir)}, so nothing was written (--force-write writes anyway).")
            if (paths.REGRESSION_TESTS / f"{name}.cpp").is_file():
                self.verify_test(name, cfg, rc)
            else:
                print("Try the preset or canary it was found with: --preset <p>, --canary <name>, --build-dir <dir>.")
            return DID_NOT_FAIL
        if self.args.no_write:
            print("\n--no-write: nothing written.")
            return 0
        return self.write_regression(target, binary, rc, cfg, head, what, step, tree_canary)

    def c10_program(self, target, binary, env, rc) -> int:
        """A c10 input: the standalone program against libtorch instead of a regression test."""
        program_rc = c10_program.show(binary, self.input, self.logdir, env, section, self.say)
        section("summary")
        print(f"input:      {rel(self.input)} ({self.size} bytes)\ntarget:     {target} "
              f"(PyTorch's c10, libtorch {libtorch_release()})   build: {rel(self.build_dir)}")
        print(f"result:     {'FAILED' if rc else 'DID NOT FAIL'} (exit code {rc})")
        print(f"program:    {rel(self.logdir / 'repro.cpp')}, exit status {program_rc}"
              + (" (reproduces against libtorch)" if program_rc == c10_program.REPRODUCED else ""))
        if program_rc < 0:
            return FAILED
        return 0 if rc else DID_NOT_FAIL

    def check_scenario(self, cfg: list, rc: int) -> int:
        """--name: the scenario's committed test must agree with its input (scenario.verdict)."""
        section(f"scenario {self.scenario.short}")
        code, message = scenarios.verdict(rc, self.verify_test(self.scenario.test, cfg, rc))
        self.say(f"scenario {self.scenario.test}: {message} (exit code {code})")
        return code

    def write_regression(self, target, binary, rc, cfg, head, what, step, tree_canary) -> int:
        section("regression")
        reg_dir = paths.FUZZ_REGRESSIONS / target
        reg_dir.mkdir(parents=True, exist_ok=True)
        reg = reg_dir / self.sha1
        if reg.is_file():
            self.say(f"input already in {rel(reg)}")
        else:
            shutil.copyfile(self.input, reg)
            self.say(f"wrote {rel(reg)}")
        cpp = self.logdir / "cpp.txt"
        with open(cpp, "w") as out, open(self.logdir / "cpp.err", "w") as err:
            if subprocess.run([str(binary), "--print-cpp", str(self.input)], stdout=out, stderr=err).returncode != 0:
                raise Abort(f"{target} --print-cpp failed: {(self.logdir / 'cpp.err').read_text()[:400]}")
        failures = [x[:200] for x in (head, what, step) if x]
        if rc == 0:
            failures.append("(none: written with --force-write from an input that passed)")
        try:
            name = write_test.write(write_test.Request(
                target, self.sha1, str(cpp), rel(paths.REGRESSION_TESTS), rel(self.input),
                f"{rel(self.build_dir)} (preset {self.preset}, canary {tree_canary or 'none'}"
                + (f", flavour {self.flavour}" if self.flavour else "") + f"), exit code {rc}", failures))
        except write_test.WriteError as e:
            raise Abort(str(e))
        self.say(f"fuzz/regression_tests/{name}.cpp and its line in fuzz/regression_tests/CMakeLists.txt are in place")
        self.verify_test(name, cfg, rc)
        wired = re.search(r"^[^#]*add_subdirectory\(\s*regression_tests", paths.FUZZ_CMAKELISTS.read_text(), re.M)
        print("\nnext steps:")
        if not wired:
            print("  add add_subdirectory(regression_tests) to fuzz/CMakeLists.txt (once), so every preset builds the tests")
        if self.flavour:
            name_, keys = self.flavour.split("=", 1)
            print(f"  the failing flavour was drawn by a nightly: declare it so that every preset runs it, one line in\n"
                  f"  cmake/flavours.list:  {name_}: {keys.replace(',', ' ')}  # <the build shape it stands for>")
        print(f"  git add {rel(reg)} fuzz/regression_tests/{name}.cpp fuzz/regression_tests/CMakeLists.txt\n"
              f"  cmake --build build/<preset> --target {name} && ctest --test-dir build/<preset> -R '^{name}$' --output-on-failure\n"
              f"  (it fails until the bug is fixed; ctest -L corpus replays {rel(reg_dir)}/ in every preset as well)")
        return 0


def run(args) -> int:
    try:
        return Repro(args).run()
    except Abort as e:
        print(f"{SCRIPT}: {e}", file=sys.stderr, flush=True)
        return e.code
