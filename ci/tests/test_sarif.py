"""report.sarif: valid SARIF 2.1.0 (checked against the OASIS schema shipped in ci/schemas/), one
result per failing bucket, located at its first frame in this repository's code."""
import json
from pathlib import Path

import jsonschema   # python3-jsonschema (ci/setup.sh): a missing module fails this test, never skips it

from dispatch_ci.nightly import sarif

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "sarif-2.1.0.json").read_text())
TOP = ("ci", "dispatch", "fuzz", "properties")


def validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(log)


def entry(bid, status="new", frames=(), kind="asan: heap-buffer-overflow"):
    return {"bucket_id": bid, "status": status, "first_seen": "20261201T021700Z", "last_seen": "20261203T021700Z",
            "count": 3, "preset": "mobile-fuzz", "target": "fallback_fuzzer", "key": {"kind": kind},
            "key_string": f"{kind} | crash in registerFallback | any | mobile", "headline": "ERROR: ...",
            "frames": list(frames), "trace": "  0: library fallback CPU\n  1: call op",
            "repro": f"ci/repro.sh build/nightly/x/failures/{bid}/minimized"}


def state(**events):
    buckets = {bid: entry(bid, status=("fixed" if ev == "fixed" else ev if ev != "reopened" else "new"))
               for bid, ev in events.items()}
    return {"tonight": dict(events), "buckets": buckets}


def test_schema_is_the_real_one():
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    assert SCHEMA["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    assert {"result", "run", "location", "region"} <= set(SCHEMA["definitions"])


def test_schema_rejects_a_broken_log():
    with __import__("pytest").raises(jsonschema.ValidationError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})   # driver needs a name


def test_one_result_per_failing_bucket_and_valid():
    log = sarif.build(state(a="new", b="known", c="fixed", d="error", e="not checked", f="known upstream",
                            g="reopened"), {}, "20261203T021700Z", TOP)
    validate(log)
    results = log["runs"][0]["results"]
    assert [r["properties"]["bucket"] for r in results] == ["a", "b", "f", "g"]
    assert [r["baselineState"] for r in results] == ["new", "unchanged", "unchanged", "new"]
    assert [r["level"] for r in results] == ["error", "error", "note", "error"]
    assert all(r["partialFingerprints"]["dispatchNightlyBucket/v1"] == r["properties"]["bucket"] for r in results)
    assert log["runs"][0]["automationDetails"]["id"] == "nightly/20261203T021700Z"


def test_location_is_the_first_frame_in_our_code():
    frames = [{"function": "std::array<...>::operator[]", "location": "(/usr/include/c++/12/array:61:2)"},
              {"function": "dispatch::Dispatcher::registerFallback",
               "location": "(/srv/ci/checkout/dispatch/src/dispatcher.cpp:214:7)"},
              {"function": "LLVMFuzzerTestOneInput", "location": "(/srv/ci/checkout/fuzz/fallback_fuzzer.cpp:40:3)"}]
    s = state(a="new")
    s["buckets"]["a"]["frames"] = frames
    log = sarif.build(s, {"a": "ci/repro.sh build/nightly/r/failures/a/minimized"}, "r", TOP)
    validate(log)
    loc = log["runs"][0]["results"][0]["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"] == {"uri": "dispatch/src/dispatcher.cpp", "uriBaseId": "%SRCROOT%"}
    assert loc["physicalLocation"]["region"] == {"startLine": 214, "startColumn": 7}
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "dispatch::Dispatcher::registerFallback"


def test_without_a_frame_in_our_code_the_fuzz_target_is_the_location():
    log = sarif.build(state(a="known"), {}, "r", TOP)
    validate(log)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "fuzz/fallback_fuzzer.cpp" and loc["region"] == {"startLine": 1}


def test_message_has_the_repro_command_and_the_decoded_trace():
    log = sarif.build(state(a="new"), {"a": "ci/repro.sh build/nightly/r/failures/a/minimized"}, "r", TOP)
    text = log["runs"][0]["results"][0]["message"]["text"]
    assert "Repro: ci/repro.sh build/nightly/r/failures/a/minimized" in text
    assert "0: library fallback CPU" in text and "seen on 3 night(s)" in text


def test_no_failures_is_still_a_valid_log_with_empty_results():
    log = sarif.build({}, {}, "r", TOP)
    validate(log)
    assert log["runs"][0]["results"] == []


def test_our_location_parsing():
    assert sarif.our_location("(/a/b/dispatch/include/dispatch/x.h:3)", TOP) == ("dispatch/include/dispatch/x.h", 3, None)
    assert sarif.our_location("/usr/lib/gcc/x86_64-linux-gnu/12/include/a.h:1:1", TOP) is None
    assert sarif.our_location("(libc.so.6+0x2a)", TOP) is None
