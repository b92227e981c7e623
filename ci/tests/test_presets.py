import argparse
import json

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
