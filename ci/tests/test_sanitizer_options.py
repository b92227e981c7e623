"""Setting one sanitizer option in an options string (sanitizer_env.with_option): the entry is
replaced where it stands, never given twice, and appended when missing."""
from dispatch_ci.sanitizer_env import with_option


def test_an_option_present_is_replaced_in_place():
    assert with_option("a=1:b=1:c=1", "b", "0") == "a=1:b=0:c=1"


def test_an_option_missing_is_appended_and_empty_entries_are_dropped():
    assert with_option("a=1::", "b", "0") == "a=1:b=0"
    assert with_option("", "b", "0") == "b=0"


def test_a_name_that_only_starts_like_the_option_is_left_alone():
    assert with_option("bb=1:b_x=1", "b", "0") == "bb=1:b_x=1:b=0"
