"""Steps 2 and 3 of a nightly: fuzz every target x preset campaign within the budget, then merge
the new units with the committed corpus into a corpus ready to commit."""
import concurrent.futures
import os
import random
import time
from pathlib import Path
from typing import List

from .. import paths
from . import engines, plan, systems
from .context import Night


def campaigns(night: Night) -> List[tuple]:
    return [(p, t) for p in night.options.presets for t in night.preset_targets.get(p, [])]


def fuzz_worker(night: Night, preset: str, target: str, worker: int, seconds: int) -> None:
    """One worker slot of a campaign. After a failure libFuzzer stops; the worker restarts it
    (new seed, same new-units folder) while time is left (plan.should_restart); with
    --stop-on-first-failure no run starts once any worker's run left an artifact."""
    run_dir = night.folder.path
    new_dir = run_dir / "new-units" / preset / target
    art_dir = run_dir / "artifacts" / preset / target
    log_dir = run_dir / "logs" / "fuzz" / preset / target
    for d in (new_dir, art_dir, log_dir):
        d.mkdir(parents=True, exist_ok=True)
    corpora = [new_dir] + systems.seed_corpora(target)
    extra = engines.options_flags(systems.options_file(target), systems.dictionary_file(target))
    env = engines.fuzzing_env(night.env, systems.options_file(target))
    start = time.time()
    seen: List[str] = []
    run = 0
    stop_first = night.options.stop_on_first_failure
    while True:
        if stop_first and night.first_failure.is_set():
            break
        run += 1
        remaining = seconds - int(time.time() - start)
        if run > 1 and remaining < 5:
            break
        remaining = max(remaining, 1)
        seed = plan.seed(int(start), worker, run, random.randrange(32768))
        log = log_dir / f"w{worker}-r{run}.log"
        timeline = log_dir / f"w{worker}-r{run}.timeline.tsv"
        t0 = time.time()
        rc = night.engine.fuzz(night.binary(preset, target), remaining, seed, f"{art_dir}/", log, timeline,
                               extra, corpora, env)
        secs = int(time.time() - t0)
        log_text = log.read_text(errors="replace") if log.is_file() else ""
        artifacts = [paths.rel(a) for a in night.engine.artifacts(log_text) if "/slow-unit-" not in a]
        night.folder.append_row("runs.tsv", preset, target, worker, run, seed, rc, secs, paths.rel(log),
                                paths.rel(timeline), " ".join(artifacts))
        names = [os.path.basename(a) for a in artifacts]
        night.say(f"fuzz {preset}/{target} worker {worker} run {run}: exit {rc} after {secs}s"
                  + (f" -> {' '.join(names)} " if names else ""))
        if names:
            night.first_failure.set()
        if not plan.should_restart(rc, names, night.engine.restart_after_failure(log_text), seen, run,
                                   stop_first):
            break
        seen += names


def broken_runs(runs_tsv: Path) -> List[str]:
    """Runs that failed without leaving an artifact: broken (binary missing, bad flag in an
    options file, killed), not a finding."""
    broken = []
    for line in runs_tsv.read_text().splitlines():
        cols = (line.split("\t") + [""] * 10)[:10]
        p, t, w, r, _, rc, _, _, _, arts = cols
        if rc != "0" and not arts:
            broken.append(f"{p}/{t} w{w} r{r} (exit {rc})")
    return broken


def fuzz(night: Night) -> None:
    camps = campaigns(night)
    night.folder.write_kv("plan.tsv", camps)
    fuzz_budget = night.options.budget - plan.property_seconds(night.options.budget, night.options.run_property)
    if not camps:
        night.folder.record_step("fuzz", "FAILED", 0, "nothing to fuzz (no preset built)")
        return
    p = plan.fuzz_plan(len(camps), night.options.jobs, fuzz_budget)
    night.say(f"fuzz: {len(camps)} campaigns ({' '.join(night.all_targets)} x {' '.join(night.options.presets)}), "
              f"{fuzz_budget}s: {night.options.jobs} slots, {p.waves} wave(s) of {p.seconds_per_run}s")
    tasks = [(pr, t, w) for (pr, t), n in zip(camps, p.workers) for w in range(1, n + 1)]
    start = time.time()
    workers_left = {c: n for c, n in zip(camps, p.workers)}
    if night.ticker:
        night.ticker.campaigns_total = len(camps)
    with concurrent.futures.ThreadPoolExecutor(max_workers=night.options.jobs) as pool:
        futures = {pool.submit(fuzz_worker, night, pr, t, w, p.seconds_per_run): (pr, t) for pr, t, w in tasks}
        for f in concurrent.futures.as_completed(futures):
            f.result()
            workers_left[futures[f]] -= 1
            if night.ticker and workers_left[futures[f]] == 0:
                night.ticker.campaigns_done += 1
    night.fuzz_seconds = int(time.time() - start)
    n_art = sum(1 for f in (night.folder.path / "artifacts").rglob("*")
                if f.is_file() and not f.name.startswith("slow-unit-"))
    broken = broken_runs(night.folder.state("runs.tsv"))
    if broken:
        night.folder.record_step("fuzz", "FAILED", night.fuzz_seconds,
                                 f"runs that failed without an artifact: {', '.join(broken)} (see logs/fuzz/)")
    else:
        night.folder.record_step("fuzz", "ok", night.fuzz_seconds,
                                 f"{len(camps)} campaigns, {len(tasks)} workers x {p.seconds_per_run}s, "
                                 f"{n_art} failure artifacts")
    night.say(f"fuzz: done in {night.fuzz_seconds}s, {n_art} failure artifacts")


def _count_files(folder: Path) -> int:
    return sum(1 for f in folder.rglob("*") if f.is_file()) if folder.is_dir() else 0


def merge(night: Night) -> None:
    start = time.time()
    failed = []
    for t in night.all_targets:
        out = night.folder.path / "corpus" / t
        out.mkdir(parents=True, exist_ok=True)
        inputs, new_units = [], 0
        for d in sorted((night.folder.path / "new-units").glob(f"*/{t}")):
            n = _count_files(d)
            new_units += n
            if n:
                inputs.append(d)
        committed = _count_files(paths.FUZZ_CORPUS / t)
        if committed:
            inputs.append(paths.FUZZ_CORPUS / t)
        status = "ok"
        if inputs:
            # Merge with every flavour's binary in turn: the second adds what only its build covers.
            for p in night.options.presets:
                if t in night.preset_targets.get(p, []) and not night.engine.merge(
                        night.binary(p, t), out, night.log(f"merge-{t}-{p}.log"), inputs):
                    status = "FAILED"
                    failed.append(f"{t}/{p}")
        merged = _count_files(out)
        night.folder.append_row("corpus.tsv", t, committed, new_units, merged, status)
        night.say(f"merge {t}: committed {committed} + {new_units} new units -> {merged} after -merge=1 ({status})")
    if failed:
        night.folder.record_step("corpus merge", "FAILED", int(time.time() - start),
                                 f"merge failed for {' '.join(failed)} (logs/merge-*.log)")
    else:
        night.folder.record_step("corpus merge", "ok", int(time.time() - start),
                                 f"{len(night.all_targets)} targets -> {night.folder.rel}/corpus/")
