"""Fuzzing engines. The nightly talks to an engine only through the Engine interface:

  build        after a preset (a libFuzzer build) is built: build what the engine fuzzes
               with, if that is something else.
  fuzz         fuzz for N seconds from corpus folders (the first is the writable new-units
               folder), in the target's fuzzing environment (fuzzing_env); failure inputs go
               to <artifact prefix><kind>-<sha1>. Returns the exit code (libFuzzer: 0 clean,
               1 sanitizer report, 77 deadly signal/leak/oom, 70 timeout; docs/harness.md §11.3).
  artifacts    the failure inputs one fuzz run wrote (from its log).
  restart_after_failure
               whether a restart after that failed run can find more.
  merge, minimize, rerun_cmd
               always with the libFuzzer binaries (AFL++ shares the harness and sanitizers).
"""
import re
import shutil
import time
from pathlib import Path
from typing import Dict, List, Sequence

from .. import fuzz_options, paths, procs
from ..presets import read_cache
from . import aflpp

FUZZ_TIMEOUT = 25       # -timeout (seconds per input), OSS-Fuzz's FUZZER_ARGS
RSS_LIMIT_MB = 2560     # -rss_limit_mb, OSS-Fuzz's FUZZER_ARGS
MERGE_TIMEOUT = 1800
_STATUS = re.compile(r"^#\d+\s")
_INITED = re.compile(r"^#[0-9]+\s+INITED ", re.M)
_WRITTEN = re.compile(r"Test unit written to (.*)$", re.M)


def options_flags(options_file: Path, dict_file: Path) -> List[str]:
    """libFuzzer flags from the target's options file (fuzz_options: the [libfuzzer] section; a
    relative `dict = x.dict` is taken beside `dict_file`), plus -dict=`dict_file` when the
    options name none and it exists. A target without an options file runs libFuzzer's defaults."""
    flags = (fuzz_options.libfuzzer_flags(options_file, Path(dict_file).parent)
             if Path(options_file).is_file() else [])
    if not any(f.startswith("-dict=") for f in flags) and Path(dict_file).is_file():
        flags.append(f"-dict={dict_file}")
    return flags


def fuzzing_env(env: Dict[str, str], options_file: Path) -> Dict[str, str]:
    """The environment a target fuzzes in: `env` with its options file's sanitizer sections."""
    return fuzz_options.fuzzing_env(env, options_file) if Path(options_file).is_file() else dict(env)


def run_with_timeline(cmd: Sequence[str], log: Path, timeline: Path, kill_after: float,
                      env: Dict[str, str]) -> int:
    """Runs a fuzzer, its output to `log`; each libFuzzer status line also to `timeline`,
    prefixed with the seconds since the start (libFuzzer's own lines carry no time)."""
    start = time.monotonic()
    with open(timeline, "w") as tl:
        def note(line):
            if _STATUS.match(line):
                tl.write(f"{time.monotonic() - start:.3f}\t{line}\n")
                tl.flush()
        return procs.run(cmd, log=log, on_line=note, timeout=kill_after, env=env).returncode


class LibFuzzer:
    name = "libfuzzer"

    def __init__(self, env: Dict[str, str], jobs: int = 2):
        self.env = env
        self.jobs = jobs

    def build(self, build_dir: Path, log: Path) -> bool:
        return True

    def fuzz(self, binary: Path, seconds: int, seed: int, prefix: str, log: Path, timeline: Path,
             extra: List[str], corpora: List[Path], env: Dict[str, str]) -> int:
        """One run; `env` is the target's fuzzing environment (fuzzing_env)."""
        # Defaults first, then the target's options (which may override them), then the flags
        # this job owns.
        cmd = [binary, f"-timeout={FUZZ_TIMEOUT}", f"-rss_limit_mb={RSS_LIMIT_MB}", *extra,
               f"-max_total_time={seconds}", f"-seed={seed}", "-print_final_stats=1",
               f"-artifact_prefix={prefix}", *corpora]
        return run_with_timeline(cmd, log, timeline, seconds + FUZZ_TIMEOUT + 60, env)

    def artifacts(self, log_text: str) -> List[str]:
        return [m.strip() for m in _WRITTEN.findall(log_text)]

    def restart_after_failure(self, log_text: str) -> bool:
        # A failure before INITED is in the seeds: it comes back on every restart.
        return bool(_INITED.search(log_text))

    def merge(self, binary: Path, out: Path, log: Path, inputs: List[Path]) -> bool:
        # -merge=1 runs in a child and restarts it after a crashing input, so one bad input
        # never loses the merge; the control file lets it resume.
        control = Path(f"{out}.merge-control")
        result = procs.run([binary, "-merge=1", f"-timeout={FUZZ_TIMEOUT}",
                            f"-rss_limit_mb={RSS_LIMIT_MB}", f"-merge_control_file={control}",
                            out, *inputs], log=log, timeout=MERGE_TIMEOUT, env=self.env)
        control.unlink(missing_ok=True)
        return result.ok

    def minimize(self, binary: Path, input_file: Path, output: Path, seconds: int, log: Path) -> bool:
        # -minimize_crash=1 keeps shrinking while the input still crashes; -runs bounds each
        # step, -max_total_time the whole loop; dedup_token_length=3 (asan.options) keeps it on
        # the same crash. The outer limit is a backstop.
        env = {k: v for k, v in self.env.items() if k != "DISPATCH_FUZZ_TRACE"}
        procs.run([binary, "-minimize_crash=1", "-runs=100000", f"-max_total_time={seconds}",
                   f"-timeout={FUZZ_TIMEOUT}", f"-rss_limit_mb={RSS_LIMIT_MB}",
                   f"-exact_artifact_path={output}", input_file],
                  log=log, timeout=seconds + 30, env=env)
        return output.is_file() and output.stat().st_size > 0

    def rerun_cmd(self, binary: Path, file: str) -> List[str]:
        return [str(binary), f"-timeout={FUZZ_TIMEOUT}", f"-rss_limit_mb={RSS_LIMIT_MB}", str(file)]


