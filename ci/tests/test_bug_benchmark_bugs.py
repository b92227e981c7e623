"""The bug benchmark's bug set (bugbench/bugs.py): every canary a fuzz target can see, the deep
bugs, and only the killed mutants of the committed draw; every bug applies to the tree."""
import argparse
from pathlib import Path

import pytest

from dispatch_ci import paths, scratch
from dispatch_ci.bugbench import bugs, runner
from dispatch_ci.canaries import patches

from bugbench_doubles import bench_that_records

FILES = scratch.read_tree()


def test_every_canary_a_fuzz_target_sees_is_in_the_set():
    seen = {c.name for c in patches.load_all() if c.fuzz}
    assert seen and seen == {b.name for b in bugs.canaries()}


def test_there_are_three_deep_bugs_and_each_applies_and_names_its_function():
    deep = bugs.deep_bugs()
    assert len(deep) >= 3
    for bug in deep:
        assert scratch.apply_patch(FILES, bug.diff, bug.name) != FILES
        assert bug.touched.functions, bug.name
        assert set(bug.targets) <= set(bugs.TRACE_TARGETS + bugs.KEYSET_TARGETS)


def test_only_killed_mutants_are_bugs(tmp_path):
    records = bugs.read_mutants()
    assert len(records) >= 20
    statuses = ["killed", "survived", "unjudged"]
    for record, status in zip(records, statuses):
        record.premerge = status
    path = tmp_path / "mutants.tsv"
    bugs.write_mutants(records[:3], "test", path)
    chosen = bugs.mutants(FILES, path)
    assert [b.name for b in chosen] == [records[0].name]
    assert scratch.apply_patch(FILES, chosen[0].diff, chosen[0].name) != FILES


def test_a_mutant_whose_line_is_gone_is_an_error(tmp_path):
    record = bugs.read_mutants()[0]
    record.premerge, record.before = "killed", record.before + " // not in the tree"
    path = tmp_path / "mutants.tsv"
    bugs.write_mutants([record], "test", path)
    with pytest.raises(bugs.BugSetError):
        bugs.mutants(FILES, path)


def test_a_malformed_mutant_line_is_an_error(tmp_path):
    path = tmp_path / "mutants.tsv"
    path.write_text("1:1\tdispatch/src/x.cpp\tcmp\ta\tb\tmaybe\tregistration_fuzzer\n")
    with pytest.raises(bugs.BugSetError):
        bugs.read_mutants(Path(path))


def test_selection_by_kind_and_name_and_unknown_names_are_refused():
    everything = bugs.canaries() + bugs.deep_bugs()
    assert {b.kind for b in bugs.select(everything, ["deep"])} == {"deep"}
    assert [b.name for b in bugs.select(everything, ["kernel_stack_erase_front"])] == ["kernel_stack_erase_front"]
    with pytest.raises(bugs.BugSetError):
        bugs.select(everything, ["no_such_bug"])


def test_the_mutator_switch_is_set_only_for_targets_with_the_hook():
    env = runner.mutator_env({"DISPATCH_FUZZ_MUTATOR": "stale"}, "bytes", "registration_fuzzer")
    assert env["DISPATCH_FUZZ_MUTATOR"] == "bytes"
    assert "DISPATCH_FUZZ_MUTATOR" not in runner.mutator_env({}, "structure", "keyset_fuzzer")
    assert "DISPATCH_FUZZ_MUTATOR" not in runner.mutator_env({"DISPATCH_FUZZ_MUTATOR": "x"}, "default",
                                                            "fallback_fuzzer")


def test_the_mutator_switch_reaches_exactly_the_targets_that_define_the_hook():
    hooked = sorted(p.stem for p in (paths.ROOT / "fuzz").glob("*_fuzzer.cpp")
                    if "DISPATCH_FUZZ_TRACE_MUTATOR_HOOKS(" in p.read_text(encoding="utf-8"))
    assert "boxed_call_fuzzer" in hooked
    assert sorted(runner.MUTATOR_TARGETS) == hooked
    env = runner.mutator_env({}, "structure", "boxed_call_fuzzer")
    assert env["DISPATCH_FUZZ_MUTATOR"] == "structure"


