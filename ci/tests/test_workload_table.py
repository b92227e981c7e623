"""bench/workload_table.py (the start-up workload table of bench/run.sh --section workload):
the goal line follows the figures, a figure that was not measured is printed and stored as
"not measured" with its reason (never a number), and missing outputs are an error."""
import json
import subprocess
import sys

from dispatch_ci import paths

TABLE = paths.ROOT / "bench" / "workload_table.py"

OURS = ("flavour={flavour} runs=3 calls=100 made=100 refused=0 skipped={skipped} untranslated=0 rows=110 "
        "operators=20 best_ns=1000000 median_ns=1200000 heap_retained_bytes=40000 heap_peak_bytes=50000 "
        "c10_ns_replayed=2000000 c10_ns_all=2100000 invariants=hold\n")


def write_release(directory, c10_line, ours_instructions=500, skipped=0):
    directory.mkdir(parents=True)
    (directory / "ours.txt").write_text(OURS.format(flavour="full", skipped=skipped) +
                                        OURS.format(flavour="mobile", skipped=skipped))
    (directory / "ours_instructions.txt").write_text(
        f"flavour=full instructions={ours_instructions}\nflavour=mobile not_measured=callgrind failed: boom\n")
    (directory / "c10.txt").write_text(c10_line + "\n")
    (directory / "c10_after_load.txt").write_text("operators 25\nkernels CPU 3\n")


def run(tmp_path, *releases):
    out = tmp_path / "workload.json"
    result = subprocess.run([sys.executable, str(TABLE), "--dir", str(tmp_path), "--runs", "3", "--out", str(out),
                             "--commit", "abc", "--command", "test", "--compiler", "g++ -O2", *releases],
                            capture_output=True, text=True)
    return result, (json.loads(out.read_text()) if out.exists() else None)


def test_the_goal_line_follows_the_instructions(tmp_path):
    write_release(tmp_path / "1.13", "release=1.13 instructions=1000 calls=110 heap_bytes=5000 heap_calls=110")
    write_release(tmp_path / "2.14", "release=2.14 instructions=400 calls=110 heap_bytes=5000 heap_calls=110",
                  skipped=10)
    result, data = run(tmp_path, "1.13", "2.14")
    assert result.returncode == 0, result.stderr
    assert "Goal, libtorch 1.13: ours <= c10 in instructions, full flavour: yes (ours/c10 0.50" in result.stdout
    assert "Goal, libtorch 2.14: ours <= c10 in instructions, full flavour: no (ours/c10 1.25" in result.stdout
    assert "10 on keys we lack are skipped" in result.stdout
    goals = [r["goal_instructions_full"] for r in data["releases"]]
    assert goals == [{"met": True, "ratio": 0.5}, {"met": False, "ratio": 1.25}]
    c10 = next(r for r in data["releases"][0]["rows"] if r["system"] == "c10")
    assert c10["heap_retained_bytes"] == 5000 and c10["bytes_per_operator"] == 200


def test_what_was_not_measured_says_why_and_is_no_number(tmp_path):
    write_release(tmp_path / "1.13", "release=1.13 instructions_not_measured=no build/workloads/1.13/load_libtorch")
    result, data = run(tmp_path, "1.13")
    assert result.returncode == 0, result.stderr
    assert "not measured (no build/workloads/1.13/load_libtorch)" in result.stdout
    assert "not measured (callgrind failed: boom)" in result.stdout
    assert "full flavour: not measured (no build/workloads/1.13/load_libtorch)" in result.stdout
    rows = data["releases"][0]["rows"]
    c10 = next(r for r in rows if r["system"] == "c10")
    mobile = next(r for r in rows if r.get("flavour") == "mobile")
    assert c10["instructions"] is None and c10["heap_retained_bytes"] is None
    assert mobile["instructions"] is None and mobile["instructions_not_measured"] == "callgrind failed: boom"
    assert data["releases"][0]["goal_instructions_full"] == {"met": None, "ratio": None}


def test_a_heap_figure_of_another_load_is_not_used(tmp_path):
    write_release(tmp_path / "1.13", "release=1.13 instructions=1000 calls=110 heap_bytes=5000 heap_calls=99")
    result, data = run(tmp_path, "1.13")
    assert result.returncode == 0, result.stderr
    c10 = next(r for r in data["releases"][0]["rows"] if r["system"] == "c10")
    assert c10["heap_retained_bytes"] is None and "made 99 calls" in c10["heap_not_measured"]


def test_missing_outputs_are_an_error(tmp_path):
    (tmp_path / "1.13").mkdir()
    (tmp_path / "1.13" / "ours.txt").write_text("")
    result, _ = run(tmp_path, "1.13")
    assert result.returncode != 0
