"""One AFL++ run for the nightly (engine aflpp), handed over in the nightly's terms so that the
rest of the job does not care which engine ran:

  * failures -> <prefix>crash-<sha1> / <prefix>timeout-<sha1> (crashes/ and hangs/, and the
    seeds afl-fuzz skipped because they crashed or hung), each named in the log as
    "aflpp: artifact <path>";
  * new queue entries -> the first corpus folder (the new-units folder), as <sha1>;
  * statistics -> libFuzzer's notation, which the report reads: one status line per plot_data
    row in the timeline ("<seconds>\\t#<execs> pulse cov: <edges> ...") and in the log, and the
    stat:: lines of -print_final_stats. cov is AFL++'s edges_found.
"""
import hashlib
import os
import re
import shutil
import time
from pathlib import Path
from typing import Dict, List, Optional

from .. import procs

SEED_FAILURE = re.compile(r"Test case '([^']+)' results in a (crash|timeout)")


def sha1_of(path) -> str:
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def copy_named_by_hash(src, folder, prefix: str = "") -> str:
    dst = os.path.join(folder, prefix + sha1_of(src))
    if not os.path.exists(dst):
        shutil.copyfile(src, dst)
    return dst


def afl_env(env: Dict[str, str]) -> Dict[str, str]:
    env = dict(env)
    env.update(AFL_SKIP_CPUFREQ="1", AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1",
               AFL_NO_AFFINITY="1", AFL_NO_UI="1", AFL_FORKSRV_INIT_TMOUT="30000")
    # afl-fuzz insists on abort_on_error=1 and symbolize=0 (a report must end in a signal,
    # quickly); triage re-runs every artifact with the libFuzzer build for the stack. Leaks
    # are off: under persistent mode LSan runs once per process, after thousands of inputs,
    # so a leak names no input (libFuzzer checks leaks per input).
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":abort_on_error=1:symbolize=0:detect_leaks=0"
    env["UBSAN_OPTIONS"] = env.get("UBSAN_OPTIONS", "") + ":halt_on_error=1:abort_on_error=1:symbolize=0"
    env["LSAN_OPTIONS"] = env.get("LSAN_OPTIONS", "") + ":symbolize=0"
    return env


def read_stats(path) -> Dict[str, str]:
    stats = {}
    try:
        for line in Path(path).read_text().splitlines():
            k, _, v = line.partition(":")
            stats[k.strip()] = v.strip()
    except OSError:
        pass
    return stats


def plot_rows(path) -> List[Dict[str, str]]:
    """plot_data rows as dicts keyed by its header (# relative_time, ..., edges_found)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return []
    if not lines or not lines[0].startswith("#"):
        return []
    names = [n.strip() for n in lines[0].lstrip("# ").split(",")]
    return [dict(zip(names, (c.strip() for c in line.split(",")))) for line in lines[1:] if line]


def status_line(n, event, cov, units, eps) -> str:
    return f"#{n}\t{event}  cov: {cov} ft: {cov} corp: {units}/0b exec/s: {eps} rss: 0Mb"


def _collect_seeds(corpora: List[Path], seeds: str) -> None:
    for d in corpora:
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, name)
            if os.path.isfile(path) and os.path.getsize(path) > 0:
                copy_named_by_hash(path, seeds)
    if not os.listdir(seeds):
        Path(seeds, "empty").write_bytes(b"\0")   # afl-fuzz needs one non-empty seed


def _collect_artifacts(out: str, seeds: str, log_text: str, prefix: str) -> List[str]:
    artifacts = []
    art_dir, art_prefix = os.path.split(prefix)
    for sub, kind in (("crashes", "crash-"), ("hangs", "timeout-")):
        folder = os.path.join(out, "default", sub)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.startswith("id:"):
                artifacts.append(copy_named_by_hash(os.path.join(folder, name), art_dir, art_prefix + kind))
    for m in SEED_FAILURE.finditer(log_text):
        # afl-fuzz names a seed by its queue entry, "id:000003,time:0,execs:0,orig:<file>".
        path = os.path.join(seeds, m.group(1).rpartition("orig:")[2])
        if os.path.isfile(path):
            kind = "crash-" if m.group(2) == "crash" else "timeout-"
            artifacts.append(copy_named_by_hash(path, art_dir, art_prefix + kind))
    return artifacts


def run(binary: Path, seconds: int, seed: int, prefix: str, log: Path, timeline: Path, work: Path,
        corpora: List[Path], dictionary: Optional[str], max_len: Optional[int], timeout_ms: int,
        env: Dict[str, str]) -> int:
    """Exit code: 1 if it left an artifact, otherwise afl-fuzz's (124 if the hard limit,
    seconds + 90, stopped it)."""
    new_units = str(corpora[0])
    seeds, out = os.path.join(work, "in"), os.path.join(work, "out")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(seeds)
    _collect_seeds(corpora, seeds)
    cmd = ["afl-fuzz", "-i", seeds, "-o", out, "-s", str(seed), "-V", str(seconds), "-m", "none",
           "-t", str(timeout_ms)]
    if max_len:
        cmd += ["-G", str(max_len)]
    if dictionary:
        cmd += ["-x", dictionary]
    cmd += ["--", str(binary)]
    Path(log).write_text("aflpp: " + " ".join(cmd) + "\n")
    start = time.monotonic()
    # Start-up and seed calibration come on top of -V.
    rc = procs.run(cmd, log=log, append=True, timeout=seconds + 90, env=afl_env(env)).returncode
    elapsed = time.monotonic() - start
    log_text = Path(log).read_text(errors="replace")
    artifacts = _collect_artifacts(out, seeds, log_text, prefix)
    queue = os.path.join(out, "default", "queue")
    added = 0
    for name in sorted(os.listdir(queue)) if os.path.isdir(queue) else []:
        path = os.path.join(queue, name)
        if name.startswith("id:") and ",orig:" not in name and os.path.isfile(path):
            copy_named_by_hash(path, new_units)
            added += 1
    stats = read_stats(os.path.join(out, "default", "fuzzer_stats"))
    rows = plot_rows(os.path.join(out, "default", "plot_data"))
    t0 = int(rows[0].get("relative_time", "0") or 0) if rows else 0
    with open(timeline, "w") as tl, open(log, "a") as lf:
        for i, r in enumerate(rows):
            line = status_line(r.get("total_execs", "0"), "INITED" if i == 0 else "pulse",
                               r.get("edges_found", "0"), r.get("corpus_count", "0"),
                               int(float(r.get("execs_per_sec", "0") or 0)))
            tl.write(f"{int(r.get('relative_time', '0') or 0) - t0:.3f}\t{line}\n")
            lf.write(line + "\n")
        if stats:
            eps = int(float(stats.get("execs_per_sec", "0") or 0))
            lf.write(status_line(stats.get("execs_done", "0"), "DONE", stats.get("edges_found", "0"),
                                 stats.get("corpus_count", "0"), eps) + "\n")
            lf.write(f"stat::number_of_executed_units: {stats.get('execs_done', 0)}\n")
            lf.write(f"stat::average_exec_per_sec: {eps}\n")
            lf.write(f"stat::new_units_added: {added}\n")
            lf.write(f"stat::peak_rss_mb: {stats.get('peak_rss_mb', 0)}\n")
        lf.write(f"aflpp: exit {rc} after {elapsed:.0f}s, {len(artifacts)} artifacts, {added} new units\n")
        for a in artifacts:
            lf.write(f"aflpp: artifact {a}\n")
    return 1 if artifacts else rc