def judge_with_fake_suite(monkeypatch, records, status_of_nth):
    """mutant_sample.judge over `records` with a pre-merge suite that answers status_of_nth(n)
    for the n-th mutant it is asked about; the (index, site) pairs it was asked about."""
    from dispatch_ci.bugbench import mutant_sample
    judged = []

    class FakeRun:
        def __init__(self, args, files, say):
            self.files, self.src = files, None

        def prepare(self):
            return True

        def judge(self, index, site):
            judged.append((index, site))
            return {"status": status_of_nth(len(judged)), "seconds": 1}

    monkeypatch.setattr(mutant_sample, "MutantRun", FakeRun)
    monkeypatch.setattr(mutant_sample, "sync", lambda files, src: None)
    assert mutant_sample.judge(FILES, records, 2, lambda _: None, lambda: None)
    return judged


def test_judging_takes_cpp_mutants_before_header_mutants(monkeypatch):
    records = bugs.read_mutants()
    for record in records:   # judged or not in the committed list: all to judge here
        record.premerge = "unjudged"
    judged = judge_with_fake_suite(monkeypatch, records,
                                   lambda n: "killed (timeout)" if n == 1 else "survived")
    headers = [site.file.endswith(".h") for _, site in judged]
    assert headers == sorted(headers) and len(judged) == len(records)
    # ci/mutants.sh's "killed (timeout)" is recorded as killed; every record got its judgement.
    assert sorted(r.premerge for r in records) == ["killed"] + ["survived"] * (len(records) - 1)


def test_a_draw_excludes_header_mutants_and_leaves_the_rest_to_judge():
    from dispatch_ci.bugbench import mutant_sample
    drawn = mutant_sample.draw(FILES, 1, 40)
    assert {r.premerge for r in drawn if r.file.endswith(".h")} == {"excluded"}
    assert {r.premerge for r in drawn if not r.file.endswith(".h")} == {"unjudged"}


def test_an_excluded_mutant_is_never_judged_nor_a_bug(monkeypatch, tmp_path):
    records = bugs.read_mutants()[:4]
    for record, status in zip(records, ["excluded", "unjudged", "excluded", "killed"]):
        record.premerge = status
    judged = judge_with_fake_suite(monkeypatch, records, lambda n: "killed")
    assert [index for index, _ in judged] == [int(records[1].draw.split(":")[1])]
    path = tmp_path / "mutants.tsv"
    bugs.write_mutants(records, "test", path)
    assert [b.name for b in bugs.mutants(FILES, path)] == [records[1].name, records[3].name]


def test_a_mutant_in_report_only_code_has_no_fuzz_target_and_others_keep_theirs():
    file = "dispatch/src/operator_entry_invariants.cpp"
    text = FILES[file].decode("utf-8")
    lines = text.splitlines()
    inside = next(i for i, l in enumerate(lines, 1) if "kernel->kernel.isFallthrough()" in l)
    header = next(i for i, l in enumerate(lines, 1) if "::reportFallthroughMaskViolation(" in l)
    assert bugs.enclosing_function(text, inside) == "reportFallthroughMaskViolation"
    assert bugs.targets_for(file, text, inside) == []
    # The line that calls it is in the invariant check itself: every trace target reaches that.
    caller = next(i for i, l in enumerate(lines, 1) if "reportFallthroughMaskViolation(b, mask)" in l)
    assert bugs.enclosing_function(text, caller) not in ("", "reportFallthroughMaskViolation")
    assert bugs.targets_for(file, text, caller) == list(bugs.TRACE_TARGETS)
    # Between two functions (after a body's closing brace) is no function.
    assert bugs.enclosing_function(text, header - 1) == ""


def test_the_committed_draw_names_the_targets_the_rule_gives():
    for record in bugs.read_mutants():
        site = bugs.site_of(record, FILES)
        assert record.targets == bugs.targets_for(record.file, FILES[record.file].decode("utf-8"),
                                                  site.line), record.name
    assert any(not r.targets and r.premerge == "killed" for r in bugs.read_mutants())


def test_a_bug_no_target_sees_is_not_run_but_named_in_the_results():
    from dispatch_ci.jobs import bug_benchmark
    seen = bugs.Bug("seen", "mutant", "full", ["registration_fuzzer"], "")
    unseen = bugs.Bug("unseen", "mutant", "full", [], "", what="report-only")
    assert [b.name for b, _ in bug_benchmark.plan([seen, unseen], [])] == ["seen"]
    assert bug_benchmark.unseen_by_fuzzing([seen, unseen]) == [unseen]
    document = {"unseen": [{"name": "unseen", "kind": "mutant", "what": "report-only"}]}
    assert "unseen (report-only)" in bug_benchmark.unseen_clause(document)
    assert bug_benchmark.unseen_clause({}) == ""


