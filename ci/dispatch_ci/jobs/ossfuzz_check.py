"""ci/ossfuzz_check.sh -- does .clusterfuzzlite/build.sh keep the OSS-Fuzz build contract?

  ci/ossfuzz_check.sh [--envs a,b,...] [--jobs N] [--configure-only]

Runs the build script the way OSS-Fuzz's builder would, in OSS-Fuzz-like environments, each into
a fresh temporary $OUT ($WORK: build/ossfuzz-<env>/, kept between runs), then OSS-Fuzz's
bad-build check on every fuzz target (ci/lib/ossfuzz_bad_build.sh) and prints the $OUT files and
the results. Exit code 0 only if every environment built and passed.

  libfuzzer-address    clang-14, OSS-Fuzz's CFLAGS + ASan flags + -fsanitize=fuzzer-no-link,
                       LIB_FUZZING_ENGINE=-fsanitize=fuzzer
  libfuzzer-undefined  the same with OSS-Fuzz's UBSan flag list
  aflpp-address        CC=afl-clang-fast CXX=afl-clang-fast++ (Debian's afl++), ASan,
                       LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a

Not like OSS-Fuzz: its images add -stdlib=libc++ to CXXFLAGS and link a libFuzzer built against
that libc++. Debian's libclang_rt.fuzzer is built against libstdc++ (linking it with
-stdlib=libc++ fails with undefined std::basic_ifstream), so the local check stays on libstdc++.
ctest: label ossfuzz (a fuzz preset: ctest --test-dir build/full-fuzz -L ossfuzz).

--configure-only runs only the contract's configure step (tests off, DISPATCH_OSS_FUZZ) in each
environment: seconds, not minutes, so the test command runs it (ci/tests/test_job_defaults.py)
and a CMake change that breaks the contract fails before it lands.
"""
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from .. import paths, procs
from ..log import Say, UsageError
from ..presets import positive_int, split_csv

SCRIPT = "ci/ossfuzz_check.sh"
BAD_BUILD_CHECK = paths.CI_LIB / "ossfuzz_bad_build.sh"

# OSS-Fuzz's flags (infra/base-images: base-clang CFLAGS, base-builder SANITIZER_FLAGS_*).
BASE_FLAGS = "-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
ASAN_FLAGS = "-fsanitize=address -fsanitize-address-use-after-scope"
# OSS-Fuzz's UBSan list; clang-14 accepts all of it for C++. unsigned-integer-overflow is
# recoverable (a coverage signal only; UBSAN_OPTIONS silence_unsigned_overflow=1).
UBSAN_CHECKS = ("array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,"
                "object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,"
                "unsigned-integer-overflow,unreachable,vla-bound,vptr")
UBSAN_FLAGS = (f"-fsanitize={UBSAN_CHECKS} "
               f"-fno-sanitize-recover={UBSAN_CHECKS.replace('unsigned-integer-overflow,', '')}")
ENVIRONMENTS = ("libfuzzer-address", "libfuzzer-undefined", "aflpp-address")


def environment(name: str) -> Dict[str, str]:
    """The variables OSS-Fuzz's builder would set for one environment."""
    if name in ("libfuzzer-address", "libfuzzer-undefined"):
        undefined = name.endswith("-undefined")
        flags = f"{BASE_FLAGS} {UBSAN_FLAGS if undefined else ASAN_FLAGS} -fsanitize=fuzzer-no-link"
        return {"CC": "clang-14", "CXX": "clang++-14", "CFLAGS": flags, "CXXFLAGS": flags,
                "LIB_FUZZING_ENGINE": "-fsanitize=fuzzer", "FUZZING_ENGINE": "libfuzzer",
                "SANITIZER": "undefined" if undefined else "address"}
    if name == "aflpp-address":
        flags = f"{BASE_FLAGS} {ASAN_FLAGS}"
        return {"CC": "afl-clang-fast", "CXX": "afl-clang-fast++", "CFLAGS": flags, "CXXFLAGS": flags,
                "LIB_FUZZING_ENGINE": "/usr/lib/afl/libAFLDriver.a", "FUZZING_ENGINE": "aflpp",
                "SANITIZER": "address", "AFL_QUIET": "1"}
    raise UsageError(f"unknown environment '{name}'")


