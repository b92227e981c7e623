import argparse
import json
import re

import pytest

from dispatch_ci import paths, presets
from dispatch_ci.log import UsageError


def test_configure_presets_skips_hidden_and_keeps_order(tmp_path):
    f = tmp_path / "CMakePresets.json"
    f.write_text(json.dumps({"configurePresets": [
        {"name": "base", "hidden": True}, {"name": "b-one"}, {"name": "a-two"}]}))
    assert presets.configure_presets(f) == ["b-one", "a-two"]


def test_the_repository_has_the_ten_presets_of_the_matrix():
    names = presets.configure_presets(paths.PRESETS_JSON)
    for flavour in ("full", "mobile"):
        for setup in ("asan-ubsan", "tsan", "release", "coverage", "fuzz"):
            assert f"{flavour}-{setup}" in names


@pytest.mark.parametrize("text", ["", "a,,b", "a,"])
def test_split_csv_rejects_empty_items(text):
    with pytest.raises(UsageError):
        presets.split_csv(text, "presets")


def test_split_csv():
    assert presets.split_csv("a,b", "presets") == ["a", "b"]


def test_check_known_names_the_unknown_preset():
    with pytest.raises(UsageError, match="unknown preset 'x'"):
        presets.check_known(["a", "x"], ["a", "b"])
    presets.check_known(["a"], ["a", "b"])


@pytest.mark.parametrize("text", ["0", "-1", "two", ""])
def test_positive_int_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError):
        presets.positive_int(text)


def test_read_cache_drops_types_and_comments(tmp_path):
    (tmp_path / "CMakeCache.txt").write_text(
        "# comment\n//help\nDISPATCH_FUZZ:BOOL=ON\nDISPATCH_LLVM_COV:FILEPATH=/usr/bin/llvm-cov-14\n"
        "EMPTY:STRING=\n")
    cache = presets.read_cache(tmp_path)
    assert cache == {"DISPATCH_FUZZ": "ON", "DISPATCH_LLVM_COV": "/usr/bin/llvm-cov-14", "EMPTY": ""}
    assert presets.read_cache(tmp_path / "none") == {}


def test_flavour_of():
    assert presets.flavour_of("mobile-asan-ubsan") == "mobile"


def _thread_regex() -> str:
    text = (paths.ROOT / "cmake" / "testing.cmake").read_text(encoding="utf-8")
    return text.split('set(DISPATCH_THREAD_START_REGEX "', 1)[1].split('")', 1)[0]


def test_the_tsan_presets_build_and_run_only_the_threaded_tests():
    document = json.loads(paths.PRESETS_JSON.read_text(encoding="utf-8"))
    for flavour in ("full", "mobile"):
        name = f"{flavour}-tsan"
        build = next(p for p in document["buildPresets"] if p["name"] == name)
        test = next(p for p in document["testPresets"] if p["name"] == name)
        assert build["targets"] == ["dispatch_threaded_tests"]
        assert test["filter"]["include"]["label"] == "^threads$"
        assert "slow" in test["filter"]["exclude"]["label"]


def test_every_source_that_starts_a_thread_is_seen_by_the_threads_rule():
    rule = re.compile(_thread_regex())
    starts = re.compile(r"std::(thread|jthread|async)\b|pthread_create")
    seen = []
    for folder in ("dispatch", "oracle", "fuzz", "properties", "c10_sut", "bench"):
        for path in (paths.ROOT / folder).rglob("*.cpp"):
            text = path.read_text(encoding="utf-8")
            if starts.search(text):
                assert rule.search(text), f"{paths.rel(path)} starts a thread the label rule misses"
                seen.append(path.name)
    assert {"concurrency_test.cpp", "dispatcher_call_test.cpp"} <= set(seen)
