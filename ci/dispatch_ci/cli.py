"""Command line: `ci/tool.py <job> [options]`, one subcommand per job module."""
import argparse
import importlib
import os
import signal
import sys
from typing import List

from . import paths, procs
from .log import UsageError, error

# subcommand -> module in dispatch_ci.jobs. Each module has SCRIPT (the wrapper users call),
# a docstring (its --help text), add_arguments(parser) and run(args) -> exit code.
JOBS = {
    "test": "test",
    "premerge": "premerge",
    "nightly": "nightly",
    "nightly-history": "nightly_history",
    "replay": "replay",
    "aflpp-run": "aflpp_run",
    "ossfuzz_check": "ossfuzz_check",
    "coverage": "coverage",
    "repro": "repro",
    "corpus-cache": "corpus_cache",
    "canaries": "canaries",
    "mutants": "mutants",
    "bug-benchmark": "bug_benchmark",
    "premerge-depth": "premerge_depth",
}


def _load(name: str):
    return importlib.import_module(f"dispatch_ci.jobs.{JOBS[name]}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ci/tool.py", description=__doc__)
    sub = parser.add_subparsers(dest="job", metavar="JOB", required=True)
    for name in JOBS:
        module = _load(name)
        job = sub.add_parser(name, prog=module.SCRIPT, help=module.__doc__.splitlines()[0],
                             description=module.__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(job)
        job.set_defaults(module=module)
    return parser


def _stop(signum, _frame):
    """SIGTERM/SIGINT: end the children's process groups too, then exit 128+N."""
    procs.kill_all_groups()
    raise SystemExit(128 + signum)


def main(argv: List[str]) -> int:
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    os.chdir(paths.ROOT)   # every job works from the repository root, as the scripts always did
    try:
        return int(args.module.run(args))
    except UsageError as e:
        error(args.module.SCRIPT, f"{e} (try --help)")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
