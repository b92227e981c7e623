"""ci/tool.py aflpp-run -- one AFL++ run in the nightly's terms (dispatch_ci/nightly/aflpp.py),
for ci/lib/ossfuzz_bad_build.sh's afl-fuzz check.

  ci/tool.py aflpp-run --bin AFL_BINARY --seconds S --seed N --artifact-prefix PREFIX
                       --log FILE --timeline FILE --work DIR [--dict FILE] [--max-len N]
                       [--timeout-ms N] -- CORPUS_DIR...

Exit code: 1 if it left an artifact, otherwise afl-fuzz's (124 if the hard limit stopped it).
"""
import os
from pathlib import Path

from .. import paths
from ..nightly import aflpp
from ..sanitizer_env import sanitizer_env

SCRIPT = "ci/tool.py aflpp-run"


def add_arguments(p):
    for name in ("--bin", "--artifact-prefix", "--log", "--timeline", "--work"):
        p.add_argument(name, required=True)
    p.add_argument("--seconds", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--dict")
    p.add_argument("--max-len", type=int)
    p.add_argument("--timeout-ms", type=int, default=25000)
    p.add_argument("corpora", nargs="+")


def run(args) -> int:
    # Paths are the caller's: relative ones are taken from where it stood, not the repository.
    def here(p):
        return str(paths.START_DIR / p) if p else p
    corpora = [Path(here(c)) for c in args.corpora if c != "--"]
    env = os.environ if os.environ.get("DISPATCH_SANITIZER_ENV_LOADED") else sanitizer_env()
    return aflpp.run(Path(here(args.bin)), args.seconds, args.seed, here(args.artifact_prefix),
                     Path(here(args.log)), Path(here(args.timeline)), Path(here(args.work)), corpora,
                     here(args.dict), args.max_len, args.timeout_ms, dict(env))
