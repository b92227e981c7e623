"""The committed start-up workload table is the one bench/run.sh writes (dispatch_ci.workload_tables)."""
import copy
import json
import re

import pytest

from dispatch_ci import bench_tables, paths, workload_tables
from dispatch_ci.bench_tables import ResultsError


def test_committed_table_matches_the_newest_kept_run():
    runs = workload_tables.kept_runs()
    assert workload_tables.BENCH_README.read_text() == workload_tables.expected_readme(runs), (
        "bench/run.sh --section workload writes it; to rewrite it from the kept runs: "
        "PYTHONPATH=ci python3 -m dispatch_ci.workload_tables record")


def test_committed_goal_lines_are_the_newest_runs_figures():
    """Read back from the README, independently of the renderer."""
    data = json.loads(workload_tables.kept_runs()[-1].read_text())
    begin, end = bench_tables._markers(workload_tables.BLOCK_WORKLOAD)
    block = workload_tables.BENCH_README.read_text().split(begin)[1].split(end)[0]
    for release in data["releases"]:
        full = next(r for r in release["rows"] if r["system"] == "ours" and r["flavour"] == "full")
        c10 = next(r for r in release["rows"] if r["system"] == "c10")
        cells = re.findall(rf"^\| ours, full \| [^|]+ \| [^|]+ \| ([\d,]+) \|", block.split(
            f"**libtorch {release['release']}**")[1], re.M)
        assert int(cells[0].replace(",", "")) == full["instructions"]
        verdict = "yes" if full["instructions"] <= c10["instructions"] else "no"
        assert f"Goal, libtorch {release['release']}: ours <= c10 in instructions, full flavour: {verdict}" in block


def ours(flavour="full", instructions=100):
    return {"system": "ours", "flavour": flavour, "calls_made": 10, "calls_refused": 0, "calls_skipped": 1,
            "operators": 4, "best_ns": 2_000_000, "median_ns": 3_000_000, "instructions": instructions,
            "heap_retained_bytes": 400, "bytes_per_operator": 100, "invariants": "hold"}


def c10(instructions=200):
    return {"system": "c10", "flavour": "full", "calls": 11, "recorded_ns": 5_000_000,
            "instructions": instructions, "heap_retained_bytes": 800, "bytes_per_operator": 200}


def run_file(commit="abc1234", ours_instr=100, c10_instr=200):
    return {"run": {"date": "2026-12-05 12:30 UTC", "commit": commit, "command": "bench/workload_bench.sh",
                    "runs": 5, "compiler": "g++ -O2", "cpu": "Test CPU", "load_average": "0.1 0.2 0.3"},
            "releases": [{"release": "2.14", "rows": [ours(instructions=ours_instr), ours("mobile"),
                                                      c10(c10_instr)]}]}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n" + "\n".join(bench_tables._markers(workload_tables.BLOCK_WORKLOAD)) + "\nend\n")
    kept = tmp_path / "workload"
    kept.mkdir()
    monkeypatch.setattr(workload_tables, "BENCH_README", readme)
    monkeypatch.setattr(workload_tables, "WORKLOAD_DIR", kept)
    monkeypatch.setattr(paths, "rel", lambda p: str(p))

    def keep(name, data):
        (kept / name).write_text(json.dumps(data))
    return readme, kept, keep


def test_record_writes_the_goal_and_check_then_passes_and_a_hand_edit_fails(tree):
    readme, kept, keep = tree
    keep("2026-12-05T1230Z-abc1234.json", run_file())
    assert workload_tables.main(["record"]) == 0
    text = readme.read_text()
    assert "Goal, libtorch 2.14: ours <= c10 in instructions, full flavour: yes (ours/c10 0.50" in text
    assert "| ours, mobile |" in text and text.startswith("intro\n") and text.endswith("\nend\n")
    assert "over the kept runs" not in text
    assert workload_tables.main(["check"]) == 0
    readme.write_text(text.replace("| ours, full | 10 made", "| ours, full | 9 made"))
    assert workload_tables.main(["check"]) == 1


def test_more_instructions_than_c10_is_a_no_and_a_missing_figure_is_not_measured(tree):
    _, kept, keep = tree
    keep("2026-12-05T1230Z-abc1234.json", run_file(ours_instr=300))
    assert "full flavour: no (ours/c10 1.50" in workload_tables.expected_readme(workload_tables.kept_runs(kept))
    keep("2026-12-05T1231Z-abc1235.json", run_file(commit="abc1235", c10_instr=None))
    text = workload_tables.expected_readme(workload_tables.kept_runs(kept))
    assert "full flavour: not measured." in text and "| c10 | 11 recorded | 5.0 (one run) | not measured |" in text


def test_the_kept_runs_are_the_history_oldest_first(tree):
    _, kept, keep = tree
    keep("2026-12-05T1330Z-new2222.json", run_file(commit="new2222", ours_instr=100_000_000))
    keep("2026-12-05T1230Z-old1111.json", run_file(commit="old1111", ours_instr=400_000_000))
    text = workload_tables.expected_readme(workload_tables.kept_runs(kept))
    assert "commit new2222" in text
    assert "instructions over the kept runs (oldest first): 400.0M (old1111) -> 100.0M (new2222)." in text


@pytest.mark.parametrize("damage", [
    lambda d: d["releases"][0]["rows"].pop(),                       # no c10 row
    lambda d: d["releases"][0]["rows"].pop(0),                      # no full row of ours
    lambda d: d["releases"][0]["rows"][0].pop("invariants"),        # a row lacks a figure
    lambda d: d["run"].pop("commit"),                               # run metadata incomplete
    lambda d: d["releases"].clear(),                                # no release
])
def test_an_incomplete_run_is_an_error_never_a_table(tree, damage):
    readme, _, keep = tree
    data = copy.deepcopy(run_file())
    damage(data)
    keep("2026-12-05T1230Z-abc1234.json", data)
    before = readme.read_text()
    assert workload_tables.main(["record"]) == 1
    assert readme.read_text() == before


def test_no_kept_run_or_no_block_is_an_error(tree):
    readme, _, keep = tree
    assert workload_tables.main(["check"]) == 1
    keep("2026-12-05T1230Z-abc1234.json", run_file())
    readme.write_text("no markers here\n")
    assert workload_tables.main(["record"]) == 1
