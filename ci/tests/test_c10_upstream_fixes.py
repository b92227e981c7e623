"""The stale-table fixes and upstream reports (fuzz/c10/fixes/, docs/upstream/).

Everywhere: each repro has a report that carries its program, the patch and its regression test
as the sources have them, and fixes.tsv names only known repros. Where the libtorch 2.14 chroot
exists (build/libtorch-2.14/root, made by ci/setup.sh --with-libtorch 2.14): replay.sh builds every
fix and program and runs each repro without and with each fix; a build failure, a missing fix, a
crash or a timeout fails the test. Without the chroot (CI) that test skips and warns why.
"""
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXES = REPO / "fuzz" / "c10" / "fixes"
sys.path.insert(0, str(FIXES))
import standalone  # noqa: E402  (fuzz/c10/fixes/standalone.py)

RELEASE = "2.14"
CHROOT = REPO / "build" / f"libtorch-{RELEASE}" / "root"


def fixes():
    """fix id -> the repros it is meant to fix (fixes.tsv)."""
    rows = [line.split("\t") for line in (FIXES / "fixes.tsv").read_text().splitlines() if not line.startswith("#")]
    return {row[0]: row[2].split() for row in rows}


def test_the_four_live_bugs_have_repros():
    assert standalone.bugs() == ["stale-after-compositeexplicitautograd", "stale-after-dropping-compositeexplicitautograd",
                                 "stale-autogradnestedtensor", "stale-autogradother"]


def test_every_report_carries_its_program_the_patch_and_its_test_as_the_sources_have_them():
    patch = f"```diff\n{(REPO / 'docs/upstream/stale-table.diff').read_text()}```\n"
    for bug in standalone.bugs():
        text = (REPO / "docs" / "upstream" / f"{bug}.md").read_text()
        assert standalone.block(text, "program") == standalone.program_block(bug), \
            f"{bug}.md: run python3 fuzz/c10/fixes/standalone.py --update"
        assert standalone.block(text, "patch") == patch, f"{bug}.md: stale patch"
        assert standalone.block(text, "test") == standalone.test_block(bug), f"{bug}.md: stale test"
        assert f"(../../docs/upstream/{bug}.md)" in (REPO / "fuzz/c10/known_upstream.md").read_text()


def test_fixes_name_known_repros_and_every_repro_has_a_targeted_fix():
    table = fixes()
    assert {"stale-table", "whole-row"} <= set(table)
    for fix, bugs in table.items():
        assert bugs and set(bugs) <= set(standalone.bugs()), fix
    targeted = {b for fix, bugs in table.items() if fix not in ("stale-table", "stale-table-keep-full", "whole-row")
                for b in bugs}
    assert targeted == set(standalone.bugs())
    assert set(table["stale-table"]) == set(table["whole-row"]) == set(standalone.bugs())


def test_replay_each_repro_without_and_with_each_fix():
    if not CHROOT.is_dir():
        reason = (f"no libtorch {RELEASE} chroot at build/libtorch-{RELEASE}/root "
                  f"(ci/setup.sh --with-libtorch {RELEASE} makes it): the stale-table fixes were not replayed")
        warnings.warn(reason)
        pytest.skip(reason)
    assert os.geteuid() == 0, "the libtorch chroot exists, but replaying in it needs root (mount namespace)"
    done = subprocess.run([str(FIXES / "replay.sh"), "--libtorch", RELEASE], cwd=REPO,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split("\t") for line in (REPO / "build/c10-fixes" / RELEASE / "replay.tsv").read_text().splitlines()[1:]]
    verdict = {(program, fix): (status, expected, ok) for program, fix, status, expected, ok in rows}
    for program in standalone.bugs() + ["all_invariants", "regression_test"]:
        for fix in ["plain"] + list(fixes()):
            assert verdict[program, fix][2] == "ok", (program, fix, verdict[program, fix])
    for bug in standalone.bugs():
        assert verdict[bug, "plain"][:2] == ("1", "shows"), bug
        for fix, fixed in fixes().items():
            if bug in fixed:
                assert verdict[bug, fix][:2] == ("0", "fixed"), (bug, fix)
