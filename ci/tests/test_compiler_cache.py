"""The canary copies and the mutant tree build through ccache when it is installed, with paths
hashed relative to the checkout, and leave a launcher or ccache settings the caller chose alone."""
from dispatch_ci import compiler_cache, paths, procs
from dispatch_ci.canaries import trees
from dispatch_ci.jobs import mutants


def _no_launcher(monkeypatch, ccache="/usr/bin/ccache"):
    monkeypatch.delenv("CMAKE_CXX_COMPILER_LAUNCHER", raising=False)
    monkeypatch.setattr(compiler_cache.shutil, "which", lambda name: ccache if name == "ccache" else None)


def _recording_run(calls):
    """A procs.run that records (command, environment) and succeeds."""
    def run(cmd, **kwargs):
        calls.append((list(map(str, cmd)), kwargs.get("env") or {}))
        return procs.Result(0, False, 0.0)
    return run


def test_ccache_is_the_launcher_when_installed(monkeypatch):
    _no_launcher(monkeypatch)
    assert compiler_cache.configure_args() == ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]


def test_no_launcher_without_ccache(monkeypatch):
    _no_launcher(monkeypatch, ccache=None)
    assert compiler_cache.configure_args() == []


def test_the_callers_launcher_stays(monkeypatch):
    _no_launcher(monkeypatch)
    monkeypatch.setenv("CMAKE_CXX_COMPILER_LAUNCHER", "sccache")
    assert compiler_cache.configure_args() == []


def test_paths_hash_relative_to_the_checkout(monkeypatch):
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    monkeypatch.delenv("CCACHE_NOHASHDIR", raising=False)
    env = compiler_cache.build_env()
    assert env["CCACHE_BASEDIR"] == str(paths.ROOT) and env["CCACHE_NOHASHDIR"] == "true"
    monkeypatch.setenv("CCACHE_BASEDIR", "/elsewhere")
    assert compiler_cache.build_env()["CCACHE_BASEDIR"] == "/elsewhere"


def test_a_canary_tree_configures_and_builds_through_ccache(monkeypatch, tmp_path):
    _no_launcher(monkeypatch)
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    monkeypatch.setattr(trees, "WORK", tmp_path)
    monkeypatch.setattr(trees.scratch, "sync", lambda files, dest: None)
    calls = []
    monkeypatch.setattr(trees.procs, "run", _recording_run(calls))
    assert trees.Tree("some_canary", {}).build("full", "hardened", ["fallback_fuzzer"], 2, tmp_path / "log")
    (configure, configure_env), (build, build_env) = calls
    assert "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" in configure and build[:2] == ["cmake", "--build"]
    assert configure_env["CCACHE_BASEDIR"] == build_env["CCACHE_BASEDIR"] == str(paths.ROOT)


def test_the_mutant_tree_configures_and_builds_through_ccache(monkeypatch, tmp_path):
    _no_launcher(monkeypatch)
    calls = []
    monkeypatch.setattr(mutants.procs, "run", _recording_run(calls))
    monkeypatch.setattr(mutants, "WORK", tmp_path)

    class Args:
        preset, seed, jobs = "full-asan-ubsan", 1, 2

    assert mutants.MutantRun(Args(), {}, print).build(tmp_path / "log")
    (configure, _), (build, build_env) = calls
    assert "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" in configure and build[:2] == ["cmake", "--build"]
    assert build_env["CCACHE_NOHASHDIR"] == "true"
