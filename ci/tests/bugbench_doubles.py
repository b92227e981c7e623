"""Test doubles for the bug benchmark's runner (bugbench/runner.py)."""
from dispatch_ci.bugbench import runner


def bench_that_records(monkeypatch, tmp_path, ran):
    """A BenchRun whose trees build at once and whose runs only append (target, mutator, fake
    stacks, seed, work folder) to `ran`, each found after `10 * seed` executions."""
    class BuiltTree:
        def __init__(self, name, files):
            self.src = tmp_path

        def build(self, *args):
            return True

    def fake_run(self, bug, tree, target, mutator, fake_stacks, seed, work):
        ran.append((target, mutator, fake_stacks, seed, work.name))
        return runner.RunRecord(bug.name, bug.kind, target, mutator, seed, 60, "found", float(seed), 10 * seed,
                                "", "", fake_stacks=fake_stacks)

    monkeypatch.setattr(runner, "Tree", BuiltTree)
    monkeypatch.setattr(runner.scratch, "apply_patch", lambda files, diff, name: {})
    monkeypatch.setattr(runner.BenchRun, "_run", fake_run)
    monkeypatch.setattr(runner.BenchRun, "_build_baseline", lambda self, flavour, targets: True)
    return runner.BenchRun({}, tmp_path, 2, 60, lambda line: None)
