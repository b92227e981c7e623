"""The committed benchmark tables are the ones bench/run.sh writes (dispatch_ci.bench_tables)."""
import json
import re

import pytest

from dispatch_ci import bench_tables, paths
from dispatch_ci.bench_tables import ResultsError


def test_committed_tables_match_the_newest_results_file():
    source = bench_tables.newest()
    assert bench_tables.stale(source) == [], (
        "bench/run.sh writes them; to rewrite them from the kept file: "
        f"PYTHONPATH=ci python3 -m dispatch_ci.bench_tables record {paths.rel(source)}")


def test_readme_headline_figures_are_those_of_the_results_file():
    """Read back from the README, independently of the renderer: each number is in the file."""
    data = bench_tables.load(bench_tables.newest())
    readme = bench_tables.TOP_README.read_text()
    begin, end = bench_tables._markers(bench_tables.BLOCK_HEADLINE)
    block = readme.split(begin)[1].split(end)[0]
    rows = {r["case"]: r for r in data["rows"]}
    cells = re.findall(r"^\| (typed call, instructions/op[^|]*) \| ([\d,.]+) \| ([\d,.]+) \|$", block, re.M)
    assert len(cells) == 1
    _, full, mobile = cells[0]
    assert int(full.replace(",", "")) == rows["typed unboxed call, full"]["instructions_per_op"]
    assert int(mobile.replace(",", "")) == rows["typed unboxed call, mobile"]["instructions_per_op"]
    sizes = re.findall(r"^\| operator entry, bytes \(sizeof\) \| ([\d,]+) \| ([\d,]+) \|$", block, re.M)
    assert sizes == [(f"{rows['sizeof(OperatorEntry), full']['bytes']:,}",
                      f"{rows['sizeof(OperatorEntry), mobile']['bytes']:,}")]


def run_meta(**changes):
    run = {"date": "2026-12-05 12:30 UTC", "commit": "abc1234", "cpu": "Test CPU", "nproc": 2,
           "load_average": "0.10 0.20 0.30", "compiler": "g++ -O2 -DNDEBUG",
           "command": "bench/run.sh --section dispatch"}
    run.update(changes)
    return run


def row(case, ns=None, ratio=None, instr=None, nbytes=None):
    return {"case": case, "flavour": None, "ns_per_op": ns, "ratio_to_direct": ratio,
            "instructions_per_op": instr, "bytes": nbytes}


def complete_rows():
    rows = [row(bench_tables.DIRECT_CASE, 1.1, 1.0, 9)]
    for _, full, mobile, field in bench_tables.HEADLINE:
        for case, value in ((full, 30), (mobile, 31)):
            if not any(r["case"] == case for r in rows):
                rows.append(row(case, **({"nbytes": value * 10} if field == "bytes" else
                                         {"ns": 1.7, "ratio": 1.5, "instr": value})))
    return rows


@pytest.fixture
def tree(tmp_path):
    marker = lambda name: "\n".join(bench_tables._markers(name))  # noqa: E731
    bench = tmp_path / "bench.md"
    bench.write_text(f"# Benchmarks\n\n{marker(bench_tables.BLOCK_RESULTS)}\n\nMethod.\n")
    top = tmp_path / "README.md"
    top.write_text(f"# dispatch\n\n{marker(bench_tables.BLOCK_HEADLINE)}\n")
    results = tmp_path / "results"
    results.mkdir()
    return tmp_path, bench, top, results


def write(path, run, rows):
    path.write_text(json.dumps({"run": run, "rows": rows}))
    return path


def test_written_blocks_then_check_clean_and_a_hand_edit_is_stale(tree):
    root, bench, top, results = tree
    source = write(results / "2026-12-05T1230Z-abc1234.json", run_meta(), complete_rows())
    for path, text in bench_tables.expected_files(source, bench, top):
        path.write_text(text)
    assert "| typed call, instructions/op (direct call: 9) | 30 | 31 |" in top.read_text()
    assert "| sizeof(OperatorEntry), full | 300 |" in bench.read_text()
    assert bench_tables.stale(source, bench, top) == []
    top.write_text(top.read_text().replace("| 30 | 31 |", "| 49 | 71 |"))
    assert bench_tables.stale(source, bench, top) == [str(top)]


def test_a_newer_results_file_makes_the_old_tables_stale(tree):
    root, bench, top, results = tree
    old = write(results / "2026-12-04T0900Z-aaaaaaa.json", run_meta(), complete_rows())
    for path, text in bench_tables.expected_files(old, bench, top):
        path.write_text(text)
    rows = complete_rows()
    rows[1]["instructions_per_op"] = 28
    write(results / "2026-12-05T1230Z-bbbbbbb.json", run_meta(commit="bbbbbbb"), rows)
    assert bench_tables.newest(results).name.startswith("2026-12-05")
    assert len(bench_tables.stale(bench_tables.newest(results), bench, top)) == 2


def test_record_keeps_a_dated_copy(tree):
    root, bench, top, results = tree
    built = write(root / "results.json", run_meta(), complete_rows())
    stored = bench_tables.record(built, results, bench, top)
    assert stored == results / "2026-12-05T1230Z-abc1234.json"
    assert bench_tables.stale(stored, bench, top) == []
    top.write_text(top.read_text().replace("| 30 | 31 |", "| 49 | 71 |"))
    assert bench_tables.record(stored, results, bench, top) == stored   # the kept file itself
    assert bench_tables.stale(stored, bench, top) == []


@pytest.mark.parametrize("content, message", [
    (None, "no such results file"),
    ("not json", "not JSON"),
    (json.dumps([row("x")]), "expected an object"),
    (json.dumps({"run": {"date": "x"}, "rows": [row("x")]}), "run metadata lacks"),
    (json.dumps({"run": run_meta(), "rows": []}), "no rows"),
    (json.dumps({"run": run_meta(), "rows": [{"case": "x"}]}), "lacks flavour"),
])
def test_unusable_results_files_are_errors(tmp_path, content, message):
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ResultsError, match=message):
        bench_tables.load(path)


def test_no_results_file_is_an_error(tmp_path):
    with pytest.raises(ResultsError, match="no results file"):
        bench_tables.newest(tmp_path)


def test_a_missing_headline_row_is_an_error_not_a_dash(tree):
    root, bench, top, results = tree
    rows = [r for r in complete_rows() if r["case"] != "typed unboxed call, mobile"]
    source = write(results / "2026-12-05T1230Z-abc1234.json", run_meta(), rows)
    with pytest.raises(ResultsError, match="typed unboxed call, mobile"):
        bench_tables.expected_files(source, bench, top)


@pytest.mark.parametrize("text", ["no markers", "{b}\n{b}\n{e}", "{e}\n{b}"])
def test_a_missing_or_doubled_block_is_an_error(text):
    begin, end = bench_tables._markers("x")
    with pytest.raises(ResultsError, match="exactly one block"):
        bench_tables.replace_block(text.format(b=begin, e=end), "x", "body", "f.md")


def test_stored_name_needs_the_run_date_format():
    assert bench_tables.stored_name(run_meta()) == "2026-12-05T1230Z-abc1234.json"
    with pytest.raises(ResultsError):
        bench_tables.stored_name(run_meta(date="yesterday"))
