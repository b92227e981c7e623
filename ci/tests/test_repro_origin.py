"""ci/repro.sh: where an input comes from, and which build tree reproduces it."""
import json
from pathlib import Path

from dispatch_ci.repro import origin, report

PRESETS = ["full-asan-ubsan", "full-fuzz", "mobile-fuzz"]
TARGETS = ["keyset_fuzzer", "fallback_fuzzer"]
CANARIES = ["mobile_fallback_overflow"]


def test_preset_and_target_from_a_nightly_artifact_path():
    o = origin.from_path_parts("build/nightly/x/artifacts/mobile-fuzz/fallback_fuzzer/crash-1", PRESETS, TARGETS,
                               CANARIES, origin.Origin())
    assert (o.preset, o.target, o.canary) == ("mobile-fuzz", "fallback_fuzzer", "")


def test_a_canary_build_tree_names_preset_and_canary():
    o = origin.from_path_parts("build/mobile-fuzz-canary-mobile_fallback_overflow/fuzz/smoke/fallback_fuzzer/a/crash-1",
                               PRESETS, TARGETS, CANARIES, origin.Origin())
    assert (o.preset, o.target, o.canary) == ("mobile-fuzz", "fallback_fuzzer", "mobile_fallback_overflow")
    unknown = origin.from_path_parts("build/mobile-fuzz-canary-nope/x", PRESETS, TARGETS, CANARIES, origin.Origin())
    assert unknown.preset == "" and unknown.canary == ""


def test_what_bucket_json_says_wins_over_the_path(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bucket.json").write_text(json.dumps({
        "preset": "full-fuzz", "target": "keyset_fuzzer", "build_dir": "build/full-fuzz",
        "artifacts": [{"artifact": "build/nightly/r/artifacts/full-fuzz/keyset_fuzzer/crash-9"}]}))
    o = origin.Origin()
    named = origin.read_bucket_json(tmp_path / "b" / "bucket.json", tmp_path, o)
    assert named == tmp_path / "build/nightly/r/artifacts/full-fuzz/keyset_fuzzer/crash-9"
    assert (o.preset, o.target, o.build_dir, o.how) == ("full-fuzz", "keyset_fuzzer", tmp_path / "build/full-fuzz",
                                                        "bucket.json")
    origin.from_path_parts("build/mobile-fuzz/fallback_fuzzer/x", PRESETS, TARGETS, CANARIES, o)
    assert (o.preset, o.target) == ("full-fuzz", "keyset_fuzzer")


def test_bucket_input_prefers_the_minimized_file(tmp_path):
    (tmp_path / "crash-1").write_text("c")
    assert origin.bucket_input(tmp_path) == tmp_path / "crash-1"
    (tmp_path / "input").write_text("i")
    assert origin.bucket_input(tmp_path) == tmp_path / "input"
    (tmp_path / "minimized").write_text("m")
    assert origin.bucket_input(tmp_path) == tmp_path / "minimized"
    assert origin.bucket_input(tmp_path / "empty") is None


def test_build_dir_choice():
    root = Path("/r")
    assert origin.choose_build_dir(root, "full-fuzz", "c1", "", None, None) == root / "build/full-fuzz-canary-c1"
    assert origin.choose_build_dir(root, "full-fuzz", "", "full-fuzz", Path("/r/build/x"), None) == Path("/r/build/x")
    # --preset other than the bucket's: the bucket's tree is not that preset's
    assert origin.choose_build_dir(root, "mobile-fuzz", "", "full-fuzz", Path("/r/build/x"), None) == root / "build/mobile-fuzz"
    assert origin.choose_build_dir(root, "full-fuzz", "", "full-fuzz", None, Path("/r/build/full-fuzz")) == Path("/r/build/full-fuzz")
    assert origin.choose_build_dir(root, "full-asan-ubsan", "", "", None, None) == root / "build/full-asan-ubsan"


def test_enclosing_build_tree_and_run_folder(tmp_path):
    tree = tmp_path / "build" / "full-fuzz"
    (tree / "fuzz/smoke/t/artifacts").mkdir(parents=True)
    (tree / "CMakeCache.txt").write_text("")
    art = tree / "fuzz/smoke/t/artifacts/crash-1"
    assert origin.enclosing_build_tree(art, tmp_path) == tree
    run = tmp_path / "build/nightly/r"
    (run / "state").mkdir(parents=True)
    (run / "state/meta.tsv").write_text("canary\tnone\n")
    assert origin.run_canary(run / "failures/b/minimized", tmp_path) == run / "state/meta.tsv"
    assert origin.run_canary(art, tmp_path) is None


RUN_LOG = """\
$ build/x/fuzz/t in
DISPATCH-STEP flavour=full step=0 action=a key=CPU | x
DISPATCH-STEP flavour=full step=1 action=b key=CPU | y
==== DISPATCH FUZZ BUG in t: library error
what differed
    #0 0x1 in f() /r/dispatch/src/a.cpp:3:4
    #1 0x2 in LLVMFuzzerTestOneInput /r/fuzz/harness/fuzz_target.cpp:9:1
    #2 0x3  (/lib/x.so+0x12)
"""


def test_run_summary():
    assert report.headline(RUN_LOG) == "==== DISPATCH FUZZ BUG in t: library error"
    assert report.detail(RUN_LOG) == "what differed"
    assert report.last_step(RUN_LOG).startswith("DISPATCH-STEP flavour=full step=1")
    assert report.project_frames(RUN_LOG, "/r") == ["    #0 0x1 in f() /r/dispatch/src/a.cpp:3:4"]
    assert report.unsymbolized(RUN_LOG) == 1
    assert report.headline("fine\n") == ""
