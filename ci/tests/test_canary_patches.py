"""Canary patches: headers, what a patch touches, applying to a scratch copy, and the committed
patches themselves (each must parse and still apply to this tree)."""
import pytest

from dispatch_ci import scratch
from dispatch_ci.canaries import patches
from dispatch_ci.canaries.run import CanaryRun
from dispatch_ci.canaries.verdict import verdicts
from dispatch_ci.log import Say

DIFF = """diff --git a/lib/a.cpp b/lib/a.cpp
--- a/lib/a.cpp
+++ b/lib/a.cpp
@@ -1,3 +1,3 @@ int addOne(int x) {
 int addOne(int x) {
-  return x + 1;
+  return x + 2;
 }
"""
HEADER = """# Canary demo: a comment line.
re-creates: pytorch#1: an example
flavours: mobile,full
unit: a_test
property: a_props
fuzz: a_fuzzer
fast: unit:a_test
"""


def write(tmp_path, text, name="demo.patch"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_header_gives_plan_and_flavours(tmp_path):
    canary = patches.parse(write(tmp_path, HEADER + "\n" + DIFF))
    assert (canary.name, canary.flavours, canary.fast) == ("demo", ["mobile", "full"], "unit:a_test")
    assert canary.plan(["unit", "corpus", "fuzz"], fast=False) == [
        "unit:a_test", "corpus:a_fuzzer", "fuzz:a_fuzzer"]
    assert canary.plan(["unit"], fast=True) == ["unit:a_test"]
    assert canary.plan(["property"], fast=False) == ["property:a_props"]


@pytest.mark.parametrize("header", [
    HEADER.replace("re-creates: pytorch#1: an example\n", ""),
    HEADER.replace("fast: unit:a_test", "fast: fuzz:a_fuzzer"),
    HEADER.replace("flavours: mobile,full", "flavours: tablet"),
    HEADER + "nonsense line\n",
])
def test_bad_headers_are_errors(tmp_path, header):
    with pytest.raises(patches.PatchError):
        patches.parse(write(tmp_path, header + "\n" + DIFF))


def test_a_patch_without_a_diff_is_an_error(tmp_path):
    with pytest.raises(patches.PatchError):
        patches.parse(write(tmp_path, HEADER))


def test_touched_files_and_functions():
    changed = patches.touched(DIFF)
    assert changed.files == {"lib/a.cpp"} and changed.functions == {"addOne"}
    assert changed.covers("lib/a.cpp") and changed.covers("x.h", "ns::addOne(int)")
    assert not changed.covers("lib/b.cpp", "ns::other(int)")


def test_apply_to_a_copy_leaves_the_input_alone():
    tree = {"lib/a.cpp": b"int addOne(int x) {\n  return x + 1;\n}\n", "lib/b.cpp": b"b\n"}
    patched = scratch.apply_patch(tree, DIFF, "demo")
    assert patched["lib/a.cpp"] == b"int addOne(int x) {\n  return x + 2;\n}\n"
    assert patched["lib/b.cpp"] == b"b\n" and b"x + 1" in tree["lib/a.cpp"]


def test_a_patch_that_no_longer_applies_is_a_loud_error():
    tree = {"lib/a.cpp": b"int addOne(int x) {\n  return x + 5;\n}\n"}
    with pytest.raises(scratch.ApplyError, match="does not apply"):
        scratch.apply_patch(tree, DIFF, "demo")


def test_sync_writes_only_what_changed(tmp_path):
    dest = tmp_path / "copy"
    assert scratch.sync({"a": b"1", "d/b": b"2"}, dest, modes_from=tmp_path) == 2
    assert scratch.sync({"a": b"1", "d/b": b"3"}, dest, modes_from=tmp_path) == 1
    assert scratch.sync({"a": b"1"}, dest, modes_from=tmp_path) == 1  # d/b removed
    assert sorted(p.name for p in dest.rglob("*") if p.is_file()) == ["a"]


def test_a_build_failure_makes_the_verdict_error(tmp_path, monkeypatch):
    """The build-break shape end to end through CanaryRun, with the build faked."""
    canary = patches.parse(write(tmp_path, HEADER + "\n" + DIFF))
    built = []

    def fake_build(tree, flavour, setup, targets, jobs, log):
        built.append(tree.name)
        return tree.name == "baseline"
    monkeypatch.setattr("dispatch_ci.canaries.trees.Tree.build", fake_build)
    monkeypatch.setattr("dispatch_ci.canaries.trees.WORK", tmp_path / "work")
    job = CanaryRun({}, {"demo": {}}, tmp_path / "out", 1, Say("test", stream=open("/dev/null", "w")))
    job.run(canary, "mobile", "hardened", canary.plan(["unit"], fast=True))
    table = verdicts(job.rows, [("demo", "mobile")])
    assert [(v.verdict, job.rows[0].outcome.detail) for v in table] == [("ERROR", "build failed")]


def test_flavours_option_replaces_every_header_flavour_list():
    import argparse
    from dispatch_ci.jobs import canaries as job
    from dispatch_ci.log import UsageError
    parser = argparse.ArgumentParser()
    job.add_arguments(parser)
    args = parser.parse_args(["--canary", "trimmed_mask_off_by_one", "--flavours", "full,random:2:7"])
    chosen, _, mode = job.select(args)
    assert mode == "full" and [c.flavours for c in chosen] == [["full", "random:2:7"]]
    with pytest.raises(UsageError):
        job.select(parser.parse_args(["--flavours", "full,no_such_flavour"]))
    with pytest.raises(UsageError):
        job.select(parser.parse_args(["--selftest", "--flavours", "full"]))


def test_configure_args_option_prints_what_canary_trees_are_configured_with(capsys):
    import argparse
    from dispatch_ci.jobs import canaries as job
    from dispatch_ci.log import UsageError
    parser = argparse.ArgumentParser()
    job.add_arguments(parser)
    assert job.run(parser.parse_args(["--configure-args", "random:4:1"])) == 0
    assert capsys.readouterr().out.splitlines() == [
        "--preset", "full-fuzz", "-DDISPATCH_RANDOM_FLAVOURS=4", "-DDISPATCH_FLAVOUR_SEED=1"]
    assert job.run(parser.parse_args(["--configure-args", "mobile"])) == 0
    assert capsys.readouterr().out.splitlines() == ["--preset", "mobile-fuzz"]
    with pytest.raises(UsageError):
        job.run(parser.parse_args(["--configure-args", "no_such_flavour"]))
