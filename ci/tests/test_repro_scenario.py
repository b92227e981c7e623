"""ci/repro.sh --name: finding a committed regression scenario by its name, and the verdict
of a named run (the input and the scenario's test must agree)."""
from pathlib import Path

import pytest

from dispatch_ci import paths
from dispatch_ci.repro import scenario

HEADER = """// Regression test for {target}: replays fuzz/regressions/{target}/{sha1}
// (written by ci/repro.sh; regenerate with `ci/repro.sh fuzz/regressions/{target}/{sha1}`).
{extra}
#include <gtest/gtest.h>
"""
SHA1 = "9900bc303b68528258f93e5696764e73b320b5b3"


def write_test(folder: Path, name: str, target: str = "registration_fuzzer", extra: str = "") -> None:
    (folder / f"{name}.cpp").write_text(HEADER.format(target=target, sha1=SHA1, extra=extra))


def test_the_header_names_input_target_and_canary(tmp_path):
    write_test(tmp_path, "registration_fuzzer_two_catch_alls_test",
               extra="// Pins a PLANTED bug, not a finding: the canary ci/canaries/kernel_stack_erase_front.patch")
    (s,) = scenario.scenarios(tmp_path)
    assert (s.test, s.target, s.input, s.canary, s.short) == (
        "registration_fuzzer_two_catch_alls_test", "registration_fuzzer",
        f"fuzz/regressions/registration_fuzzer/{SHA1}", "kernel_stack_erase_front", "two_catch_alls")


def test_a_real_finding_has_no_canary(tmp_path):
    write_test(tmp_path, "keyset_fuzzer_empty_set_test", target="keyset_fuzzer")
    assert scenario.scenarios(tmp_path)[0].canary == ""


@pytest.mark.parametrize("name", ["registration_fuzzer_two_catch_alls_test", "registration_fuzzer_two_catch_alls",
                                  "two_catch_alls"])
def test_each_spelling_of_the_name_finds_it(tmp_path, name):
    write_test(tmp_path, "registration_fuzzer_two_catch_alls_test")
    write_test(tmp_path, "registration_fuzzer_other_test")
    assert scenario.find(name, scenario.scenarios(tmp_path)).test == "registration_fuzzer_two_catch_alls_test"


def test_an_unknown_name_lists_the_known_ones(tmp_path):
    write_test(tmp_path, "registration_fuzzer_two_catch_alls_test")
    with pytest.raises(scenario.ScenarioError, match="known: two_catch_alls"):
        scenario.find("two_catch", scenario.scenarios(tmp_path))


def test_a_name_two_targets_share_is_ambiguous(tmp_path):
    write_test(tmp_path, "registration_fuzzer_x_test")
    write_test(tmp_path, "fallback_fuzzer_x_test", target="fallback_fuzzer")
    with pytest.raises(scenario.ScenarioError, match="names 2 scenarios"):
        scenario.find("x", scenario.scenarios(tmp_path))


def test_a_test_whose_header_names_no_input_is_an_error(tmp_path):
    (tmp_path / "registration_fuzzer_x_test.cpp").write_text("// hand written\n#include <gtest/gtest.h>\n")
    with pytest.raises(scenario.ScenarioError, match="names no input"):
        scenario.scenarios(tmp_path)


@pytest.mark.parametrize("input_rc,test_rc,code", [
    (1, 8, scenario.REPRODUCED),
    (0, 0, scenario.DID_NOT_FAIL),
    (1, 0, scenario.ERROR),       # the test no longer pins what the input shows
    (0, 8, scenario.ERROR),       # the test fails for another reason
    (1, None, scenario.ERROR),    # test not built or not run: never a verdict
    (0, None, scenario.ERROR),
])
def test_the_verdict_needs_the_input_and_the_test_to_agree(input_rc, test_rc, code):
    assert scenario.verdict(input_rc, test_rc)[0] == code


def test_every_committed_scenario_resolves_to_a_committed_input_and_canary():
    known = scenario.scenarios(paths.REGRESSION_TESTS)
    assert known, "no committed regression scenarios"
    for s in known:
        assert (paths.ROOT / s.input).is_file(), s
        assert not s.canary or (paths.CANARY_PATCHES / f"{s.canary}.patch").is_file(), s
        assert scenario.find(s.short, known) == s
