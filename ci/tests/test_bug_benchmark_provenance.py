"""A bug-benchmark run records the tree it read, not the tree at its end: shards run for hours,
and a commit made meanwhile must not be named as what a shard measured (a shard named after
files it never built would merge with shards of those files)."""
import argparse
import itertools

from dispatch_ci.bugbench import bugs
from dispatch_ci.jobs import bug_benchmark


def test_a_run_records_the_commit_and_measured_files_as_they_were_when_read(monkeypatch, tmp_path):
    heads = itertools.count()   # each look at git sees a newer commit than the one before

    class BenchWhileSomeoneCommits:
        """BenchRun without building or fuzzing: while a bug runs, a commit lands."""

        def __init__(self, files, out, jobs, budget, say, done, on_record):
            self.records = []

        def run_bug(self, bug, targets, mutators, seeds, fake_stacks):
            next(heads)

    monkeypatch.setattr(bug_benchmark.git_tree, "commit", lambda *a: f"commit{next(heads)}")
    monkeypatch.setattr(bug_benchmark.git_tree, "source", lambda *a: f"source{next(heads)}")
    read = []
    monkeypatch.setattr(bug_benchmark.scratch, "read_tree", lambda: read.append(next(heads)) or {})
    deep = bugs.Bug(name="deep_x", kind="deep", flavour="full", targets=["registration_fuzzer"], diff="")
    monkeypatch.setattr(bug_benchmark.bugs, "load", lambda files: [deep])
    monkeypatch.setattr(bug_benchmark.bugs, "read_mutants", lambda: [])
    monkeypatch.setattr(bug_benchmark, "BenchRun", BenchWhileSomeoneCommits)
    monkeypatch.setattr(bug_benchmark, "OUT", tmp_path)
    published = []
    monkeypatch.setattr(bug_benchmark, "publish", lambda document, write_readme: published.append(document))
    parser = argparse.ArgumentParser()
    bug_benchmark.add_arguments(parser)

    assert bug_benchmark.run(parser.parse_args(["--seeds", "1", "--minutes", "0.1"])) == 0

    [document] = published
    assert read == [0]   # the files were read first, then git was asked once for each
    assert (document["commit"], document["source"]) == ("commit1", "source2")
