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


class _FakeJob:
    """judge_all's view of a MutantRun: judge() returns the next scripted status."""

    def __init__(self, tmp_path, statuses):
        self.files, self.src, self.statuses, self.judged = {}, tmp_path / "src", list(statuses), []

    def judge(self, index, site):
        self.judged.append(index)
        return {"index": index, "site": site, "status": self.statuses[index - 1], "seconds": 0}


def _sites(n):
    return [mutator.Site("f.cpp", i, "cmp", "a < b", "a <= b") for i in range(1, n + 1)]


def test_judge_all_stops_once_enough_mutants_are_valid(tmp_path):
    from dispatch_ci.jobs import mutants
    job = _FakeJob(tmp_path, ["invalid", "killed", "equivalent", "survived", "killed"])
    results = []
    mutants.judge_all(job, _sites(5), results, lambda _m: None, enough=2)
    assert job.judged == [1, 2, 3, 4]


def test_judge_all_resumes_from_mutant_k_keeping_its_number(tmp_path):
    from dispatch_ci.jobs import mutants
    job = _FakeJob(tmp_path, ["killed"] * 5)
    results = []
    mutants.judge_all(job, _sites(5), results, lambda _m: None, first=4)
    assert job.judged == [4, 5] and [r["index"] for r in results] == [4, 5]


def test_judge_all_stops_at_its_deadline(tmp_path):
    from dispatch_ci.jobs import mutants
    job = _FakeJob(tmp_path, ["killed"] * 3)
    results = []
    mutants.judge_all(job, _sites(3), results, lambda _m: None, deadline=0.0)
    assert results == []


def test_a_stopped_run_keeps_what_it_judged(tmp_path):
    # The tool turns SIGINT/SIGTERM into SystemExit (cli._stop): the summary must still come.
    from dispatch_ci.jobs import mutants

    class Stopping(_FakeJob):
        def judge(self, index, site):
            if index == 3:
                raise SystemExit(130)
            return super().judge(index, site)

    job = Stopping(tmp_path, ["killed"] * 5)
    results = []
    assert mutants.judge_until_stopped(job, _sites(5), results, lambda _m: None) is True
    assert [r["index"] for r in results] == [1, 2]


def test_judge_all_judges_only_the_chosen_mutants_keeping_their_numbers(tmp_path):
    from dispatch_ci.jobs import mutants
    job = _FakeJob(tmp_path, ["killed"] * 5)
    results = []
    mutants.judge_all(job, _sites(5), results, lambda _m: None, only={2, 5})
    assert job.judged == [2, 5] and [r["index"] for r in results] == [2, 5]


@pytest.mark.parametrize("text,first", [("0", 1), ("6", 1), ("2,x", 1), ("2,", 1), ("2", 3)])
def test_only_takes_mutant_numbers_of_the_draw_and_not_with_from(text, first):
    from dispatch_ci.jobs import mutants
    from dispatch_ci.log import UsageError
    with pytest.raises(UsageError):
        mutants.parse_only(text, first, drawn=5)


def test_only_parses_a_list_and_is_none_when_absent():
    from dispatch_ci.jobs import mutants
    assert mutants.parse_only("5,2,5", 1, drawn=5) == {2, 5}
    assert mutants.parse_only(None, 4, drawn=5) is None
