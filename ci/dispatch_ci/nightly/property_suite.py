"""The property suite with large case counts.

Runs every ctest test with the label (RapidCheck properties; each binary may hold many) directly,
with the environment ctest would give it (its ENVIRONMENT property: the sanitizer options), in
two passes, J at a time:

  1. calibration: RC_PARAMS="max_success=1" and "max_success=25", with the test's own ctest
     TIMEOUT. A failure here is a failure of the suite. The two times give the test's
     start-up time and its time per case.
  2. large counts: RC_PARAMS="max_success=M" with M up to the target (2000 at a 300 s budget),
     as many as fit in the test's share of the seconds (seconds * J / tests, with a 20%
     margin). A test too slow for more than the calibration's cases is not run again. Its
     limit is twice its share plus a minute; a test that passes it is reported as "timeout"
     (a warning, exit code 3: slow or hanging, not wrong) and counted at the calibration's cases.

Exit code 0 if every test passed, 1 if any failed, 3 if all passed but a large run timed out,
2 if ctest could not list the tests.
"""
import concurrent.futures
import json
import os
import re
import subprocess
from typing import List, Tuple

from .. import procs

CALIBRATION_CASES = 25
REPRODUCE = re.compile(r'RC_PARAMS="reproduce=[^"]*"')
PASSED, FAILED, SLOW, UNLISTED = 0, 1, 3, 2


def list_tests(build_dir: str, label: str) -> List[dict]:
    """The label's tests that are executables of the tree (RapidCheck binaries take case counts);
    one a script runs (c10's upstream-fixes replay: bash) is not a property: other_tests names it."""
    return [t for t in all_tests(build_dir, label) if is_tree_executable(t, build_dir)]


def other_tests(build_dir: str, label: str) -> List[str]:
    return [t["name"] for t in all_tests(build_dir, label) if not is_tree_executable(t, build_dir)]


def is_tree_executable(test: dict, build_dir: str) -> bool:
    # ctest names no command for an executable not built yet (dispatch_add_test names it after
    # the test, in the tree).
    if not test["command"]:
        return True
    return os.path.abspath(test["command"][0]).startswith(os.path.abspath(build_dir) + os.sep)


def all_tests(build_dir: str, label: str) -> List[dict]:
    out = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-L", label, "--show-only=json-v1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
    tests = []
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if label not in props.get("LABELS", []):
            continue
        env = dict(entry.partition("=")[::2] for entry in props.get("ENVIRONMENT", []))
        tests.append({"name": t["name"], "command": t.get("command") or [], "env": env,
                      "cwd": props.get("WORKING_DIRECTORY") or build_dir,
                      "timeout": float(props.get("TIMEOUT", 1500))})
    return tests


def executables(tests: List[dict]) -> List[str]:
    """The executables to build: ctest names no command for one not built yet, and
    dispatch_add_test names the executable after the test."""
    return sorted({os.path.basename(t["command"][0]) if t["command"] else t["name"] for t in tests})


def run_test(test: dict, cases: int, limit: float, log_path: str) -> dict:
    env = dict(os.environ)
    env.update(test["env"])
    env["RC_PARAMS"] = f"max_success={cases}"
    with open(log_path, "w") as log:
        log.write(f"# RC_PARAMS=\"max_success={cases}\" {' '.join(test['command'])}\n")
    # Own process group (procs.run): the properties fork a child per case, and killing only
    # the parent on a timeout would leave that child running.
    r = procs.run(test["command"], log=log_path, append=True, timeout=limit, env=env, cwd=test["cwd"])
    text = open(log_path, errors="replace").read()
    result = "timeout" if r.timed_out else ("passed" if r.returncode == 0 else f"FAILED (exit {r.returncode})")
    return {"cases": cases, "seconds": round(r.seconds, 1), "result": result,
            "reproduce": sorted(set(REPRODUCE.findall(text))), "log": log_path}


def large_cases(startup_s: float, calibration_s: float, share_s: float, target: int) -> Tuple[int, float]:
    """(cases, seconds per case) for the large run: as many as fit in 80% of the share, from
    seconds = start-up + cases * per_case (two points: 1 and 25 cases)."""
    per_case = max((calibration_s - startup_s) / (CALIBRATION_CASES - 1), calibration_s / 1000, 0.001)
    return min(target, int((share_s * 0.8 - startup_s) / per_case)), per_case


