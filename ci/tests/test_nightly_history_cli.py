"""`ci/tool.py nightly-history`: export / import / mark / show of the crash history file."""
import json
import os

import pytest

from dispatch_ci import cli
from dispatch_ci.nightly import history


@pytest.fixture(autouse=True)
def keep_cwd():
    cwd = os.getcwd()
    yield
    os.chdir(cwd)   # cli.main works from the repository root


def store_file(path, **statuses):
    store = history.empty()
    for bid, status in statuses.items():
        history.update(store, {bid: dict(bucket_id=bid, preset="full-fuzz", target="t",
                                         **history.encode_input(b"x"))}, {}, "n1", "c1")
        store["buckets"][bid]["status"] = status
    history.save(store, path)


def test_export_then_import_into_an_empty_store(tmp_path):
    src, cached, dest = tmp_path / "h.json", tmp_path / "cache" / "h.json", tmp_path / "new" / "h.json"
    store_file(src, a="known", b="fixed")
    assert cli.main(["nightly-history", "export", str(cached), "--history", str(src)]) == 0
    assert cli.main(["nightly-history", "import", str(cached), "--history", str(dest)]) == 0
    assert json.loads(dest.read_text()) == json.loads(src.read_text())


def test_export_of_a_missing_store_fails(tmp_path):
    assert cli.main(["nightly-history", "export", str(tmp_path / "out.json"),
                     "--history", str(tmp_path / "none.json")]) == 1


def test_import_refuses_a_file_that_is_not_a_history(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"buckets": {}}')
    assert cli.main(["nightly-history", "import", str(bad), "--history", str(tmp_path / "h.json")]) == 1
    assert cli.main(["nightly-history", "import", str(tmp_path / "missing.json"),
                     "--history", str(tmp_path / "h.json")]) == 1


def test_mark_known_upstream(tmp_path, capsys):
    path = tmp_path / "h.json"
    store_file(path, a="known")
    assert cli.main(["nightly-history", "mark", "a", "known upstream", "--note", "issue 1",
                     "--history", str(path)]) == 0
    entry = history.load(path)["buckets"]["a"]
    assert (entry["status"], entry["note"]) == ("known upstream", "issue 1")
    assert cli.main(["nightly-history", "mark", "a", "maybe", "--history", str(path)]) == 2
    assert cli.main(["nightly-history", "mark", "zz", "known", "--history", str(path)]) == 1
    assert cli.main(["nightly-history", "show", "--history", str(path)]) == 0
    assert "known upstream  a" in capsys.readouterr().out
