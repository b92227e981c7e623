"""The jobs' default invocations keep working: the presets a job takes when none are named, the
pre-merge matrix and the OSS-Fuzz contract configured as their documented commands run them."""
import json
import subprocess
import sys

import pytest

from dispatch_ci import paths, presets
from dispatch_ci.jobs import ossfuzz_check
from dispatch_ci.log import Say

C10_PRESETS = {"full-c10", "full-c10-2.6", "full-c10-2.14"}


def _version_header(root, major, minor):
    header = root / "torch/csrc/api/include/torch/version.h"
    header.parent.mkdir(parents=True)
    header.write_text(f"#define TORCH_VERSION_MAJOR {major}\n#define TORCH_VERSION_MINOR {minor}\n"
                      "#define TORCH_VERSION_PATCH 1\n")


def test_installed_release_is_read_from_the_headers_as_cmake_reads_it(tmp_path):
    assert presets.installed_libtorch_release([tmp_path]) is None
    _version_header(tmp_path, 2, 14)
    assert presets.installed_libtorch_release([tmp_path / "none", tmp_path]) == "2.14"


def test_each_c10_preset_names_its_release_and_the_others_none():
    assert presets.libtorch_release_of("full-c10") == "1.13"
    assert presets.libtorch_release_of("full-c10-2.6") == "2.6"
    assert presets.libtorch_release_of("full-c10-2.14") == "2.14"
    assert presets.libtorch_release_of("full-asan-ubsan") is None


def test_without_libtorch_the_defaults_leave_out_every_c10_preset_and_say_so():
    kept, said = presets.default_presets(libtorch="")
    assert not C10_PRESETS & set(kept)
    assert len(kept) == len(presets.configure_presets()) - len(C10_PRESETS)
    assert "no libtorch is installed here" in said
    assert all(name in said for name in C10_PRESETS)


def test_with_a_libtorch_release_the_defaults_keep_its_preset_only():
    for release, preset in (("1.13", "full-c10"), ("2.6", "full-c10-2.6"), ("2.14", "full-c10-2.14")):
        kept, said = presets.default_presets(libtorch=release)
        assert C10_PRESETS & set(kept) == {preset}
        left_out = said.split("left out ")[1].split(":")[0].split(", ")
        assert f"libtorch {release} is installed here" in said
        assert set(left_out) == C10_PRESETS - {preset}


def test_a_preset_file_without_c10_presets_leaves_nothing_out(tmp_path):
    f = tmp_path / "CMakePresets.json"
    f.write_text(json.dumps({"configurePresets": [{"name": "a"}, {"name": "b", "inherits": "a"}]}))
    assert presets.default_presets(f, libtorch="") == (["a", "b"], "")


def test_inherited_cache_variables_follow_cmake_precedence(tmp_path):
    f = tmp_path / "CMakePresets.json"
    f.write_text(json.dumps({"configurePresets": [
        {"name": "one", "hidden": True, "cacheVariables": {"X": "1", "Y": "1"}},
        {"name": "two", "hidden": True, "cacheVariables": {"X": "2", "Z": {"type": "BOOL", "value": "ON"}}},
        {"name": "child", "inherits": ["one", "two"], "cacheVariables": {"Y": "c"}}]}))
    # The first parent listed wins over a later one; the preset over both.
    assert presets.preset_cache_variables("child", f) == {"X": "1", "Y": "c", "Z": "ON"}


def test_named_presets_are_taken_as_given_and_checked():
    said = []
    assert presets.chosen_presets("full-c10-2.14", said.append) == ["full-c10-2.14"]
    assert said == []


def _tool(*args):
    return subprocess.run([sys.executable, str(paths.CI / "tool.py"), *args], cwd=paths.ROOT,
                          capture_output=True, text=True, timeout=280)


def test_premerge_default_matrix_configures_on_this_machine():
    run = _tool("premerge", "--configure-only")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "RESULT: passed" in run.stdout
    kept, _ = presets.default_presets()
    assert f"({len(kept)} of {len(kept)} presets configure)" in run.stdout


def test_premerge_configure_only_fails_on_a_preset_that_cannot_configure_here():
    if presets.installed_libtorch_release() == "2.14":
        pytest.skip("inside the 2.14 chroot that preset configures; a run on any other system checks the rule")
    run = _tool("premerge", "--configure-only", "--presets", "full-c10-2.14")
    assert run.returncode == 1
    assert "full-c10-2.14: configure FAILED" in run.stdout and "RESULT: FAILED" in run.stdout


def test_ossfuzz_contract_configures_in_every_environment():
    run = _tool("ossfuzz_check", "--configure-only")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    for env in ossfuzz_check.ENVIRONMENTS:
        assert f"{env}" in run.stdout
    assert "FAILED" not in run.stdout


def test_ossfuzz_configure_failure_is_reported_as_such(monkeypatch):
    broken = dict(ossfuzz_check.environment("libfuzzer-address"), CXX="/bin/false")
    monkeypatch.setattr(ossfuzz_check, "environment", lambda name: broken)
    line = ossfuzz_check.check("libfuzzer-address", 1, Say("test"), configure_only=True)
    assert line.split("|")[1] == "configure FAILED"
