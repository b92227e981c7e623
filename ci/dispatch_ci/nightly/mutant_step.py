"""A nightly step: a small seeded sample of ci/mutants.sh (`--mutants N`, default 0: skipped).

The seed is the night's UTC date (YYYYMMDD) unless --mutants-seed says otherwise, so every night
draws different mutants and any night can be re-run. It draws the sites of
`ci/mutants.sh --seed S --n 10N` and judges them in order until N are valid (killed or
survived) or --mutants-budget seconds are used up. Verdict and known survivors:
mutants/sample_verdict.py (a survivor turns the night red only when it is new). Results:
logs/mutants/ (summary.txt, survivors.diff, results.tsv, one log per mutant).
"""
import argparse
import time

from .. import paths, scratch
from ..jobs import mutants as mutants_job
from ..mutants import mutator, sample_verdict
from .context import Night
from .run_folder import utc

KNOWN_SURVIVORS = paths.CI / "mutants_known.tsv"
DRAWS_PER_MUTANT = 10   # invalid mutants are common (4 of 4 on one night) and cost seconds each


def add_arguments(p) -> None:
    p.add_argument("--mutants", type=int, default=0, metavar="N",
                   help="judge a seeded sample of N valid mutants of dispatch/ (default 0: skip)")
    p.add_argument("--mutants-seed", type=int, default=None, metavar="S",
                   help="seed of the mutant sample (default: the night's UTC date, YYYYMMDD)")
    p.add_argument("--mutants-budget", type=int, default=1800, metavar="SECONDS",
                   help="time for judging the sample, after the unmutated build (default 1800)")


def run(night: Night, args) -> None:
    folder = night.folder
    if args.mutants <= 0:
        folder.record_step("mutant sample", "skipped", 0, "--mutants 0")
        return
    if night.options.canary:   # the sample mutates the real tree, not the canary's copy
        folder.record_step("mutant sample", "skipped", 0, "not with --canary")
        return
    start = time.time()
    seed = args.mutants_seed if args.mutants_seed is not None else int(utc("%Y%m%d"))
    draws = args.mutants * DRAWS_PER_MUTANT
    job_args = argparse.Namespace(seed=seed, n=draws, preset="full-asan-ubsan", files=mutants_job.DEFAULT_FILES,
                                  timeout=900, jobs=night.options.jobs)
    try:
        known = sample_verdict.read_known(KNOWN_SURVIVORS)
    except sample_verdict.KnownListError as e:
        folder.record_step("mutant sample", "FAILED", 0, str(e))
        return
    files = scratch.read_tree()
    sites = mutator.sample(mutator.all_sites(mutants_job.select_files(
        files, mutants_job.DEFAULT_FILES.split(","))), draws, seed)
    job = mutants_job.MutantRun(job_args, files, night.say)
    job.out = night.log("mutants")
    job.logs = job.out / "logs"
    night.say(f"mutant sample: seed {seed}, up to {args.mutants} valid of `ci/mutants.sh --seed {seed} "
              f"--n {draws}` (log: {paths.rel(job.out)}/)")
    results = []
    prepared = job.prepare()
    if prepared:
        mutants_job.judge_all(job, sites, results, night.say, enough=args.mutants,
                              deadline=time.time() + args.mutants_budget)
    mutants_job.write_results(job.out, results, int(time.time() - start))
    result, detail = sample_verdict.verdict(prepared, results, known)
    folder.record_step("mutant sample", result, int(time.time() - start),
                       f"seed {seed}: {detail} (logs/mutants/)")
    night.say(f"mutant sample: {result} ({detail})")
