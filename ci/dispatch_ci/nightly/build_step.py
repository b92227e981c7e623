"""Step 1 of a nightly: configure and build the fuzz targets of every preset (and, for an
engine other than libFuzzer, what that engine fuzzes with)."""
import time
from typing import List

from .. import flavours, procs, project
from ..canaries.trees import canary_source
from ..log import UsageError
from .context import Night
from .systems import SYSTEMS


def configure(night: Night, preset: str, log) -> bool:
    """Configures the preset's build tree unless it is configured already (ninja re-runs
    cmake itself when a CMakeLists.txt changes)."""
    build_dir = night.build_dir(preset)
    if (build_dir / "build.ninja").is_file() and (build_dir / "CMakeCache.txt").is_file():
        with open(log, "a") as f:
            f.write(f"reusing configured {night.rel_build_dir(preset)}\n")
        return True
    cmd = ["cmake", "--preset", preset, "-B", build_dir]
    if night.options.canary:
        # A canary is a patch: configure its patched copy of the tree.
        cmd[1:1] = ["-S", str(canary_source(night.options.canary))]
    if night.options.random_flavours:
        cmd += flavours.random_cmake_args(night.options.random_flavours, night.options.flavour_seed)
    return procs.run(cmd, log=log, append=True).ok


def say_flavours(night: Night, preset: str) -> None:
    """Every job lists the flavours it runs; a drawn one with its slots."""
    listed = flavours.of_build(night.build_dir(preset))
    if not listed:
        return
    night.say(f"{preset} flavours: {' '.join(f.name for f in listed)}")
    for f in listed:
        if f.generated:
            night.say(f"  drawn flavour {f.declaration()} (seed {night.options.flavour_seed})")


def list_targets(night: Night, preset: str, log) -> List[str]:
    names = project.print_fuzz_targets(night.build_dir(preset), log, SYSTEMS[night.options.system].lister) or []
    if not names:
        names = project.targets_from_cmakelists()
        with open(log, "a") as f:
            f.write(f"print_fuzz_targets gave nothing; fuzz/CMakeLists.txt lists: {' '.join(names)}\n")
    return names


def choose_targets(listed: List[str], wanted: List[str]) -> List[str]:
    """--targets picks from what the build lists (in the order given); an unknown name is a
    usage error, never silently skipped."""
    if not wanted:
        return list(listed)
    for t in wanted:
        if t not in listed:
            raise UsageError(f"unknown fuzz target '{t}' (the build lists: {' '.join(listed)})")
    return list(wanted)


def _tail(log, n=20) -> str:
    return "\n".join("    " + l for l in open(log, errors="replace").read().splitlines()[-n:])


def build_preset(night: Night, preset: str) -> None:
    log = night.log(f"build-{preset}.log")
    start = time.time()
    elapsed = lambda: int(time.time() - start)  # noqa: E731
    night.say(f"build {preset} in {night.rel_build_dir(preset)} (log: {night.folder.rel}/logs/build-{preset}.log)")
    if not configure(night, preset, log):
        night.folder.record_step(f"build {preset}", "FAILED", elapsed(), f"configure failed, see logs/build-{preset}.log")
        night.say(f"build {preset}: configure FAILED")
        print(_tail(log))
        return
    say_flavours(night, preset)
    chosen = choose_targets(list_targets(night, preset, log), night.options.targets)
    if not chosen:
        night.folder.record_step(f"build {preset}", "FAILED", elapsed(), "no fuzz targets listed")
        return
    build_dir = night.build_dir(preset)
    ok = procs.run(["cmake", "--build", build_dir, "-j", str(night.options.jobs), "--target", *chosen,
                    "--", "-k", "0"], log=log, append=True).ok
    built, failed = (list(chosen), []) if ok else ([], [])
    if not ok:
        # Which ones broke? (a quick no-op for those that built)
        for t in chosen:
            (built if procs.run(["cmake", "--build", build_dir, "--target", t], log=log, append=True).ok
             else failed).append(t)
    if failed:
        night.folder.record_step(f"build {preset}", "FAILED", elapsed(),
                                 f"built: {' '.join(built) or 'none'}; failed: {' '.join(failed)}")
        night.say(f"build {preset}: FAILED for {' '.join(failed)} ({elapsed()}s)")
        errors = [l for l in open(log, errors="replace").read().splitlines() if "error" in l or "FAILED" in l]
        print("\n".join("    " + l for l in errors[:20]))
    else:
        night.folder.record_step(f"build {preset}", "ok", elapsed(), " ".join(built))
        night.say(f"build {preset}: ok ({elapsed()}s): {' '.join(built)}")
    if built and night.engine.name != "libfuzzer":
        start = time.time()
        if night.engine.build(build_dir, log):
            night.folder.record_step(f"build {preset} ({night.engine.name})", "ok", elapsed(),
                                     f"{night.engine.name} build of {' '.join(built)}")
        else:
            night.folder.record_step(f"build {preset} ({night.engine.name})", "FAILED", elapsed(),
                                     f"see logs/build-{preset}.log")
            night.say(f"build {preset} ({night.engine.name}): FAILED")
            print(_tail(log))
            built = []
    if built:
        night.preset_targets[preset] = built
        night.all_targets += [t for t in built if t not in night.all_targets]


def run(night: Night) -> None:
    for preset in night.options.presets:
        build_preset(night, preset)
