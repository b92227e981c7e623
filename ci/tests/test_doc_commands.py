"""Every shell line the README and docs show runs against today's tools (dispatch_ci.doc_commands)."""
import json
import subprocess

import pytest

from dispatch_ci import doc_commands, paths


def test_every_documented_command_checks_out():
    files = doc_commands.documentation_files()
    assert paths.ROOT / "README.md" in files and len(files) > 3
    problems = doc_commands.check_files(files)
    assert problems == [], "\n".join(str(p) for p in problems)


@pytest.fixture
def tree(tmp_path):
    """A small repository: one script with a --help, one preset of each kind, one option."""
    (tmp_path / "ci").mkdir()
    script = tmp_path / "ci" / "job.sh"
    script.write_text("#!/bin/sh\n[ \"$1\" = --help ] && echo 'usage: ci/job.sh [--budget S] [-j N]' && exit 0\n"
                      "exit 3\n")
    script.chmod(0o755)
    broken = tmp_path / "ci" / "nohelp.sh"
    broken.write_text("#!/bin/sh\nexit 2\n")
    broken.chmod(0o755)
    (tmp_path / "CMakePresets.json").write_text(json.dumps({
        "configurePresets": [{"name": "full-release"}, {"name": "base", "hidden": True}],
        "buildPresets": [{"name": "full-release"}], "testPresets": [{"name": "full-release-unit"}],
        "workflowPresets": [{"name": "full-release"}]}))
    (tmp_path / "CMakeLists.txt").write_text("option(DISPATCH_FUZZ \"fuzz\" OFF)\n")
    return tmp_path


def problems_of(tree, text):
    doc = tree / "doc.md"
    doc.write_text(text)
    return doc_commands.check_files([doc], doc_commands.Checker(tree), root=tree)


def block(*lines):
    return "```sh\n" + "\n".join(lines) + "\n```\n"


def test_known_flags_presets_and_options_pass(tree):
    assert problems_of(tree, block(
        "ci/job.sh --budget 120 -j2          # a comment",
        "ci/job.sh \\",
        "  --budget=5",
        "X=1 nice -n 10 ci/job.sh <crash file>",
        "W=$(mktemp -d) ci/job.sh --budget $(nproc)",
        "cmake --preset full-release -DDISPATCH_FUZZ=ON",
        "ctest --preset full-release-unit",
        "cmake --workflow --preset full-release")) == []


def test_a_flag_the_script_no_longer_has_fails(tree):
    problems = problems_of(tree, block("ci/job.sh --budget 1 --no-such-flag"))
    assert len(problems) == 1 and "--no-such-flag not in the help of ci/job.sh --help" in problems[0].reason


def test_a_flag_only_named_in_the_help_prose_is_not_defined(tree):
    """A stale sentence of the help must not keep a renamed flag alive in the docs."""
    def run(command, **kwargs):
        return subprocess.CompletedProcess(command, 0, "usage: ci/job.sh [--soak-time S]\n\n"
                                           "Runs the soak (--soak-seconds, default 60).\n", "")
    doc = tree / "doc.md"
    doc.write_text(block("ci/job.sh --soak-seconds 0", "ci/job.sh --soak-time 0"))
    problems = doc_commands.check_files([doc], doc_commands.Checker(tree, run=run), root=tree)
    assert [p.text for p in problems] == ["ci/job.sh --soak-seconds 0"]


@pytest.mark.parametrize("help_text", [
    "usage: ci/job.sh [-h] [--fresh]",                       # argparse usage
    "options:\n  --fresh               reconfigure",           # argparse option line
    "  -f, --fresh  reconfigure",                            # short and long
    "  ci/job.sh --fresh    reconfigure from scratch",        # a header comment's example
    "Usage: ci/job.sh --fresh [options]",
])
def test_the_ways_a_help_defines_a_flag(help_text):
    assert doc_commands._defines(help_text, "ci/job.sh", "--fresh")


def test_a_flag_after_a_continuation_line_is_checked(tree):
    assert problems_of(tree, block("ci/job.sh --budget 1 \\", "  --gone"))


@pytest.mark.parametrize("line, reason", [
    ("cmake --preset no-such", "no configure preset 'no-such'"),
    ("cmake --preset base", "no configure preset 'base'"),            # hidden
    ("ctest --preset full-release", "no test preset 'full-release'"),
    ("cmake --workflow --preset full-release-unit", "no workflow preset"),
    ("cmake --preset full-release -DDISPATCH_GONE=ON", "no CMake option DISPATCH_GONE"),
    ("ci/missing.sh --help", "no such script: ci/missing.sh"),
    ("ci/job.sh ci/no-such-file", "no such file in the repository: ci/no-such-file"),
    ("build/full-release/bench/dispatch_bench", "exists only after a build"),
    ("source ci/none.sh", "no file to source"),
    ("ci/nohelp.sh --x", "failed: cannot check the flags"),
    ("no-such-program-anywhere --x", "program not installed"),
])
def test_stale_commands_fail(tree, line, reason):
    problems = problems_of(tree, block(line))
    assert problems and reason in problems[0].reason


def test_every_command_of_a_chain_is_checked(tree):
    problems = problems_of(tree, block("ci/job.sh --budget 1 && ci/job.sh --gone"))
    assert [p.reason.split()[0] for p in problems] == ["--gone"]


def test_an_untagged_fence_fails(tree):
    problems = problems_of(tree, "```\nci/job.sh --gone\n```\n" + block("ci/job.sh"))
    assert len(problems) == 1 and "without a language tag" in problems[0].reason


def test_non_shell_fences_are_not_commands(tree):
    problems = problems_of(tree, "```cmake\nfind_package(dispatch)\n```\n" + block("ci/job.sh"))
    assert problems == []


def test_no_files_or_no_command_is_an_error_not_a_pass(tree):
    assert doc_commands.check_files([], doc_commands.Checker(tree), root=tree)
    problems = problems_of(tree, "no fences here\n")
    assert len(problems) == 1 and "no shell command" in problems[0].reason


def test_help_is_asked_once_per_command(tree):
    calls = []

    def run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, 0, "usage: [--budget S]", "")
    checker = doc_commands.Checker(tree, run=run)
    doc = tree / "doc.md"
    doc.write_text(block("ci/job.sh --budget 1", "ci/job.sh --budget 2"))
    assert doc_commands.check_files([doc], checker, root=tree) == []
    assert len(calls) == 1


def test_a_wrapped_command_is_checked_as_a_command_of_its_own(tree):
    wrapper = tree / "ci" / "c10.sh"
    wrapper.write_text("#!/bin/sh\n[ \"$1\" = --help ] && echo 'usage: ci/c10.sh --libtorch RELEASE [COMMAND]' && exit 0\n"
                       "exit 3\n")
    wrapper.chmod(0o755)
    assert problems_of(tree, block("ci/c10.sh --libtorch 2.14 ci/job.sh --budget 5",
                                   "ci/c10.sh --libtorch 2.14")) == []
    problems = problems_of(tree, block("ci/c10.sh --libtorch 2.14 ci/job.sh --no-such-flag"))
    assert len(problems) == 1 and "--no-such-flag not in the help of ci/job.sh --help" in problems[0].reason
    problems = problems_of(tree, block("ci/c10.sh --release 2.14 ci/job.sh"))
    assert len(problems) == 1 and "--release not in the help of ci/c10.sh --help" in problems[0].reason
