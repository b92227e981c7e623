"""The nightly's mutant sample: known survivors, and the step's verdict (a survivor is red only
when it is new; nothing judged is inconclusive; a broken unmutated tree is FAILED)."""
import pytest

from dispatch_ci.mutants import sample_verdict as sv
from dispatch_ci.mutants.mutator import Site

GAP = Site("dispatch/src/a.cpp", 10, "cmp", "  if (i < n) {", "  if (i <= n) {")
OTHER = Site("dispatch/src/b.cpp", 3, "bool", "  x = true;", "  x = false;")


def result(site, status):
    return {"site": site, "status": status}


def known_file(tmp_path, *lines):
    path = tmp_path / "known.tsv"
    path.write_text("# comment\n" + "".join(line + "\n" for line in lines))
    return sv.read_known(path)


def test_all_killed_is_ok_with_the_score():
    assert sv.verdict(True, [result(GAP, "killed"), result(OTHER, "killed (timeout)")], {}) == \
        ("ok", "2 judged, score 2/2 = 100%; no survivors")


def test_a_new_survivor_fails_the_step():
    res, detail = sv.verdict(True, [result(GAP, "survived"), result(OTHER, "killed")], {})
    assert res == "FAILED" and "1 new survivor(s): dispatch/src/a.cpp:10 cmp" in detail and "1/2" in detail


def test_a_known_survivor_is_reported_but_not_red(tmp_path):
    known = known_file(tmp_path, "dispatch/src/a.cpp\tcmp\tif (i < n) {\tif (i <= n) {\tgap\tno test yet")
    res, detail = sv.verdict(True, [result(GAP, "survived"), result(OTHER, "killed")], known)
    assert res == "ok" and "known survivors: dispatch/src/a.cpp:10 cmp (gap)" in detail


def test_known_is_matched_by_text_not_line_number(tmp_path):
    known = known_file(tmp_path, "dispatch/src/a.cpp\tcmp\tif (i < n) {\tif (i <= n) {\tequivalent\tn is 0")
    moved = Site(GAP.file, 99, GAP.operator, GAP.before, GAP.after)
    assert sv.verdict(True, [result(moved, "survived")], known)[0] == "ok"
    elsewhere = Site("dispatch/src/c.cpp", 10, GAP.operator, GAP.before, GAP.after)
    assert sv.verdict(True, [result(elsewhere, "survived")], known)[0] == "FAILED"


def test_nothing_valid_judged_is_inconclusive_never_ok():
    assert sv.verdict(True, [result(GAP, "invalid"), result(OTHER, "equivalent")], {})[0] == "INCONCLUSIVE"
    assert sv.verdict(True, [], {})[0] == "INCONCLUSIVE"


def test_a_broken_unmutated_tree_fails():
    assert sv.verdict(False, [], {})[0] == "FAILED"


@pytest.mark.parametrize("line", ["a.cpp\tcmp\tx\ty\tmaybe\twhy", "a.cpp\tcmp\tx\ty\tgap\t", "a.cpp\tcmp\tx"])
def test_a_malformed_known_line_is_an_error(tmp_path, line):
    with pytest.raises(sv.KnownListError):
        known_file(tmp_path, line)


def test_the_committed_known_list_parses():
    from dispatch_ci import paths
    sv.read_known(paths.CI / "mutants_known.tsv")
