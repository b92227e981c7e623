"""The source mutator: which sites it finds, what it never touches, seeded sampling."""
import pytest

from dispatch_ci.jobs.mutants import summary
from dispatch_ci.mutants import mutator

CODE = """#include <array>  // 1 < 2
// if (a < b) in a comment
int f(int a, int b) {
  if (a < b) return g(a, b);
  const char* s = "x < y";
  static_assert(sizeof(int) == 4);
  std::vector<int> v;
  total += a * 2;
  notify(a);
  return a == b && true;
}
"""


def mutated_lines(operator):
    return [(s.line, s.after.strip()) for s in mutator.sites("f.cpp", CODE) if s.operator == operator]


def test_each_operator_finds_its_sites():
    assert (4, "if (a <= b) return g(a, b);") in mutated_lines("cmp")
    assert (10, "return a != b && true;") in mutated_lines("cmp")
    assert (8, "total -= a * 2;") in mutated_lines("arith")
    assert (8, "total += a / 2;") in mutated_lines("arith")
    assert {(8, "total += a * 3;"), (8, "total += a * 1;")} <= set(mutated_lines("off-by-one"))
    assert (10, "return a == b || true;") in mutated_lines("bool")
    assert (10, "return a == b && false;") in mutated_lines("bool")
    assert (4, "if (!(a < b)) return g(a, b);") in mutated_lines("bool")
    assert (4, "if (a < b) return g(b, a);") in mutated_lines("swap-args")
    assert (9, "") in mutated_lines("delete")


def test_comments_strings_preprocessor_templates_and_static_asserts_are_left_alone():
    lines = {s.line for s in mutator.sites("f.cpp", CODE)}
    assert not lines & {1, 2, 5, 6, 7}


def test_a_mutant_changes_one_line_and_keeps_the_line_count():
    for site in mutator.sites("f.cpp", CODE):
        after = mutator.apply(CODE, site)
        assert after.count("\n") == CODE.count("\n")
        changed = [i for i, (x, y) in enumerate(zip(CODE.split("\n"), after.split("\n"))) if x != y]
        assert changed == [site.line - 1]


def test_sampling_is_seeded():
    found = mutator.sites("f.cpp", CODE)
    assert mutator.sample(found, 5, seed=1) == mutator.sample(found, 5, seed=1)
    assert mutator.sample(found, 5, seed=1) != mutator.sample(found, 5, seed=2)
    assert len(mutator.sample(found, 10_000, seed=1)) == len(found)


def test_applying_to_a_changed_file_is_refused():
    site = mutator.sites("f.cpp", CODE)[0]
    with pytest.raises(ValueError):
        mutator.apply(CODE.replace(site.before, site.before + " "), site)


def test_diff_names_the_file():
    site = mutated_lines("cmp") and mutator.sites("f.cpp", CODE)[0]
    text = mutator.diff(CODE, site)
    assert text.startswith("--- a/f.cpp\n+++ b/f.cpp\n") and f"+{site.after}" in text


def test_score_counts_only_valid_mutants():
    site = mutator.sites("f.cpp", CODE)[0]
    results = [{"index": i, "site": site, "status": s, "seconds": 1, "diff": ""}
               for i, s in enumerate(["killed", "killed (timeout)", "survived", "invalid",
                                      "equivalent"], 1)]
    assert "score (killed / valid): 2/3 = 67%" in summary(results, 5)
