"""Crash history: every status transition, the exit-status rule, the store file and import."""
import json

import pytest

from dispatch_ci.nightly import history
from dispatch_ci.nightly.history import ERROR, FAILS, NOT_CHECKED, PASSES, Recheck


def found(bid, data=b"\x01\x02"):
    return dict(bucket_id=bid, key_string=f"key of {bid}", preset="full-fuzz", target="keyset_fuzzer",
                **history.encode_input(data))


def store_with(**statuses):
    """A store whose buckets have these statuses, each first seen on night n0."""
    store = history.empty()
    for bid, status in statuses.items():
        history.update(store, {bid: found(bid)}, {}, "n0", "c0")
        store["buckets"][bid]["status"] = status
    return store


def test_a_bucket_never_seen_is_new():
    store = history.empty()
    tonight = history.update(store, {"b": found("b")}, {}, "n1", "c1")
    e = store["buckets"]["b"]
    assert tonight == {"b": "new"}
    assert (e["status"], e["first_seen"], e["last_seen"], e["count"]) == ("new", "n1", "n1", 1)
    assert history.stored_input(e) == b"\x01\x02"


@pytest.mark.parametrize("before", ["new", "known"])
def test_found_again_is_known(before):
    store = store_with(b=before)
    assert history.update(store, {"b": found("b")}, {}, "n1", "c1") == {"b": "known"}
    e = store["buckets"]["b"]
    assert (e["status"], e["first_seen"], e["last_seen"], e["count"]) == ("known", "n0", "n1", 2)


def test_fixed_and_found_again_is_reopened_as_new():
    store = store_with(b="fixed")
    store["buckets"]["b"]["fixed_in"] = "abc123"
    assert history.update(store, {"b": found("b")}, {}, "n1", "c1") == {"b": "reopened"}
    e = store["buckets"]["b"]
    assert (e["status"], e["reopened"], e["reopened_after"]) == ("new", "n1", "abc123")


def test_known_upstream_stays_when_found():
    store = store_with(b="known upstream")
    assert history.update(store, {"b": found("b")}, {}, "n1", "c1") == {"b": "known upstream"}
    assert store["buckets"]["b"]["status"] == "known upstream" and store["buckets"]["b"]["count"] == 2


@pytest.mark.parametrize("before,after", [("new", "known"), ("known", "known"), ("known upstream", "known upstream")])
def test_recheck_still_failing(before, after):
    store = store_with(b=before)
    tonight = history.update(store, {}, {"b": Recheck(FAILS, "still fails", "ci/repro.sh x/input")}, "n1", "c1")
    e = store["buckets"]["b"]
    assert tonight == {"b": after}
    assert (e["status"], e["last_seen"], e["count"], e["repro"]) == (after, "n1", 2, "ci/repro.sh x/input")


@pytest.mark.parametrize("before", ["new", "known", "known upstream"])
def test_recheck_passing_is_fixed_with_the_commit(before):
    store = store_with(b=before)
    assert history.update(store, {}, {"b": Recheck(PASSES)}, "n1", "deadbee") == {"b": "fixed"}
    e = store["buckets"]["b"]
    assert (e["status"], e["fixed_in"], e["fixed_on"], e["last_seen"], e["count"]) == ("fixed", "deadbee", "n1", "n0", 1)


@pytest.mark.parametrize("outcome", [ERROR, NOT_CHECKED])
def test_recheck_error_or_not_checked_changes_no_status(outcome):
    store = store_with(b="known")
    assert history.update(store, {}, {"b": Recheck(outcome, "why")}, "n1", "c1") == {"b": outcome}
    e = store["buckets"]["b"]
    assert (e["status"], e["last_seen"], e["count"]) == ("known", "n0", 1)
    assert e["last_check"] == {"night": "n1", "outcome": outcome, "detail": "why"}


def test_fixed_buckets_are_not_open_and_cannot_be_rechecked():
    store = store_with(a="fixed", b="known", c="new", d="known upstream")
    assert [e["bucket_id"] for e in history.open_buckets(store)] == ["b", "c", "d"]
    with pytest.raises(ValueError):
        history.update(store, {}, {"a": Recheck(PASSES)}, "n1", "c1")
    with pytest.raises(ValueError):
        history.update(store, {"b": found("b")}, {"b": Recheck(PASSES)}, "n1", "c1")


def test_missing_or_corrupt_stored_input_is_an_error():
    e = found("b")
    del e["input_b64"]
    with pytest.raises(history.HistoryError, match="no stored input"):
        history.stored_input(e)
    e = found("b")
    e["input_sha1"] = "0" * 40
    with pytest.raises(history.HistoryError, match="sha1"):
        history.stored_input(e)


@pytest.mark.parametrize("tonight,fail_on,broken,code", [
    ({}, "any", False, 0),
    ({}, "new", True, 1),                                  # a broken step always fails
    ({"a": "new"}, "new", False, 1),
    ({"a": "reopened"}, "new", False, 1),
    ({"a": "known"}, "new", False, 0),                     # only new ones fail with --fail-on new
    ({"a": "known"}, "any", False, 1),
    ({"a": "known upstream"}, "any", False, 0),            # tracked elsewhere: reported, never red
    ({"a": "fixed"}, "any", False, 0),
    ({"a": "not checked"}, "any", False, 0),
    ({"a": "error"}, "new", False, 1),                     # an input that cannot be re-run is never a pass
    ({"a": "fixed", "b": "error"}, "any", False, 1),
])
def test_exit_status(tonight, fail_on, broken, code):
    assert history.exit_status(tonight, fail_on, broken) == code


def test_exit_status_refuses_an_unknown_mode():
    with pytest.raises(ValueError):
        history.exit_status({}, "some", False)


def test_save_load_round_trip_and_validation(tmp_path):
    path = tmp_path / "h" / "history.json"
    assert history.load(path) == history.empty()       # first night: no file yet
    store = store_with(b="known")
    history.save(store, path)
    assert history.load(path) == store
    path.write_text(json.dumps({"format": "other", "buckets": {}}))
    with pytest.raises(history.HistoryError, match="format"):
        history.load(path)
    bad = store_with(b="known")
    bad["buckets"]["b"]["status"] = "maybe"
    path.write_text(json.dumps(bad))
    with pytest.raises(history.HistoryError, match="unknown status"):
        history.load(path)
    path.write_text("{not json")
    with pytest.raises(history.HistoryError, match="not JSON"):
        history.load(path)


def test_import_merges_by_latest_night_or_replaces(tmp_path):
    mine, theirs = tmp_path / "mine.json", tmp_path / "theirs.json"
    a = store_with(x="known", y="new")
    history.save(a, mine)
    b = store_with(x="known", z="new")
    history.update(b, {}, {"x": Recheck(PASSES)}, "n5", "c5")   # theirs: x fixed later
    history.save(b, theirs)
    merged = history.import_file(theirs, mine)
    assert sorted(merged["buckets"]) == ["x", "y", "z"] and merged["buckets"]["x"]["status"] == "fixed"
    replaced = history.import_file(theirs, mine, replace=True)
    assert sorted(replaced["buckets"]) == ["x", "z"]
    (tmp_path / "junk.json").write_text('{"format": "x"}')
    with pytest.raises(history.HistoryError):
        history.import_file(tmp_path / "junk.json", mine)


def test_failing_groups():
    g = history.failing({"a": "new", "b": "reopened", "c": "known", "d": "fixed", "e": "error"})
    assert g["new"] == ["a", "b"] and g["known"] == ["c"] and g["fixed"] == ["d"] and g["error"] == ["e"]
