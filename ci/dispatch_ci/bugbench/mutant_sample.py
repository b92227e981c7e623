"""The benchmark's mutant sample: drawn with ci/mutants.sh's seeded mutator and judged by its
pre-merge suite run (jobs/mutants.py MutantRun), recorded in bench/bugs/mutants.tsv so that the
benchmark's set is fixed and versioned (bugs.py reads it)."""
import argparse
from typing import Callable, Dict, List

from ..jobs.mutants import DEFAULT_FILES, MutantRun, select_files
from ..mutants import mutator
from ..scratch import sync
from . import bugs

PREMERGE_PRESET = "full-asan-ubsan"   # ci/mutants.sh's default: the pre-merge suite's build
HEADER = """The bug benchmark's mutant sample (ci/dispatch_ci/bugbench/bugs.py says what the columns mean).
Drawn by bench/bug_benchmark.sh --draw-mutants SEED:N from ci/mutants.sh's sites; judged by
bench/bug_benchmark.sh --judge-mutants (the pre-merge suite, as ci/mutants.sh runs it).
Only `killed` rows are bugs of the benchmark. The sample is the draw's mutants of .cpp files:
a header's mutant rebuilds every file that includes it, 5 to 21 min to judge on 2 cores and a
whole sanitizer build per fuzzing tree, so header rows are `excluded` (kept, so that the file
shows the whole draw). Key-set and layout code in headers is covered by the canaries instead."""


def draw(files: Dict[str, bytes], seed: int, count: int) -> List[bugs.MutantRecord]:
    """`count` sites drawn with `seed` from ci/mutants.sh's default files: those of .cpp files
    unjudged, those of headers excluded (HEADER says why)."""
    candidates = mutator.all_sites(select_files(files, DEFAULT_FILES.split(",")))
    chosen = mutator.sample(candidates, count, seed)
    return [bugs.MutantRecord(f"{seed}:{i}", s.file, s.operator, s.before, s.after, initial_status(s.file),
                              bugs.targets_for(s.file, files[s.file].decode("utf-8"), s.line))
            for i, s in enumerate(chosen, 1)]


def initial_status(file: str) -> str:
    return "excluded" if file.endswith(".h") else "unjudged"


def premerge_status(status: str) -> str:
    """ci/mutants.sh's status as the sample records it ("killed (timeout)" is killed)."""
    return "killed" if status.startswith("killed") else status


def judge(files: Dict[str, bytes], records: List[bugs.MutantRecord], jobs: int,
          say: Callable[[str], None], save: Callable[[], None]) -> bool:
    """Judges every unjudged record with the pre-merge suite, saving after each one (a stopped
    run resumes where it stopped). False when the unmutated tree does not build or pass."""
    # Mutants in .cpp files first: a header mutant rebuilds every file that includes it (5 to 21
    # min against 1.5 to 3 on this machine, ci/measured/mutants-seed1.md), so a stopped run has
    # judged the most it could.
    todo = sorted((r for r in records if r.premerge == "unjudged"), key=lambda r: r.file.endswith(".h"))
    if not todo:
        say("every mutant of the sample is judged")
        return True
    seed = int(todo[0].draw.split(":")[0])
    job = MutantRun(argparse.Namespace(preset=PREMERGE_PRESET, seed=seed, jobs=jobs, timeout=900), files, say)
    if not job.prepare():
        return False
    try:
        for record in todo:
            index = int(record.draw.split(":")[1])
            result = job.judge(index, bugs.site_of(record, files))
            record.premerge = premerge_status(result["status"])
            say(f"mutant {record.draw} {record.file}: {record.premerge} in {result['seconds']}s")
            save()
    finally:
        sync(job.files, job.src)
    return True
