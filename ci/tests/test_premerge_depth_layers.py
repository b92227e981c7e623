"""The pre-merge layers of the depth benchmark (bugbench/premerge_layers.py): the property layer
alone leaves out every replay of committed inputs, the corpus layer takes them in, and only a
RapidCheck binary is run once per seed."""
import json

from dispatch_ci.bugbench import premerge_layers
from dispatch_ci.bugbench.premerge_layers import Entry, is_seeded, layer_entries, parse_show_only

BUILD = "/w/build/canary-work/x/full-hardened"


def ctest_entry(name, labels, executable):
    return {"name": name, "command": [f"{BUILD}/{executable}"],
            "properties": [{"name": "LABELS", "value": labels}, {"name": "TIMEOUT", "value": 300}]}


SHOW_ONLY = json.dumps({"kind": "ctestInfo", "tests": [
    ctest_entry("stateful_props", ["property"], "properties/stateful_props"),
    ctest_entry("model_tests", ["unit", "property"], "oracle/model_tests"),
    ctest_entry("regressions_props", ["property"], "properties/regressions_props"),
    ctest_entry("checker_agreement_props", ["property"], "properties/checker_agreement_props"),
    ctest_entry("dispatcher_test", ["unit"], "dispatch/dispatcher_test"),
    ctest_entry("registration_fuzzer_startup_fallbacks_test", ["unit"],
         "fuzz/regression_tests/registration_fuzzer_startup_fallbacks_test"),
    ctest_entry("registration_fuzzer_corpus", ["corpus"], "fuzz/registration_fuzzer"),
]})


def names(entries):
    return sorted(e.name for e in entries)


def layers():
    from pathlib import Path
    return layer_entries(parse_show_only(SHOW_ONLY, Path(BUILD)))


def test_the_property_layer_alone_leaves_out_the_replays():
    assert names(layers()["property"]) == ["model_tests", "stateful_props"]


def test_the_corpus_layer_takes_every_replay_whatever_its_label():
    assert names(layers()["corpus"]) == ["checker_agreement_props", "registration_fuzzer_corpus",
                                         "registration_fuzzer_startup_fallbacks_test", "regressions_props"]


def test_the_unit_layer_leaves_out_the_regression_tests_of_fuzz_inputs():
    assert names(layers()["unit"]) == ["dispatcher_test", "model_tests"]


def test_executables_are_relative_to_the_build_folder_and_name_their_target():
    entry = next(e for e in layers()["corpus"] if e.name == "registration_fuzzer_corpus")
    assert entry.executable == "fuzz/registration_fuzzer" and entry.target == "registration_fuzzer"


def test_a_bad_test_list_is_a_loud_error():
    import pytest
    with pytest.raises(premerge_layers.LayerError):
        parse_show_only("not json", BUILD)


def test_only_a_binary_that_reads_rc_params_is_seeded(tmp_path):
    (tmp_path / "prop").write_bytes(b"\x7fELF...RC_PARAMS\x00...")
    (tmp_path / "unit").write_bytes(b"\x7fELF...gtest\x00...")
    assert is_seeded(tmp_path / "prop")
    assert not is_seeded(tmp_path / "unit")
    assert not is_seeded(tmp_path / "missing")


def test_the_ctest_regex_names_exactly_the_entries():
    regex = premerge_layers.ctest_regex([Entry("b_props", [], "b"), Entry("a_test", [], "a")])
    assert regex == "^(a_test|b_props)$"


def test_an_unbuilt_test_is_found_by_its_folder_and_target():
    """ctest names no command before the build: the folder and the naming rule give it."""
    from pathlib import Path
    unbuilt = json.dumps({"tests": [
        {"name": "registration_fuzzer_regressions", "properties": [
            {"name": "LABELS", "value": ["corpus"]}, {"name": "WORKING_DIRECTORY", "value": f"{BUILD}/fuzz"}]},
        {"name": "stateful_props", "properties": [
            {"name": "LABELS", "value": ["property"]}, {"name": "WORKING_DIRECTORY", "value": f"{BUILD}/properties"}]}]})
    entries = parse_show_only(unbuilt, Path(BUILD))
    assert [(e.executable, e.target) for e in entries] == [
        ("fuzz/registration_fuzzer", "registration_fuzzer"), ("properties/stateful_props", "stateful_props")]
