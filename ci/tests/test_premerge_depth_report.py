"""The pre-merge depth report (bugbench/premerge_report.py): seeds caught per bug x layer, errors
apart, deterministic layers marked; the issue's target is met only when every deep bug is caught
by the property layer alone in >= 4 of 5 seeds, and is not judged when a deep seed is an error."""
from dispatch_ci.bugbench import premerge_report


def records(bug, kind, layer, results, seeded=True):
    return [{"bug": bug, "kind": kind, "layer": layer, "seed": i, "result": r, "how": "model disagreement: x"
             if r == "caught" else ("timeout" if r == "error" else ""), "seconds": 1.0, "seeded": seeded,
             "log": "l"} for i, r in enumerate(results, 1)]


C, N, E = "caught", "not caught", "error"


def document(label, recs):
    return {"label": label, "records": recs}


def test_the_target_is_met_only_when_every_deep_bug_reaches_four_of_five():
    good = records("deep_a", "deep", "property", [C, C, C, C, N]) + records("deep_b", "deep", "property", [C] * 5)
    assert "target: met" in premerge_report.target_line(document("x", good))
    short = good + records("deep_c", "deep", "property", [C, C, C, N, N])
    assert "2/3" in premerge_report.target_line(document("x", short))
    assert "NOT met" in premerge_report.target_line(document("x", short))


def test_a_corpus_catch_does_not_count_for_the_property_layer():
    recs = records("deep_a", "deep", "property", [N] * 5) + records("deep_a", "deep", "corpus", [C] * 5, seeded=False)
    assert "NOT met" in premerge_report.target_line(document("x", recs))


def test_an_error_seed_of_a_deep_bug_leaves_the_target_not_judged():
    recs = records("deep_a", "deep", "property", [C, C, C, C, E])
    assert "not judged" in premerge_report.target_line(document("x", recs))


def test_canaries_do_not_decide_the_deep_target():
    recs = records("deep_a", "deep", "property", [C] * 5) + records("canary_a", "canary", "property", [N] * 5)
    assert "target: met" in premerge_report.target_line(document("x", recs))


def test_cells_count_seeds_mark_deterministic_layers_and_list_errors():
    recs = (records("deep_a", "deep", "property", [C, C, C, C, E])
            + records("deep_a", "deep", "unit", [N] * 5, seeded=False))
    text = premerge_report.markdown([("after", document("after", recs))])
    row = next(line for line in text.splitlines() if line.startswith("| deep_a"))
    assert "4/5 ✔ · 1 error(s)" in row and "0/5 (det.)" in row
    assert "deep_a property seed 5: timeout" in text


def test_two_documents_read_side_by_side():
    before = document("before", records("deep_a", "deep", "property", [N, N, C, N, N]))
    after = document("after", records("deep_a", "deep", "property", [C] * 5))
    text = premerge_report.markdown([("before", before), ("after", after)])
    assert "| bug | kind | property · before | property · after |" in text
    assert "| deep_a | deep | 1/5 | 5/5 ✔ |" in text


def test_the_readme_section_has_its_own_markers_and_leaves_the_fuzzing_section_alone():
    from dispatch_ci.bugbench import report
    text = report.readme_section("# bench\n", "## Bug benchmark\nfuzzing")
    once = report.readme_section(text, "## Pre-merge depth\nfirst", premerge_report.README_BEGIN, premerge_report.README_END)
    twice = report.readme_section(once, "## Pre-merge depth\nsecond", premerge_report.README_BEGIN, premerge_report.README_END)
    assert "fuzzing" in twice and "second" in twice and "first" not in twice
    assert twice.count(premerge_report.README_BEGIN) == 1


LOG = ("[ RUN      ] Stateful/full.DispatcherAgreesWithModel\nFalsifiable after 65 tests and 0 shrinks\n"
       "[  FAILED  ] Stateful/full.DispatcherAgreesWithModel\n"
       "[ RUN      ] Stateful/mobile.DispatcherAgreesWithModel\n[       OK ] Stateful/mobile.DispatcherAgreesWithModel\n"
       "[ RUN      ] StatefulOneOperator/full.DeepStatesAgreeWithModel\nFalsifiable after 3 tests\n")


def test_the_first_failing_case_is_read_per_property_test():
    assert premerge_report.first_failures(LOG) == {"Stateful/full.DispatcherAgreesWithModel": 65,
                                                  "StatefulOneOperator/full.DeepStatesAgreeWithModel": 3}


def test_margins_take_the_smallest_case_over_flavours_and_mark_seeds_without_a_failure():
    recs = records("deep_a", "deep", "property", [C, C])
    recs[0]["first_failure"] = {"Stateful/full.X": 65, "Stateful/mobile.X": 40}
    recs[1]["first_failure"] = {}
    lines = premerge_report.margins([("before", {"seeds": 2, "records": recs})])
    assert lines == ["- before · deep_a · Stateful: first failing case per seed 40, -"]
