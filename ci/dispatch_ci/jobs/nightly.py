"""ci/nightly.sh -- THE main job: the fuzz campaign (see README.md).

  ci/nightly.sh [--budget SECONDS] [--jobs N] [--targets a,b] [--engine libfuzzer|aflpp]
                [--no-property] [--history FILE] [--fail-on any|new] [--no-setup] [--system ours|c10]
                [--libtorch 1.13|2.6|2.14] [--random-flavours N [--flavour-seed S]]

--system c10 fuzzes PyTorch's own dispatcher (libtorch 1.13.1; ci/setup.sh --with-libtorch) with
c10_registration_fuzzer in the preset full-c10, seeded from registration_fuzzer's corpus, and runs
the tests labelled c10 (the replay of every committed input against c10) instead of the property
suite. Inputs that only show a known upstream bug (fuzz/c10/known_upstream.signatures) are skipped
while fuzzing; a c10 failure that matches one is bucketed "known upstream" and never turns the
night red; any other is new. --libtorch 2.14 (or 2.6) does the same against that release: it
makes the release's chroot (ci/setup.sh --with-libtorch 2.14) and runs the night inside it
(ci/c10.sh), preset full-c10-2.14, where the model-free oracles judge c10. See docs/c10-harness.md.

Runs ci/setup.sh first (installs the missing Debian 12 packages, as ci/test.sh does; --no-setup
skips it), then builds the presets full-fuzz and mobile-fuzz, fuzzes every target x flavour from the
committed corpus (fuzz/corpus/, fuzz/regressions/, fuzz/options/, fuzz/dictionaries/),
runs the property suite with large case counts under full-asan-ubsan, then merges new
coverage into a corpus ready to commit, minimises and buckets every failure by
dispatcher state, runs the TSan concurrency soak (--soak-seconds, default 60, under full-tsan)
and, with --mutants N, a seeded sample of N valid mutants of dispatch/ (a survivor not listed in
ci/mutants_known.tsv fails the night), shows the summary line of the weekly bug benchmark when
given its results (--bug-benchmark-results FILE, nightly/bug_benchmark_step.py), and writes
report.md + report.html. With no arguments: a short run.

  --budget: wall-clock seconds (default 300): 3/4 fuzzing, split over the target x flavour
  campaigns, 1/4 the large property run (all of it fuzzing with --no-property). Builds,
  corpus merge, triage and the property calibration come on top. Property cases scale with
  it (max_success 2000 at 300 s, fitted per test into its share).
  --random-flavours N [--flavour-seed S]: every build (fuzz presets and the property suite's)
  also gets N trimmed flavours drawn at configure time from S (default: today's UTC date as
  YYYYMMDD), in trees of their own (build/<preset>-rand<N>-seed<S>/). The report and the summary
  name the seed; each drawn flavour's slots are printed, and a failure in one keeps its slot list
  in bucket.json (flavour_declaration), from which ci/repro.sh configures exactly that flavour.
  --engine aflpp: AFL++ (afl-fuzz) fuzzes the same targets x flavours from the same corpora,
  built a second time with afl-clang-fast++ and AFL++'s driver into build/nightly-aflpp/<preset>/
  (fuzz/oss_fuzz_build.sh; same sanitizers). Its crashes and hangs become artifacts like
  libFuzzer's; merge, triage, minimisation and repro.sh use the libFuzzer builds, so the report
  and the failure buckets look the same. Runs do not restart after a failure (afl-fuzz keeps
  going); cov in the report is AFL++'s edges_found.

Crash history (--history, default build/nightly/history.json; `ci/tool.py nightly-history`
exports, imports and marks it): every failure bucket with first/last seen, count, status (new,
known, fixed, known upstream) and its minimised input. Each night re-runs every open bucket's
stored input on the current tree: one that passes is marked fixed (with the commit); one whose
input is missing or can no longer be run is an error, never "fixed".

Progress: a status line every 30 s (elapsed / budget, step, campaigns done, execs, cov, failures).

Output: build/nightly/<UTC time>/ (and build/nightly/latest): report.md, report.html,
report.sarif (SARIF 2.1.0: one result per failing bucket), report.junit.xml, corpus/<target>/,
failures/<bucket>/, recheck/, artifacts/, logs/. Exit code 1 when a step broke, a stored input
could not be re-run, or a new (or reopened) bucket failed; with --fail-on any (the default) also
when a known bucket still fails; known-upstream buckets never fail the night. 2 for bad arguments.

Hidden options (for checking the harness, never for the real nightly): --canary NAME (build
every preset into build/<preset>-canary-NAME/ from the tree with ci/canaries/NAME.patch applied; its
buckets go into the crash history given by --history, so point that elsewhere for experiments),
--presets a,b (fuzz presets, default full-fuzz,mobile-fuzz), --property-preset P (default
full-asan-ubsan), --stop-on-first-failure (fuzzing ends at the first run that leaves a failure
artifact: that worker does not restart, no worker starts or restarts after it; a libFuzzer run
already going in another worker finishes its time, so measure with one campaign and --jobs 1;
the rest of the night runs as usual. For the time-to-detection tables of docs/harness.md section 3).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .. import flavours, git_tree, paths, project, table
from ..log import Say, UsageError
from ..presets import split_csv
from ..sanitizer_env import sanitizer_env
from ..nightly import build_step, fuzz_step, history, history_step, progress, property_step, report, triage_step
from ..nightly import bug_benchmark_step, context, known_upstream_step, mutant_step, soak_step, systems
from ..nightly.context import DEFAULT_PRESETS, Night, Options
from ..nightly.engines import ENGINES
from ..nightly.report_model import read_tsv
from ..nightly.run_folder import RunFolder, utc


SCRIPT = context.SCRIPT
LIBTORCH_RELEASES = ("1.13", "2.6", "2.14")   # ci/lib/libtorch_releases.sh
DEFAULT_HISTORY = history.DEFAULT_STORE


def add_arguments(p):
    p.add_argument("--budget", type=int, default=300, help="wall-clock seconds (default 300, at least 10)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2,
                   help="parallel fuzzer processes and build jobs (default: nproc)")
    p.add_argument("--targets", action="append", default=[],
                   help="only these fuzz targets (default: every one the build lists)")
    p.add_argument("--engine", default="libfuzzer", help="fuzzing engine: libfuzzer (default) or aflpp")
    p.add_argument("--no-property", action="store_true", help="skip the property suite")
    p.add_argument("--history", default=str(paths.rel(DEFAULT_HISTORY)),
                   help=f"crash history file (default {paths.rel(DEFAULT_HISTORY)})")
    p.add_argument("--fail-on", choices=history.FAIL_ON, default="any",
                   help="exit 1 for any failing bucket (default) or only for new (and reopened) ones")
    p.add_argument("--no-setup", action="store_true", help="skip ci/setup.sh (packages known to be present)")
    p.add_argument("--system", choices=sorted(systems.SYSTEMS), default="ours",
                   help="the dispatcher to fuzz: ours (default) or c10, PyTorch's own through libtorch "
                        "(preset full-c10, target c10_registration_fuzzer, tests labelled c10)")
    p.add_argument("--libtorch", default="1.13", choices=LIBTORCH_RELEASES,
                   help="with --system c10: the libtorch release (default 1.13, this machine's; a later one "
                        "runs inside its chroot through ci/c10.sh, made by ci/setup.sh --with-libtorch RELEASE)")
    soak_step.add_arguments(p)
    mutant_step.add_arguments(p)
    bug_benchmark_step.add_arguments(p)
    p.add_argument("--random-flavours", type=int, default=0, metavar="N",
                   help="also fuzz N trimmed flavours drawn at configure time (default 0)")
    p.add_argument("--flavour-seed", type=int, metavar="S",
                   help="seed of the drawn flavours (default: today's UTC date, YYYYMMDD)")
    p.add_argument("--canary", help=argparse.SUPPRESS)
    p.add_argument("--presets", default=DEFAULT_PRESETS, help=argparse.SUPPRESS)
    p.add_argument("--property-preset", default="full-asan-ubsan", help=argparse.SUPPRESS)
    p.add_argument("--stop-on-first-failure", action="store_true", help=argparse.SUPPRESS)


def options_from(args) -> Options:
    if args.budget < 10:
        raise UsageError("--budget must be a number of seconds >= 10")
    if args.jobs < 1:
        raise UsageError("--jobs must be a positive number")
    if args.engine not in ENGINES:
        raise UsageError(f"unknown engine '{args.engine}' (available: {' '.join(ENGINES)})")
    if args.canary and args.canary not in project.known_canaries():
        raise UsageError(f"unknown canary '{args.canary}' (the canaries are "
                         f"{paths.rel(paths.CANARY_PATCHES)}/*.patch)")
    if args.random_flavours < 0 or (args.flavour_seed is not None and args.flavour_seed < 0):
        raise UsageError("--random-flavours and --flavour-seed must not be negative")
    targets = [t for arg in args.targets for t in arg.replace(" ", ",").split(",") if t]
    presets, property_preset = split_csv(args.presets, "presets"), args.property_preset
    if args.libtorch != "1.13" and args.system != "c10":
        raise UsageError("--libtorch is for --system c10")
    if args.system != "ours":
        system = systems.system_for(args.system, args.libtorch)
        presets, property_preset = system.presets, system.property_preset
    seed = None
    if args.random_flavours:
        seed = args.flavour_seed if args.flavour_seed is not None else flavours.seed_of_today()
    return Options(args.budget, args.jobs, targets, args.engine, args.canary, presets, property_preset,
                   not args.no_property, system=args.system, random_flavours=args.random_flavours,
                   flavour_seed=seed, stop_on_first_failure=args.stop_on_first_failure)


def write_meta(night: Night, fail_on: str, commit: str) -> None:
    o = night.options
    night.folder.write_kv("meta.tsv", [
        ("started", utc()), ("budget", o.budget), ("jobs", o.jobs), ("engine", o.engine),
        ("canary", o.canary or "none"), ("git", commit), ("fail_on", fail_on),
        ("flavours", " ".join(flavours.declared_names())
         + (f" + {o.random_flavours} drawn from seed {o.flavour_seed}" if o.random_flavours else "")),
        ("host", f"{os.uname().nodename} ({os.cpu_count()} cores)"), ("command", o.command())])


def summary(night: Night, buckets, tonight, fail_on: str, code: int) -> str:
    folder = night.folder
    o = night.options
    lines = [f"ci/nightly.sh summary ({int(time.time() - night.started)}s total, fuzzing "
             f"{night.fuzz_seconds}s; run {folder.rel})",
             f"flavours: {' '.join(flavours.declared_names())}"
             + (f" + {o.random_flavours} drawn, seed {o.flavour_seed}" if o.random_flavours else ""),
             table.row((30, 12, -8), ("step", "result", "time(s)")) + "  detail"]
    lines += [table.row((30, 12, -8), (s, r, secs)) + f"  {d}" for s, r, secs, d in folder.steps]
    campaigns = read_tsv(str(folder.state("campaigns.tsv")), 7)
    if campaigns:
        widths = (32, -5, -10, -8, -9, -11, -8)
        lines += ["", table.row(widths, ("campaign (preset/target)", "runs", "execs", "exec/s", "cov", "corpus",
                                         "failures"))]
        lines += [table.row(widths, row) for row in campaigns]
    lines.append("")
    if len(buckets):
        lines.append(f"failures found tonight: {len(buckets)} unique (bucket key: kind | action | dispatch key | flavour)")
        for bucket_id in buckets.order:
            key = _bucket_key_string(folder.path / "failures" / bucket_id / "bucket.json")
            lines += [f"  {bucket_id} [{tonight.get(bucket_id, '?')}]", f"      {key}",
                      f"      repro: ci/repro.sh {folder.rel}/failures/{bucket_id}/minimized"]
    else:
        lines.append("failures found tonight: none")
    rechecked = {b: e for b, e in tonight.items() if b not in buckets.members}
    if rechecked:
        lines.append("crash history, open buckets fuzzing did not find (re-run from their stored input):")
        lines += [f"  {b} [{e}]" for b, e in sorted(rechecked.items())]
    known = read_tsv(str(folder.state("known_upstream.tsv")), 4)
    if known:
        lines.append("known upstream bugs of c10 tonight (bug, inputs, status file, tonight):")
        lines += [f"  {b:<48} {n:>6}  {st:<11} {v}" for b, n, st, v in known]
    for t, committed, new_units, merged, _ in read_tsv(str(folder.state("corpus.tsv")), 5):
        if int(new_units) > 0 or merged != committed:
            lines += [f"corpus {t}: {committed} committed, {merged} after merge; to commit it:",
                      f"    rm -rf fuzz/corpus/{t} && mkdir -p fuzz/corpus && cp -r {folder.rel}/corpus/{t} fuzz/corpus/{t}"]
    if night.options.canary:
        lines.append(f"(CANARY build {night.options.canary}: do not commit this corpus)")
    lines += ["", f"report: {folder.rel}/report.html", f"        {folder.rel}/report.md",
              f"        {folder.rel}/report.sarif", f"        {folder.rel}/report.junit.xml"]
    g = history.failing(tonight)
    counts = ", ".join(f"{len(v)} {k}" for k, v in g.items() if v) or "no buckets"
    if code:
        lines.append(f"ci/nightly.sh: FAILED (--fail-on {fail_on}; history: {counts}"
                     + ("; broken steps: see the table" if folder.broken else "") + ")")
    else:
        lines.append(f"ci/nightly.sh: passed (--fail-on {fail_on}; history: {counts})")
    return "\n".join(lines)


def _bucket_key_string(path) -> str:
    try:
        return json.loads(open(path).read()).get("key_string", "")
    except (OSError, ValueError):
        return ""


def in_release_chroot(args) -> bool:
    """Whether this process runs where --libtorch's release is: the host for 1.13, else inside
    the release's chroot (ci/c10.sh sets DISPATCH_LIBTORCH_RELEASE there)."""
    return args.libtorch == "1.13" or os.environ.get("DISPATCH_LIBTORCH_RELEASE") == args.libtorch


