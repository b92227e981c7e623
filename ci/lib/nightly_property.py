#!/usr/bin/env python3
"""ci/lib/nightly_property.py -- the property suite with large case counts, for ci/nightly.sh.

    nightly_property.py --build-dir DIR [--label property] --target-cases N --seconds S
                        [--jobs J] --log-dir DIR --out JSON

Runs every ctest test with the label (RapidCheck properties; each test binary may hold many
properties) directly, with the environment ctest would give it (its ENVIRONMENT property:
the sanitizer options), in two passes, J at a time:

  1. calibration: RC_PARAMS="max_success=1" and "max_success=25", with the test's own ctest
     TIMEOUT. A failure here is a failure of the suite. The two times give the test's
     start-up time and its time per case.
  2. large counts: RC_PARAMS="max_success=M" with M up to N (ci/nightly.sh: 2000 at a 300 s
     budget), as many as fit in the test's share of S seconds (S * J / tests, with a 20%
     margin). A test too slow for more than the calibration's cases is not run again.
     Its limit is twice its share plus a minute; a test that passes it is reported as
     "timeout" (a warning, exit code 3: slow or hanging, not wrong) and counted at the
     calibration's cases.

Prints one summary line; --out gets per test: cases, seconds, result (passed, FAILED,
timeout), the RapidCheck reproduce strings printed (RC_PARAMS="reproduce=..."), the command
to re-run it, and the log. Exit code 0 if every test passed, 1 if any failed, 3 if all
passed but a large run timed out, 2 if ctest could not list the tests. Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time

CALIBRATION_CASES = 25
REPRODUCE = re.compile(r'RC_PARAMS="reproduce=[^"]*"')


def list_tests(build_dir, label):
    out = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-L", label, "--show-only=json-v1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
    tests = []
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        if label not in labels:
            continue
        env = {}
        for entry in props.get("ENVIRONMENT", []):
            k, _, v = entry.partition("=")
            env[k] = v
        tests.append({"name": t["name"], "command": t.get("command") or [], "env": env,
                      "cwd": props.get("WORKING_DIRECTORY") or build_dir,
                      "timeout": float(props.get("TIMEOUT", 1500))})
    return tests


def kill_group(proc):
    """Ends whatever is left of the test's process group (forked children)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_test(test, cases, limit, log_path):
    env = dict(os.environ)
    env.update(test["env"])
    env["RC_PARAMS"] = f"max_success={cases}"
    start = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as log:
        log.write(f"# RC_PARAMS=\"max_success={cases}\" {' '.join(test['command'])}\n".encode())
        log.flush()
        try:
            # Own process group: the properties fork a child per case (properties/prop_support.cpp),
            # and killing only the parent on a timeout would leave that child running.
            proc = subprocess.Popen(test["command"], stdout=log, stderr=subprocess.STDOUT, env=env,
                                    cwd=test["cwd"], stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                rc = proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                rc = None
                timed_out = True
            finally:
                kill_group(proc)
        except OSError as e:
            log.write(f"cannot run: {e}\n".encode())
            rc = 127
    seconds = time.monotonic() - start
    with open(log_path, errors="replace") as f:
        text = f.read()
    result = "timeout" if timed_out else ("passed" if rc == 0 else f"FAILED (exit {rc})")
    return {"cases": cases, "seconds": round(seconds, 1), "result": result,
            "reproduce": sorted(set(REPRODUCE.findall(text))), "log": log_path}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--label", default="property")
    ap.add_argument("--target-cases", type=int, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--log-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.log_dir, exist_ok=True)
    try:
        tests = list_tests(args.build_dir, args.label)
    except (subprocess.CalledProcessError, ValueError, OSError) as e:
        print(f"cannot list the {args.label} tests: {e}")
        return 2

    results = {t["name"]: {"name": t["name"]} for t in tests}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {}
        for t in tests:
            futures[pool.submit(run_test, t, 1, t["timeout"],
                                os.path.join(args.log_dir, f"{t['name']}.startup.log"))] = (t, "startup")
            futures[pool.submit(run_test, t, CALIBRATION_CASES, t["timeout"],
                                os.path.join(args.log_dir, f"{t['name']}.calibration.log"))] = (t, "calibration")
        for f in concurrent.futures.as_completed(futures):
            t, which = futures[f]
            results[t["name"]][which] = f.result()
    for t in tests:
        # A failure at 1 case is a failure too (the 25-case run will have shown it as well).
        if results[t["name"]]["startup"]["result"] != "passed" and \
                results[t["name"]]["calibration"]["result"] == "passed":
            results[t["name"]]["calibration"] = results[t["name"]]["startup"]

    passing = [t for t in tests if results[t["name"]]["calibration"]["result"] == "passed"]
    share = args.seconds * max(1, args.jobs) / max(1, len(passing))
    large = []
    for t in passing:
        cal = results[t["name"]]["calibration"]
        startup = results[t["name"]]["startup"]["seconds"]
        # seconds = start-up + cases * per_case (two points: 1 and 25 cases)
        per_case = max((cal["seconds"] - startup) / (CALIBRATION_CASES - 1), cal["seconds"] / 1000, 0.001)
        cases = min(args.target_cases, int((share * 0.8 - startup) / per_case))
        if cases <= CALIBRATION_CASES:
            results[t["name"]]["large"] = {"cases": cases, "result": "not run",
                                           "why": f"{per_case:.2f} s per case: no time for more than "
                                                  f"{CALIBRATION_CASES} in a {share:.0f} s share"}
            continue
        large.append((t, cases, share * 2 + 60))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_test, t, cases, limit,
                               os.path.join(args.log_dir, f"{t['name']}.log")): t for t, cases, limit in large}
        for f in concurrent.futures.as_completed(futures):
            results[futures[f]["name"]]["large"] = f.result()

    failed = []
    slow = []
    for t in tests:
        r = results[t["name"]]
        large = r.get("large", {})
        final = large if large.get("result") not in (None, "not run", "timeout") else r["calibration"]
        r["result"] = final["result"]
        r["cases"] = final["cases"]
        if large.get("result") == "timeout":
            # Slow, not necessarily wrong: RapidCheck's case times are heavy-tailed (stateful
            # sequences near max_size under ASan), and the machine may be loaded.
            r["note"] = (f"the large run ({large['cases']} cases) did not finish in {large['seconds']:.0f} s; "
                         f"counted at {r['cases']} cases")
            slow.append(t["name"])
        r["reproduce"] = sorted(set(r["calibration"]["reproduce"] + large.get("reproduce", [])))
        r["command"] = " ".join(t["command"])
        if r["result"] != "passed":
            failed.append(t["name"])
    with open(args.out, "w") as f:
        json.dump({"target_cases": args.target_cases, "seconds": args.seconds, "share": round(share, 1),
                   "tests": [results[t["name"]] for t in tests]}, f, indent=2)
        f.write("\n")
    cases = ", ".join(f"{t['name']} {results[t['name']]['cases']}" for t in tests)
    print(f"{len(tests) - len(failed)} passed, {len(failed)} failed of {len(tests)} "
          f"(cases: {cases})" + (f"; failed: {' '.join(failed)}" if failed else "") +
          (f"; large run timed out: {' '.join(slow)}" if slow else ""))
    return 1 if failed else (3 if slow else 0)


if __name__ == "__main__":
    sys.exit(main())