def add_arguments(p):
    p.add_argument("--envs", default=",".join(ENVIRONMENTS), help=f"environments (default: {','.join(ENVIRONMENTS)})")
    p.add_argument("--jobs", type=positive_int, default=2, help="build parallelism (default 2)")
    p.add_argument("--configure-only", action="store_true",
                   help="only the contract's configure step, no build and no bad-build check")


def out_listing(out: Path) -> List[str]:
    return [f"  {f.name:<40} {f.stat().st_size:>10} bytes" for f in sorted(out.iterdir()) if f.is_file()]


def result_rows(tsv: Path) -> List[str]:
    fmt = "  {:<22} {:<7} {:>9} {:>9} {:>9} {:>7} {:>7} {:<16} {:>5}  {}"
    rows = [fmt.format("target", "result", "edges", "covered", "features", "__asan", "__ubsan", "flavours", "s",
                       "problems")]
    for line in tsv.read_text().splitlines():
        rows.append(fmt.format(*(line.split("\t") + [""] * 10)[:10]))
    return rows


def check(name: str, jobs: int, say: Say, configure_only: bool = False) -> str:
    """Builds and checks one environment (or only configures it); returns its summary line
    "env|result|detail"."""
    work = paths.BUILD / (f"ossfuzz-configure-{name}" if configure_only else f"ossfuzz-{name}")
    work.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix=f"ossfuzz-out-{name}."))
    variables = environment(name)
    try:
        step = "configure" if configure_only else "build"
        say(f"{name}: {step} (WORK={work}, OUT={out}, log {work}/build.log)")
        start = time.time()
        env = dict(os.environ, **variables, SRC=str(paths.ROOT.parent), WORK=str(work),
                   OUT=str(out), CMAKE_BUILD_PARALLEL_LEVEL=str(jobs),
                   DISPATCH_OSS_FUZZ_CONFIGURE_ONLY="1" if configure_only else "0")
        # OSS-Fuzz runs build.sh from the Dockerfile's WORKDIR, the repository.
        if not procs.run(["bash", "-eu", paths.CLUSTERFUZZLITE_BUILD], log=work / "build.log", env=env,
                         nice=10, cwd=paths.ROOT).ok:
            say(f"{name}: {step} FAILED")
            print("\n".join("    " + l for l in (work / "build.log").read_text(errors="replace").splitlines()[-30:]))
            return f"{name}|{step} FAILED|{int(time.time() - start)}s"
        build_s = int(time.time() - start)
        if configure_only:
            return f"{name}|ok|configured in {build_s}s"
        print(f"\n$OUT of {name} ({out}), built in {build_s}s:")
        print("\n".join(out_listing(out)))
        say(f"{name}: bad-build check ({variables['FUZZING_ENGINE']}, {variables['SANITIZER']})")
        start = time.time()
        tsv = work / "bad-build-results.tsv"   # not in $OUT: OSS-Fuzz would ship it
        tsv.write_text("")
        rc = procs.run(["bash", BAD_BUILD_CHECK, variables["FUZZING_ENGINE"], variables["SANITIZER"], out, tsv],
                       env=dict(os.environ, WORK=str(work)),
                       on_line=lambda line: print(line, flush=True)).returncode
        check_s = int(time.time() - start)
        print()
        print("\n".join(result_rows(tsv)))
        print()
        if rc != 0:
            return f"{name}|check FAILED|build {build_s}s, check {check_s}s"
        n = len(tsv.read_text().splitlines())
        return f"{name}|ok|build {build_s}s, check {check_s}s, {n} targets"
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run(args) -> int:
    envs = split_csv(args.envs, "environments")
    for e in envs:
        environment(e)
    say = Say(SCRIPT)
    summary = [check(e, args.jobs, say, args.configure_only) for e in envs]
    print("ci/ossfuzz_check.sh summary")
    failed = False
    for line in summary:
        e, result, detail = line.split("|", 2)
        failed |= result != "ok"
        print(f"  {e:<22} {result:<14} {detail}")
    if failed:
        print("ci/ossfuzz_check.sh: FAILED")
    return 1 if failed else 0
