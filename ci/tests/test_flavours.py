"""Flavours as ci/ reads them: the declarations, a configured tree's flavours.tsv, the drawn
flavours' seed and cmake arguments, and the canary trees of a flavour."""
import datetime

import pytest

from dispatch_ci import flavours
from dispatch_ci.canaries import patches

TSV = ("full\tfull\tdeclared\n"
       "mobile\tUndefined,CPU,AutogradCPU\tdeclared\n"
       "rand1\tUndefined,XLA,AutogradXLA\tgenerated\n")


def test_declared_names_come_from_the_list_file(tmp_path):
    f = tmp_path / "flavours.list"
    f.write_text("# comment\nfull: full  # server\n\nlite: Undefined CPU  # lite\n", encoding="ascii")
    assert flavours.declared_names(f) == ["full", "lite"]


def test_the_repository_declares_full_first_and_four_flavours():
    names = flavours.declared_names()
    assert names[0] == "full"
    assert {"mobile", "lite", "mobile_gpu"} <= set(names)


def test_a_configured_tree_lists_its_flavours_and_marks_drawn_ones(tmp_path):
    (tmp_path / "flavours.tsv").write_text(TSV)
    listed = flavours.of_build(tmp_path)
    assert [f.name for f in listed] == ["full", "mobile", "rand1"]
    assert flavours.listing(tmp_path) == "full mobile rand1*"
    assert flavours.generated_declaration(tmp_path, "rand1") == "rand1=Undefined,XLA,AutogradXLA"
    assert flavours.generated_declaration(tmp_path, "mobile") is None   # declared: no record needed
    assert flavours.generated_declaration(tmp_path, "nope") is None


def test_an_unconfigured_tree_lists_the_declarations(tmp_path):
    assert flavours.of_build(tmp_path) == []
    assert flavours.listing(tmp_path) == " ".join(flavours.declared_names())


def test_seed_of_today_is_the_utc_date():
    assert flavours.seed_of_today(datetime.date(2026, 12, 3)) == 20261203
    assert flavours.random_cmake_args(4, 7) == ["-DDISPATCH_RANDOM_FLAVOURS=4", "-DDISPATCH_FLAVOUR_SEED=7"]


def test_declarations_are_checked():
    assert flavours.check_declaration("rand3=Undefined,CPU") == "rand3=Undefined,CPU"
    for bad in ("rand3", "rand3=", "Rand=Undefined,CPU", "rand3=Undefined", "x=Undefined CPU"):
        with pytest.raises(ValueError):
            flavours.check_declaration(bad)
    a = flavours.tree_suffix_of_declaration("rand3=Undefined,CPU")
    b = flavours.tree_suffix_of_declaration("rand3=Undefined,XLA")
    assert a.startswith("-flavour-rand3-") and a != b


def test_canary_trees_of_declared_and_drawn_flavours():
    assert patches.configure_args("mobile") == ["--preset", "mobile-fuzz"]
    assert patches.configure_args("lite") == ["--preset", "full-fuzz", "-DDISPATCH_FLAVOUR=lite"]
    assert patches.configure_args("random:4:20261203") == [
        "--preset", "full-fuzz", "-DDISPATCH_RANDOM_FLAVOURS=4", "-DDISPATCH_FLAVOUR_SEED=20261203"]