def final_result(record: dict) -> dict:
    """The verdict of one test from its calibration and large runs: the large run counts unless
    it was not run or timed out (then the calibration's, with a note for the timeout)."""
    large = record.get("large", {})
    final = large if large.get("result") not in (None, "not run", "timeout") else record["calibration"]
    record["result"], record["cases"] = final["result"], final["cases"]
    if large.get("result") == "timeout":
        # Slow, not necessarily wrong: RapidCheck's case times are heavy-tailed (stateful
        # sequences near max_size under ASan), and the machine may be loaded.
        record["note"] = (f"the large run ({large['cases']} cases) did not finish in {large['seconds']:.0f} s; "
                          f"counted at {record['cases']} cases")
    record["reproduce"] = sorted(set(record["calibration"]["reproduce"] + large.get("reproduce", [])))
    return record


def suite_exit_code(records: List[dict]) -> int:
    if any(r["result"] != "passed" for r in records):
        return FAILED
    if any(r.get("large", {}).get("result") == "timeout" for r in records):
        return SLOW
    return PASSED


def _parallel(jobs: int, calls):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(fn, *args): key for key, fn, args in calls}
        for f in concurrent.futures.as_completed(futures):
            yield futures[f], f.result()


def run_suite(build_dir: str, target_cases: int, seconds: float, jobs: int, log_dir: str,
              out_json: str, label: str = "property") -> Tuple[int, str]:
    """Returns (exit code, one summary line); writes the per-test results to `out_json`."""
    os.makedirs(log_dir, exist_ok=True)
    try:
        tests = list_tests(build_dir, label)
    except (subprocess.CalledProcessError, ValueError, OSError) as e:
        return UNLISTED, f"cannot list the {label} tests: {e}"
    results = {t["name"]: {"name": t["name"]} for t in tests}
    calls = []
    for t in tests:
        for which, cases in (("startup", 1), ("calibration", CALIBRATION_CASES)):
            calls.append(((t["name"], which), run_test,
                          (t, cases, t["timeout"], os.path.join(log_dir, f"{t['name']}.{which}.log"))))
    for (name, which), result in _parallel(jobs, calls):
        results[name][which] = result
    for t in tests:
        r = results[t["name"]]
        # A failure at 1 case is a failure too.
        if r["startup"]["result"] != "passed" and r["calibration"]["result"] == "passed":
            r["calibration"] = r["startup"]

    passing = [t for t in tests if results[t["name"]]["calibration"]["result"] == "passed"]
    share = seconds * max(1, jobs) / max(1, len(passing))
    calls = []
    for t in passing:
        r = results[t["name"]]
        cases, per_case = large_cases(r["startup"]["seconds"], r["calibration"]["seconds"], share,
                                      target_cases)
        if cases <= CALIBRATION_CASES:
            r["large"] = {"cases": cases, "result": "not run",
                          "why": f"{per_case:.2f} s per case: no time for more than "
                                 f"{CALIBRATION_CASES} in a {share:.0f} s share"}
            continue
        calls.append((t["name"], run_test, (t, cases, share * 2 + 60, os.path.join(log_dir, f"{t['name']}.log"))))
    for name, result in _parallel(jobs, calls):
        results[name]["large"] = result

    records = []
    for t in tests:
        r = final_result(results[t["name"]])
        r["command"] = " ".join(t["command"])
        records.append(r)
    with open(out_json, "w") as f:
        json.dump({"target_cases": target_cases, "seconds": seconds, "share": round(share, 1),
                   "tests": records}, f, indent=2)
        f.write("\n")
    failed = [r["name"] for r in records if r["result"] != "passed"]
    slow = [r["name"] for r in records if r.get("large", {}).get("result") == "timeout"]
    cases = ", ".join(f"{r['name']} {r['cases']}" for r in records)
    line = (f"{len(tests) - len(failed)} passed, {len(failed)} failed of {len(tests)} (cases: {cases})"
            + (f"; failed: {' '.join(failed)}" if failed else "")
            + (f"; large run timed out: {' '.join(slow)}" if slow else ""))
    return suite_exit_code(records), line
