"""Every path this tool uses inside the repository, in one place.

Paths into folders other jobs own (fuzz/, properties/, sanitizer_builds/, ...) live only here,
so that moving those folders means editing this file and nothing else.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_DIR = Path.cwd()   # where the user stood: the jobs run from ROOT, arguments are relative to this

CI = ROOT / "ci"
CI_LIB = CI / "lib"
BUILD = ROOT / "build"
PRESETS_JSON = ROOT / "CMakePresets.json"
SETUP_SCRIPT = CI / "setup.sh"
CANARY_PATCHES = CI / "canaries"  # <name>.patch: the planted-bug canaries (the folder is the list)

# sanitizer_builds/: the run-time environment.
SANITIZER_ENV = ROOT / "sanitizer_builds" / "env.sh"

# fuzz/: targets, committed inputs, the OSS-Fuzz build script.
FUZZ = ROOT / "fuzz"
FUZZ_CORPUS = FUZZ / "corpus"
FUZZ_REGRESSIONS = FUZZ / "regressions"
FUZZ_OPTIONS = FUZZ / "options"             # OSS-Fuzz <target>.options
FUZZ_DICTIONARIES = FUZZ / "dictionaries"   # <target>.dict
FUZZ_CMAKELISTS = FUZZ / "CMakeLists.txt"
REGRESSION_TESTS = FUZZ / "regression_tests"
OSS_FUZZ_BUILD = FUZZ / "oss_fuzz_build.sh"  # the OSS-Fuzz build script (AFL++ builds too)
CLUSTERFUZZLITE_BUILD = ROOT / ".clusterfuzzlite" / "build.sh"

# ci/coverage.sh measures dispatch/include and dispatch/src only: these folders are left out.
COVERAGE_IGNORED = ("dispatch/tests", "oracle", "properties", "fuzz", "bench", "sanitizer_builds", "build")


def build_dir(preset: str) -> Path:
    return BUILD / preset


def rel(path: Path) -> str:
    """`path` relative to the repository root when it is inside it (for messages)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
