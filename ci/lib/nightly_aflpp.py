#!/usr/bin/env python3
"""ci/lib/nightly_aflpp.py -- one AFL++ run for ci/nightly.sh (engine aflpp, ci/lib/nightly_engine.sh).

    nightly_aflpp.py --bin AFL_BINARY --seconds S --seed N --artifact-prefix PREFIX
                     --log FILE --timeline FILE --work DIR [--dict FILE] [--max-len N]
                     [--timeout-ms N] -- CORPUS_DIR...

Runs afl-fuzz for S seconds on the seeds of every CORPUS_DIR and hands the results over in
the nightly's terms, so that the rest of the job does not care which engine ran:
  * failures -> PREFIX crash-<sha1> / PREFIX timeout-<sha1> (crashes/ and hangs/, and the
    seeds afl-fuzz skipped because they crashed or hung), each named in the log as
    "aflpp: artifact <path>";
  * new queue entries -> the first CORPUS_DIR (the new-units folder), as <sha1>;
  * statistics -> libFuzzer's notation, which ci/lib/nightly_report.py reads: one status
    line per plot_data row in --timeline ("<seconds>\\t#<execs> pulse cov: <edges> ...") and in
    the log, and the stat:: lines of -print_final_stats. cov is AFL++'s edges_found.
Exit code: 1 if it left an artifact, otherwise afl-fuzz's (124 if the hard limit, S + 90 s,
stopped it). Standard library only.
"""
import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time

SEED_FAILURE = re.compile(r"Test case '([^']+)' results in a (crash|timeout)")


def sha1_of(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def copy_named_by_hash(src, folder, prefix=""):
    dst = os.path.join(folder, prefix + sha1_of(src))
    if not os.path.exists(dst):
        shutil.copyfile(src, dst)
    return dst


def afl_env():
    env = dict(os.environ)
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


def read_stats(path):
    stats = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.partition(":")
                stats[k.strip()] = v.strip()
    except OSError:
        pass
    return stats


def plot_rows(path):
    """plot_data rows as dicts keyed by its header (# relative_time, ..., edges_found)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    if not lines or not lines[0].startswith("#"):
        return []
    names = [n.strip() for n in lines[0].lstrip("# ").split(",")]
    return [dict(zip(names, (c.strip() for c in line.split(",")))) for line in lines[1:] if line]


def status_line(n, event, cov, units, eps):
    return f"#{n}\t{event}  cov: {cov} ft: {cov} corp: {units}/0b exec/s: {eps} rss: 0Mb"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("--bin", "--artifact-prefix", "--log", "--timeline", "--work"):
        ap.add_argument(name, required=True)
    ap.add_argument("--seconds", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--dict")
    ap.add_argument("--max-len", type=int)
    ap.add_argument("--timeout-ms", type=int, default=25000)
    ap.add_argument("corpora", nargs="+")
    args = ap.parse_args()
    corpora = [c for c in args.corpora if c != "--"]
    new_units = corpora[0]

    seeds = os.path.join(args.work, "in")
    out = os.path.join(args.work, "out")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(seeds)
    for d in corpora:
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, name)
            if os.path.isfile(path) and os.path.getsize(path) > 0:
                copy_named_by_hash(path, seeds)
    if not os.listdir(seeds):
        with open(os.path.join(seeds, "empty"), "wb") as f:
            f.write(b"\0")   # afl-fuzz needs one non-empty seed

    cmd = ["afl-fuzz", "-i", seeds, "-o", out, "-s", str(args.seed), "-V", str(args.seconds),
           "-m", "none", "-t", str(args.timeout_ms)]
    if args.max_len:
        cmd += ["-G", str(args.max_len)]
    if args.dict:
        cmd += ["-x", args.dict]
    cmd += ["--", args.bin]

    start = time.monotonic()
    with open(args.log, "w") as log:
        log.write("aflpp: " + " ".join(cmd) + "\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=afl_env(), start_new_session=True)
        try:
            rc = proc.wait(timeout=args.seconds + 90)   # start-up and seed calibration on top
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            rc = 124
    elapsed = time.monotonic() - start
    with open(args.log, errors="replace") as f:
        log_text = f.read()

    artifacts = []
    art_dir, art_prefix = os.path.split(args.artifact_prefix)
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
    with open(args.timeline, "w") as tl, open(args.log, "a") as log:
        for i, r in enumerate(rows):
            line = status_line(r.get("total_execs", "0"), "INITED" if i == 0 else "pulse",
                               r.get("edges_found", "0"), r.get("corpus_count", "0"),
                               int(float(r.get("execs_per_sec", "0") or 0)))
            tl.write(f"{int(r.get('relative_time', '0') or 0) - t0:.3f}\t{line}\n")
            log.write(line + "\n")
        if stats:
            log.write(status_line(stats.get("execs_done", "0"), "DONE", stats.get("edges_found", "0"),
                                  stats.get("corpus_count", "0"),
                                  int(float(stats.get("execs_per_sec", "0") or 0))) + "\n")
            log.write(f"stat::number_of_executed_units: {stats.get('execs_done', 0)}\n")
            log.write(f"stat::average_exec_per_sec: {int(float(stats.get('execs_per_sec', 0) or 0))}\n")
            log.write(f"stat::new_units_added: {added}\n")
            log.write(f"stat::peak_rss_mb: {stats.get('peak_rss_mb', 0)}\n")
        log.write(f"aflpp: exit {rc} after {elapsed:.0f}s, {len(artifacts)} artifacts, {added} new units\n")
        for a in artifacts:
            log.write(f"aflpp: artifact {a}\n")
    return 1 if artifacts else rc


if __name__ == "__main__":
    sys.exit(main())
