"""What a results file records of the tree (git_tree.py): HEAD and whether it was changed, and
the newest commit of the measured files, which commits elsewhere leave alone."""
import subprocess

from dispatch_ci import git_tree


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def commit_file(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", name)
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", "HEAD"],
                          check=True, capture_output=True, text=True).stdout.strip()


def test_the_source_is_the_newest_commit_of_the_measured_files(tmp_path):
    git(tmp_path, "init", "-q")
    measured = commit_file(tmp_path, "lib/a.cpp", "1")
    later = commit_file(tmp_path, "results/r.json", "{}")
    assert git_tree.source(["lib"], tmp_path) == measured
    assert git_tree.commit(tmp_path) == later
    (tmp_path / "results/r.json").write_text("{1}")
    assert git_tree.source(["lib"], tmp_path) == measured            # a change elsewhere
    assert git_tree.commit(tmp_path) == later + "+changes"
    (tmp_path / "lib/a.cpp").write_text("2")
    assert git_tree.source(["lib"], tmp_path) == measured + "+changes"


def test_outside_a_repository_the_workflow_commit_stands(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_SHA", "0123456789abcdef")
    assert git_tree.source(["lib"], tmp_path) == "0123456789"
    assert git_tree.commit(tmp_path) == "0123456789"
