"""Step 4 of a nightly: every artifact is re-run once with DISPATCH_FUZZ_TRACE=1 and classified
(triage.py); artifacts with the same bucket key share one failures/<bucket>/ folder, whose
representative (the smallest input) is minimised, decoded and re-run for the symbolized stack."""
import json
import shutil
import time
from pathlib import Path
from typing import List, Optional

from .. import flavours, paths, procs
from ..presets import flavour_of
from . import engines, minimize, plan, triage
from .context import Night

SKIPPED_ARTIFACTS = ("slow-unit-", "minimized-from-")
ENV_SH = paths.rel(paths.SANITIZER_ENV)


def rerun(night: Night, binary: Path, file: Path, out: Path) -> procs.Result:
    """Runs `file` once with the sanitizer env + DISPATCH_FUZZ_TRACE=1; `out` gets a header,
    the whole output and the exit code."""
    cmd = night.engine.rerun_cmd(binary, file)
    out.write_text(f"# re-run of {paths.rel(file)}\n# command: DISPATCH_FUZZ_TRACE=1 {' '.join(cmd)}\n"
                   f"# environment: {ENV_SH} (ASAN_OPTIONS={night.env.get('ASAN_OPTIONS', '')} "
                   f"UBSAN_OPTIONS={night.env.get('UBSAN_OPTIONS', '')})\n\n")
    r = procs.run(cmd, log=out, append=True, timeout=engines.FUZZ_TIMEOUT + 60,
                  env=dict(night.env, DISPATCH_FUZZ_TRACE="1"))
    with open(out, "a") as f:
        f.write(f"\n# exit code {r.returncode}\n")
    return r


def classify_file(report: Path, kind: str, preset: str, target: str, out_json: Path,
                  artifact: Optional[Path] = None, fuzz_logs: List[Path] = ()) -> dict:
    """Classifies a re-run's output (falling back on the report printed while fuzzing, from the
    fuzz logs, when the re-run did not fail) and writes the classification to `out_json`."""
    text = report.read_text(errors="replace") if report.is_file() else ""
    fallback = ""
    for log in fuzz_logs:
        fallback = triage.report_from_log(log.read_text(errors="replace"), str(artifact or ""))
        if fallback:
            break
    result = triage.classify(text, kind, flavour_of(preset), fallback)
    result.update(preset=preset, target=target)
    if not result["reproduced"] and fallback:
        result["fuzz_log_report"] = fallback
    if artifact:
        result["artifact"] = paths.rel(artifact)
        result["artifact_size"] = artifact.stat().st_size
    out_json.write_text(json.dumps(result, indent=2) + "\n")
    return result


def origin(artifact: Path):
    """artifacts/<preset>/<target>/<file> -> (preset, target)."""
    return artifact.parent.parent.name, artifact.parent.name


def classify_artifacts(night: Night) -> triage.Buckets:
    buckets = triage.Buckets()
    for art in sorted((night.folder.path / "artifacts").glob("*/*/*")):
        if not art.is_file() or art.name.startswith(SKIPPED_ARTIFACTS):
            continue
        preset, target = origin(art)
        tdir = night.folder.path / "triage" / preset / target
        tdir.mkdir(parents=True, exist_ok=True)
        rerun(night, night.binary(preset, target), art, tdir / f"{art.name}.rerun.txt")
        logs = sorted((night.folder.path / "logs" / "fuzz" / preset / target).glob("w*-r*.log"))
        c = classify_file(tdir / f"{art.name}.rerun.txt", triage.artifact_kind(art.name), preset, target,
                          tdir / f"{art.name}.json", art, logs)
        buckets.add(c["bucket_id"], str(art), art.stat().st_size, str(tdir / f"{art.name}.json"))
    return buckets