def run(args) -> int:
    options = options_from(args)
    say = Say(SCRIPT)
    setup_args = ["--with-libtorch", args.libtorch] if options.system == "c10" else []
    if not in_release_chroot(args):
        # The host's packages and the chroot first, then the whole night inside the chroot.
        if not project.install_packages(say, args.no_setup, setup_args):
            say("ci/setup.sh FAILED: the packages above are missing (or run with --no-setup)")
            return 1
        command = [str(paths.ROOT / "ci" / "c10.sh"), "--libtorch", args.libtorch, str(paths.ROOT / "ci" / "nightly.sh"),
                   *sys.argv[2:], "--no-setup"]
        say(f"libtorch {args.libtorch}: the night runs in its chroot ({' '.join(command[:3])} ...)")
        return subprocess.run(command, cwd=paths.ROOT).returncode
    if not project.install_packages(say, args.no_setup, setup_args):
        say("ci/setup.sh FAILED: the packages above are missing (or run with --no-setup)")
        return 1
    folder = RunFolder()
    env = sanitizer_env({k: v for k, v in os.environ.items() if k != "DISPATCH_FUZZ_TRACE"})
    env.update(systems.SYSTEMS[options.system].env)
    night = Night(options, folder, env, ENGINES[options.engine](env, options.jobs))
    night.say(f"run folder {folder.rel} (budget {options.budget}s, jobs {options.jobs}, engine {options.engine}"
              + (f", CANARY {options.canary}" if options.canary else "")
              + (f", {options.random_flavours} drawn flavours, seed {options.flavour_seed}"
                 if options.random_flavours else "") + f"; history {args.history})")
    commit = git_tree.commit()   # taken once, at the start: the tree this night builds ("fixed in")
    write_meta(night, args.fail_on, commit)
    night.ticker = progress.Ticker(night.say, folder.path, options.budget).start()
    try:
        night.ticker.step = "build"
        build_step.run(night)
        night.ticker.start_budget()
        for name, step in (("fuzz", fuzz_step.fuzz), ("corpus merge", fuzz_step.merge),
                           ("known upstream", known_upstream_step.run)):
            night.ticker.step = name
            step(night)
        night.ticker.step = "triage"
        buckets = triage_step.run(night)
        night.ticker.step = "crash history"
        tonight = history_step.run(night, Path(args.history), commit, buckets)
        night.ticker.step = "property suite"
        property_step.run(night)
        if options.system == "ours":   # the soak and the mutants test our dispatcher, not c10
            night.ticker.step = "tsan soak"
            soak_step.run(night, args.soak_seconds)
            night.ticker.step = "mutant sample"
            mutant_step.run(night, args)
            bug_benchmark_step.run(night, args)
        night.ticker.step = "report"
        folder.write_kv("meta.tsv", [("finished", utc()), ("seconds", int(time.time() - night.started))],
                        append=True)
        try:
            report.write(str(folder.path), str(paths.BUILD / "coverage"))
        except Exception as e:   # a broken report must not hide the night's result
            folder.record_step("report", "FAILED", 0, f"see logs/report.log ({type(e).__name__}: {e})")
            night.log("report.log").write_text(f"{type(e).__name__}: {e}\n")
    finally:
        night.ticker.stop()
    # Without a history (its step broke, recorded as FAILED) tonight's buckets count as new.
    events = tonight or {b: history.NEW for b in buckets.order}
    code = history.exit_status(events, args.fail_on, folder.broken)
    print()
    print(summary(night, buckets, events, args.fail_on, code))
    return code
