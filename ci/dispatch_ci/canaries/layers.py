"""Running one detection layer's target in a built tree, as recorded Runs (verdict.Run):
ctest entries (unit, property, corpus) and libFuzzer seeds with their artifact re-runs."""
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .. import fuzz_options, paths, procs
from .verdict import Run

FUZZ_SECONDS = 60
CTEST_TIMEOUT = {"unit": 600, "property": 600, "corpus": 900}


def ctest_regex(layer: str, target: str) -> str:
    return f"^{target}_(corpus|regressions)$" if layer == "corpus" else f"^{target}$"


def run_ctest(build_dir: Path, layer: str, target: str, log: Path, timeout: int) -> Run:
    """The target's ctest entries, killed (a timeout: ERROR) after `timeout` s per entry. The
    limit is ours, not ctest's: the tests' own TIMEOUT property would win over --timeout."""
    log.parent.mkdir(parents=True, exist_ok=True)
    entries = 2 if layer == "corpus" else 1  # <t>_corpus and <t>_regressions
    cmd = ["ctest", "--test-dir", build_dir, "-R", ctest_regex(layer, target), "--no-tests=error",
           "--output-on-failure"]
    result = procs.run(cmd, log=log, timeout=timeout * entries, nice=10, cwd=paths.ROOT)
    return Run(result.returncode, result.timed_out, round(result.seconds, 1), _read(log))


def options_file(target: str, source_root: Path) -> Path:
    return source_root / "fuzz" / "options" / f"{target}.options"


def fuzz_flags(target: str, source_root: Path) -> List[str]:
    """libFuzzer flags from fuzz/options/<target>.options (its [libfuzzer] section); `dict`
    names a file in fuzz/dictionaries/. A missing options file or dictionary is an error (the
    committed targets all have one)."""
    flags = fuzz_options.libfuzzer_flags(options_file(target, source_root), source_root / "fuzz" / "dictionaries")
    for flag in flags:
        if flag.startswith("-dict=") and not Path(flag[len("-dict="):]).is_file():
            raise FileNotFoundError(f"dictionary {flag[len('-dict='):]} named by "
                                    f"{options_file(target, source_root)} is missing")
    return flags


def fuzzing_env(env: Dict[str, str], target: str, source_root: Path) -> Dict[str, str]:
    """The environment a seed fuzzes in: `env` with the options file's sanitizer sections. The
    re-runs of its artifact keep `env` (a found input is checked with every detector on)."""
    return fuzz_options.fuzzing_env(env, options_file(target, source_root))


def run_seed(binary: Path, target: str, seed: int, work: Path, source_root: Path,
             env: Dict[str, str], seconds: int = FUZZ_SECONDS, from_corpus: bool = True,
             extra_flags: Sequence[str] = ()) -> Run:
    """One seed from the committed corpus (from an empty one without `from_corpus`) in `env`
    (the caller's fuzzing_env); new units go to a scratch corpus, crash artifacts to
    work/seed<N>/artifacts/."""
    scratch = work / f"seed{seed}"
    shutil.rmtree(scratch, ignore_errors=True)
    (scratch / "corpus").mkdir(parents=True)
    (scratch / "artifacts").mkdir()
    corpus = source_root / "fuzz" / "corpus" / target
    if from_corpus and not corpus.is_dir():
        raise FileNotFoundError(f"corpus folder {corpus} is missing")
    cmd = [binary, f"-seed={seed}", f"-max_total_time={seconds}", *fuzz_flags(target, source_root),
           *extra_flags, "-rss_limit_mb=2048", f"-artifact_prefix={scratch}/artifacts/",
           scratch / "corpus", *([corpus] if from_corpus else [])]
    log = work / f"seed{seed}.log"
    # Wall-clock limit well above -max_total_time: a fuzzer that overruns it is stuck.
    result = procs.run(cmd, log=log, timeout=seconds * 2 + 60, nice=10, env=env)
    shutil.rmtree(scratch / "corpus", ignore_errors=True)
    return Run(result.returncode, result.timed_out, round(result.seconds, 1), _read(log))


def artifact_of(work: Path, seed: int) -> Optional[Path]:
    """The crash artifact a failing seed left (crash-*, the first if several)."""
    found = sorted((work / f"seed{seed}" / "artifacts").glob("crash-*"))
    return found[0] if found else None


def rerun_artifact(binary: Path, artifact: Path, log: Path, env: Dict[str, str]) -> Run:
    result = procs.run([binary, artifact], log=log, timeout=120, nice=10, env=env)
    return Run(result.returncode, result.timed_out, round(result.seconds, 1), _read(log))


def _read(log: Path) -> str:
    try:
        return Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""