def repro_script(bucket_id: str, key_string: str, target: str, build_dir: str, run_name: str,
                 minimized: str, raw_cmd: str) -> str:
    return "\n".join([
        "#!/usr/bin/env bash",
        f"# Reproduce failure bucket {bucket_id}",
        f"#   key: {key_string}",
        f"#   found by {target} in {build_dir} (ci/nightly.sh run {run_name})",
        "# The one-line repro (ci/repro.sh picks the preset and the sanitizer env):",
        f"#   ci/repro.sh {minimized}",
        "# The raw command line, from the repository root:",
        f"#   source {ENV_SH} && DISPATCH_FUZZ_TRACE=1 {raw_cmd}",
        "set -euo pipefail",
        'cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.."  # build/nightly/<run>/failures/<bucket>/ -> repository',
        f"if [[ -x ci/repro.sh ]]; then exec ci/repro.sh {minimized}; fi",
        f"source {ENV_SH} && DISPATCH_FUZZ_TRACE=1 exec {raw_cmd}", ""])


class BucketTriage:
    """Minimisation bookkeeping for one bucket's representative."""

    def __init__(self, night: Night, bucket_id: str, artifact: Path, rep_json: Path):
        self.night, self.id, self.artifact = night, bucket_id, artifact
        self.preset, self.target = origin(artifact)
        self.binary = night.binary(self.preset, self.target)
        self.dir = night.folder.path / "failures" / bucket_id
        self.kind = triage.artifact_kind(artifact.name)
        self.rep = json.loads(rep_json.read_text())
        self.rep_json = rep_json
        self.notes: List[str] = []
        self.how = ""   # what minimised it ("" = minimized is a copy of input)

    def reclassify(self) -> str:
        return classify_file(self.dir / "stack.txt", self.kind, self.preset, self.target,
                             self.dir / "minimized.classification.json")["bucket_id"]

    def minimise(self, seconds: int) -> bool:
        """True when stack.txt already holds the re-run of the final minimized file."""
        inp, out, log = self.dir / "input", self.dir / "minimized", self.dir / "minimize.log"
        self.night.say(f"triage {self.id}: minimising {self.artifact.name} ({inp.stat().st_size} bytes, up to {seconds}s)")
        if self.night.engine.minimize(self.binary, inp, out, seconds, log):
            rerun(self.night, self.binary, out, self.dir / "stack.txt")
            landed = self.reclassify()
            if landed == self.id:
                self.how = "libFuzzer -minimize_crash"
                return True
            # libFuzzer's minimiser checks only the sanitizer's DEDUP_TOKEN, the same for every
            # abort(): it drifts to other bugs (docs/harness.md §8). Shrink again, keeping the bucket.
            self.notes.append(f"libFuzzer -minimize_crash drifted to bucket {landed}; "
                              "used the bucket-preserving ddmin instead")
        else:
            self.notes.append("libFuzzer -minimize_crash produced nothing; used the bucket-preserving ddmin")
        with open(log, "a") as f:
            if minimize.minimize_keeping_bucket(str(inp), str(out), self.id,
                                                self.night.engine.rerun_cmd(self.binary, "@@"), self.kind,
                                                flavour_of(self.preset), seconds, self.night.env, log=f):
                self.how = "bucket-preserving ddmin"
            else:
                self.notes.append("ddmin could not reproduce the bucket; minimized = input")
        return False

    def run(self, minimize_seconds: int, buckets: triage.Buckets) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.artifact, self.dir / "input")
        reproduced = self.rep.get("reproduced") is True
        stack_done = False
        if self.kind in ("crash", "leak") and reproduced:
            stack_done = self.minimise(minimize_seconds)
        elif not reproduced:
            self.notes.append("the input did not fail again when re-run; not minimised")
        else:
            self.notes.append(f"{self.kind}: kept the original input (not minimised)")
        triage_rerun = self.rep_json.with_name(f"{self.artifact.name}.rerun.txt")
        if self.how:
            if not stack_done:
                rerun(self.night, self.binary, self.dir / "minimized", self.dir / "stack.txt")
        else:
            # minimized = input: the triage re-run of that very file is its stack (a timeout
            # re-run costs -timeout seconds; no need to pay twice).
            shutil.copyfile(self.dir / "input", self.dir / "minimized")
            (self.dir / "stack.txt").write_text(f"# minimized is a copy of input: {paths.rel(self.artifact)}\n"
                                                + triage_rerun.read_text(errors="replace"))
        landed = self.reclassify()
        if self.how and landed != self.id:
            self.notes.append(f"the minimized input landed in bucket {landed} on its final re-run; minimized = input")
            self.how = ""
            shutil.copyfile(self.dir / "input", self.dir / "minimized")
            rerun(self.night, self.binary, self.dir / "minimized", self.dir / "stack.txt")
        if not reproduced:
            with open(self.dir / "stack.txt", "a") as f:
                f.write("\n# The input did not fail again. The report printed while fuzzing:\n"
                        + self.rep.get("fuzz_log_report", "") + "\n")
        self.write_files(buckets)

    def write_files(self, buckets: triage.Buckets) -> None:
        minimized = f"{self.night.folder.rel}/failures/{self.id}/minimized"
        procs.run([self.binary, "--print", self.dir / "minimized"], log=self.dir / "trace.txt",
                  env=self.night.env, timeout=120)
        raw = " ".join(self.night.engine.rerun_cmd(paths.rel(self.binary), minimized))
        build_dir = self.night.rel_build_dir(self.preset)
        script = self.dir / "repro.sh"
        script.write_text(repro_script(self.id, self.rep.get("key_string", ""), self.target, build_dir,
                                       self.night.folder.name, minimized, raw))
        script.chmod(0o755)
        others = [json.loads(Path(j).read_text()) for j in buckets.members[self.id] if Path(j) != self.rep_json]
        # A drawn flavour exists only in this night's tree: keep its slot list with the bucket
        # (ci/repro.sh configures a tree with exactly that flavour from it).
        drawn = flavours.generated_declaration(paths.ROOT / build_dir, self.rep.get("key", {}).get("flavour", ""))
        if drawn:
            self.notes.append(f"the failing flavour was drawn at configure time: {drawn} "
                              f"(seed {self.night.options.flavour_seed}); to keep it in pre-merge, add "
                              "it to cmake/flavours.list")
        record = triage.bucket_record(self.rep, others, self.notes, {
            "flavour_declaration": drawn or "",
            "bucket_id": self.id, "preset": self.preset, "target": self.target, "build_dir": build_dir,
            "input_size": (self.dir / "input").stat().st_size,
            "minimized_size": (self.dir / "minimized").stat().st_size,
            "minimized_by": self.how or "not minimised", "repro": f"ci/repro.sh {minimized}",
            "raw_command": f"source {ENV_SH} && DISPATCH_FUZZ_TRACE=1 {raw}"})
        (self.dir / "bucket.json").write_text(json.dumps(record, indent=2) + "\n")
        self.night.say(f"failure {self.id}: {record['key_string']} ({record['input_size']} -> "
                       f"{record['minimized_size']} bytes)")


def run(night: Night) -> triage.Buckets:
    start = time.time()
    buckets = classify_artifacts(night)
    n_artifacts = sum(len(m) for m in buckets.members.values())
    seconds = plan.minimize_seconds(night.options.budget)
    for bucket_id in buckets.order:
        art, _, rep_json = buckets.representative[bucket_id]
        BucketTriage(night, bucket_id, Path(art), Path(rep_json)).run(seconds, buckets)
    if len(buckets):
        night.folder.record_step("triage", "FAILURES", int(time.time() - start),
                                 f"{n_artifacts} artifacts -> {len(buckets)} buckets (failures/)")
    else:
        night.folder.record_step("triage", "ok", int(time.time() - start), f"{n_artifacts} artifacts")
    return buckets
