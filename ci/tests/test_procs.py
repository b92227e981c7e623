import sys
import time

from dispatch_ci import procs


def test_output_goes_to_log_and_callback(tmp_path):
    seen = []
    log = tmp_path / "out.log"
    r = procs.run([sys.executable, "-c", "print('a'); print('b'); raise SystemExit(3)"],
                  log=log, on_line=seen.append)
    assert (r.returncode, r.timed_out, r.ok) == (3, False, False)
    assert seen == ["a", "b"] and log.read_text() == "a\nb\n"


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "child-survived"
    # The child of the child would write the marker after 3 s if the group were not killed.
    script = (f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
              f"\"import time; time.sleep(3); open(r'{marker}', 'w')\"]); import time; time.sleep(60)")
    start = time.monotonic()
    r = procs.run([sys.executable, "-c", script], timeout=1)
    assert r.timed_out and r.returncode == procs.TIMED_OUT and not r.ok
    assert time.monotonic() - start < 10
    time.sleep(3.5)
    assert not marker.exists()


def test_idle_timeout_counts_only_progress_lines():
    script = "import time\nwhile True:\n    print('noise', flush=True)\n    time.sleep(0.1)\n"
    r = procs.run([sys.executable, "-c", script], idle_timeout=1,
                  progress=lambda line: line.startswith("Running: "), timeout=20)
    assert r.timed_out and r.seconds < 10


def test_progress_lines_keep_a_run_alive():
    script = ("import time\nfor i in range(6):\n    print('Running: x', flush=True)\n"
              "    time.sleep(0.4)\n")
    r = procs.run([sys.executable, "-c", script], idle_timeout=1,
                  progress=lambda line: line.startswith("Running: "))
    assert r.ok


def test_kill_all_groups_ends_running_children():
    import threading
    result = {}
    t = threading.Thread(target=lambda: result.update(r=procs.run([sys.executable, "-c", "import time; time.sleep(60)"])))
    start = time.monotonic()
    t.start()
    time.sleep(1)
    procs.kill_all_groups()
    t.join(20)
    assert result["r"].returncode == 128 + 9 and time.monotonic() - start < 15


def test_a_command_that_cannot_start_is_127(tmp_path):
    r = procs.run([str(tmp_path / "no-such-binary")], log=tmp_path / "log")
    assert r.returncode == 127 and "cannot run" in (tmp_path / "log").read_text()