class AflPlusPlus(LibFuzzer):
    """afl-fuzz on a second build of each preset: the same sources, flavour and canary, built
    by the OSS-Fuzz build script with afl-clang-fast++ and AFL++'s libFuzzer-compatible driver
    into build/nightly-aflpp/<build dir name>/. Merge, minimisation and re-runs use the
    libFuzzer builds."""
    name = "aflpp"
    ROOT = paths.BUILD / "nightly-aflpp"
    CXXFLAGS = ("-O1 -g -fno-omit-frame-pointer -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION "
                "-fsanitize=address,undefined,array-bounds -fno-sanitize-recover=all")
    DRIVER = Path("/usr/lib/afl/libAFLDriver.a")

    def build_dir_of(self, build_dir: Path) -> Path:
        return self.ROOT / Path(build_dir).name

    def build(self, build_dir: Path, log: Path) -> bool:
        with open(log, "a") as f:
            if not shutil.which("afl-fuzz") or not self.DRIVER.is_file():
                f.write(f"AFL++ not installed (afl-fuzz, {self.DRIVER}): ci/setup.sh\n")
                return False
            cache = read_cache(build_dir)
            args = [f"-D{v}={cache[v]}" for v in ("DISPATCH_FLAVOUR", "DISPATCH_RANDOM_FLAVOURS",
                                                  "DISPATCH_FLAVOUR_SEED", "DISPATCH_EXTRA_FLAVOURS")
                    if cache.get(v)]
            # The tree's own sources and build script: a canary tree is a patched copy.
            source = Path(cache.get("CMAKE_HOME_DIRECTORY", paths.ROOT))
            adir = self.build_dir_of(build_dir)
            f.write(f"AFL++ build of {build_dir} into {adir} ({' '.join(args)})\n")
        adir.mkdir(parents=True, exist_ok=True)
        env = dict(self.env, CC="afl-clang-fast", CXX="afl-clang-fast++", CFLAGS=self.CXXFLAGS,
                   CXXFLAGS=self.CXXFLAGS, LIB_FUZZING_ENGINE=str(self.DRIVER), WORK=str(adir),
                   OUT=str(adir / "out"), AFL_QUIET="1",
                   CMAKE_GENERATOR=self.env.get("CMAKE_GENERATOR", "Ninja"),
                   CMAKE_BUILD_PARALLEL_LEVEL=str(self.jobs))
        script = source / paths.OSS_FUZZ_BUILD.relative_to(paths.ROOT)
        return procs.run([script, *args], log=log, append=True, env=env, cwd=source).ok

    def fuzz(self, binary: Path, seconds: int, seed: int, prefix: str, log: Path, timeline: Path,
             extra: List[str], corpora: List[Path], env: Dict[str, str]) -> int:
        abin = self.build_dir_of(Path(binary).parent.parent) / "out" / Path(binary).name
        # The libFuzzer flags of the target's options that AFL++ has an equivalent for.
        wanted = {"dict": None, "max_len": None, "timeout": str(FUZZ_TIMEOUT)}
        for flag in extra:
            name, _, value = flag.lstrip("-").partition("=")
            if name in wanted:
                wanted[name] = value
        return aflpp.run(abin, seconds, seed, prefix, log, timeline, Path(f"{str(log)[:-4]}.afl"),
                         corpora, wanted["dict"], int(wanted["max_len"]) if wanted["max_len"] else None,
                         int(wanted["timeout"]) * 1000, env)

    def artifacts(self, log_text: str) -> List[str]:
        return re.findall(r"^aflpp: artifact (.*)$", log_text, re.M)

    def restart_after_failure(self, log_text: str) -> bool:
        return False   # afl-fuzz keeps going after a failure: a restart would only repeat it


ENGINES = {"libfuzzer": LibFuzzer, "aflpp": AflPlusPlus}
