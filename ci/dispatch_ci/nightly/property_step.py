"""Step 5 of a nightly: the RapidCheck properties (ctest label `property`) under the property
preset, with case counts scaled by the budget and fitted per test into its share
(property_suite.py)."""
import re
import time

from .. import ctest, procs
from . import build_step, plan, property_suite
from .context import Night
from .systems import SYSTEMS

# A large run that timed out proved nothing at its case count: inconclusive, and the night is red.
RESULT_OF_EXIT = {property_suite.PASSED: "ok", property_suite.SLOW: "INCONCLUSIVE (a property run timed out)"}


def run(night: Night) -> None:
    folder = night.folder
    if not night.options.run_property:
        folder.write_kv("property.tsv", [("result", "skipped"), ("detail", "--no-property")])
        folder.record_step("property suite", "skipped", 0, "--no-property")
        return
    start = time.time()
    preset = night.options.property_preset
    label = SYSTEMS[night.options.system].property_label   # property; c10 for --system c10
    build_dir = night.build_dir(preset)
    log = night.log("property.log")
    seconds = plan.property_seconds(night.options.budget, True)
    max_success = plan.property_cases(night.options.budget)
    night.say(f"property suite: {preset} in {night.rel_build_dir(preset)}, up to max_success={max_success} "
              f"in {seconds}s (log: {folder.rel}/logs/property.log)")
    result, detail, reproduce = "", "", ""
    if not build_step.configure(night, preset, log):
        result, detail = "FAILED", "configure failed"
    elif ctest.tests_with_label(build_dir, label) == 0:
        result, detail = "FAILED", f"no test has the label {label} (asked for: --no-property skips the step)"
    else:
        tests = property_suite.list_tests(str(build_dir), label)
        exes = property_suite.executables(tests)
        left_out = property_suite.other_tests(str(build_dir), label)
        if left_out:
            night.say(f"property suite: leaving out {' '.join(left_out)} (run by a script, not a test "
                      f"executable: no case counts; the {label} label's own job runs it)")
        night.say(f"property suite: building {len(exes)} test executables ({' '.join(exes)})")
        if not procs.run(["cmake", "--build", build_dir, "-j", str(night.options.jobs), "--target", *exes],
                         log=log, append=True).ok:
            result, detail = "FAILED", "build failed (logs/property.log)"
        else:
            night.say(f"property suite: running {len(tests)} tests")
            code, detail = property_suite.run_suite(str(build_dir), max_success, seconds, night.options.jobs,
                                                    str(night.log("property")), str(folder.state("property.json")),
                                                    label)
            result = RESULT_OF_EXIT.get(code, "FAILED")
            with open(log, "a") as f:
                f.write(detail + "\n")
            found = set()
            for plog in sorted(night.log("property").glob("*.log")):
                found.update(re.findall(r'RC_PARAMS="reproduce=[^"]*"', plog.read_text(errors="replace")))
            reproduce = " ".join(sorted(found))
    folder.write_kv("property.tsv", [("result", result), ("detail", detail), ("max_success", max_success),
                                     ("seconds", seconds), ("preset", preset),
                                     ("build_dir", night.rel_build_dir(preset)), ("reproduce", reproduce)])
    folder.record_step("property suite", result, int(time.time() - start),
                       detail + (f"; {reproduce}" if reproduce else ""))
    night.say(f"property suite: {result} ({detail})")