def test_the_description_names_fake_stacks_only_when_a_run_set_them_itself():
    from dispatch_ci.jobs import bug_benchmark
    assert bug_benchmark.fake_stacks_clause({}) == ""
    assert bug_benchmark.fake_stacks_clause({"fake_stacks": ["default"]}) == ""
    assert bug_benchmark.fake_stacks_clause({"fake_stacks": ["on", "off"]}).endswith("on and off")


def test_a_target_without_the_custom_mutator_runs_once_per_seed_for_every_column(monkeypatch, tmp_path):
    """keyset_fuzzer has no structure-aware mutator: its bytes and structure columns are one run
    per seed (recorded twice, the copy saying whose run it is); registration_fuzzer runs each."""
    ran = []
    bench = bench_that_records(monkeypatch, tmp_path, ran)
    bug = bugs.Bug(name="m", kind="mutant", flavour="full", targets=[], diff="")
    bench.run_bug(bug, ["registration_fuzzer", "keyset_fuzzer"], ["bytes", "structure"], 2)

    assert sorted((t, m, s) for t, m, _, s, _ in ran) == sorted(
        [("registration_fuzzer", m, s) for m in ("bytes", "structure") for s in (1, 2)]
        + [("keyset_fuzzer", "bytes", s) for s in (1, 2)])
    cells = {(r.target, r.mutator, r.seed): r for r in bench.records}
    assert len(cells) == 8
    for seed in (1, 2):
        copy = cells[("keyset_fuzzer", "structure", seed)]
        assert copy.same_run_as == "bytes" and copy.executions == 10 * seed
        assert cells[("registration_fuzzer", "structure", seed)].same_run_as == ""


def test_fake_stacks_set_by_the_run_override_the_fuzzing_environment_and_default_keeps_it():
    base = {"ASAN_OPTIONS": "halt_on_error=1:detect_stack_use_after_return=1:detect_leaks=1"}
    for target in ("registration_fuzzer", "keyset_fuzzer"):
        off = runner.run_env(base, "structure", target, "off")["ASAN_OPTIONS"]
        assert off == "halt_on_error=1:detect_stack_use_after_return=0:detect_leaks=1"
        assert runner.run_env(base, "structure", target, "on")["ASAN_OPTIONS"] == base["ASAN_OPTIONS"]
        assert runner.run_env(base, "structure", target, "default")["ASAN_OPTIONS"] == base["ASAN_OPTIONS"]
    without = {"ASAN_OPTIONS": "detect_stack_use_after_return=0"}
    assert runner.run_env(without, "bytes", "keyset_fuzzer", "default") == without
    assert runner.run_env({}, "bytes", "keyset_fuzzer", "on")["ASAN_OPTIONS"] == "detect_stack_use_after_return=1"
    assert runner.run_env(base, "bytes", "registration_fuzzer", "off")["DISPATCH_FUZZ_MUTATOR"] == "bytes"


def test_fake_stacks_off_is_its_own_run_and_a_shared_mutator_run_copies_only_within_its_arm(monkeypatch, tmp_path):
    """Turning fake stacks off changes every target's run, so it never shares a run with the
    arm that has them on; the mutator columns of keyset_fuzzer still share within each arm."""
    ran = []
    bench = bench_that_records(monkeypatch, tmp_path, ran)
    bug = bugs.Bug(name="m", kind="mutant", flavour="full", targets=[], diff="")
    bench.run_bug(bug, ["keyset_fuzzer"], ["bytes", "structure"], 1, ["on", "off"])

    assert sorted(ran) == [("keyset_fuzzer", "bytes", "off", 1, "keyset_fuzzer-bytes-no-fake-stacks"),
                           ("keyset_fuzzer", "bytes", "on", 1, "keyset_fuzzer-bytes")]
    cells = {(r.mutator, r.fake_stacks): r for r in bench.records}
    assert len(bench.records) == 4 and len(cells) == 4
    assert cells[("structure", "off")].same_run_as == "bytes"
    assert cells[("structure", "on")].same_run_as == "bytes"


def test_an_unknown_fake_stacks_value_is_refused():
    from dispatch_ci.jobs import bug_benchmark
    from dispatch_ci.log import UsageError
    parser = argparse.ArgumentParser()
    bug_benchmark.add_arguments(parser)
    with pytest.raises(UsageError):
        bug_benchmark.run(parser.parse_args(["--fake-stacks", "on,of"]))
