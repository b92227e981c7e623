"""The nightly's progress line: log parsing, aggregation over campaigns, formatting, the ticker."""
import threading

from dispatch_ci.nightly import progress

LOG = """INFO: Seed: 1
#2\tINITED cov: 100 ft: 120 corp: 10/1Kb exec/s: 0 rss: 40Mb
#4096\tpulse  cov: 150 ft: 200 corp: 12/1Kb lim: 4 exec/s: 2048 rss: 41Mb
#8192\tNEW    cov: 170 ft: 230 corp: 13/1Kb lim: 4 exec/s: 2730 rss: 41Mb L: 3/4 MS: 1 ChangeBit-
"""


def test_log_stats_reads_the_last_status_line_and_the_final_stats():
    assert progress.log_stats("") == (0, 0)
    assert progress.log_stats(LOG) == (8192, 170)
    assert progress.log_stats(LOG + "stat::number_of_executed_units: 9000\n") == (9000, 170)


def test_aggregate_sums_execs_and_each_campaigns_best_cov():
    runs = {("full-fuzz", "a"): [(100, 50), (200, 70)], ("mobile-fuzz", "a"): [(10, 40)],
            ("full-fuzz", "b"): []}
    assert progress.aggregate(runs) == (310, 110)
    assert progress.aggregate({}) == (0, 0)


def test_format_line():
    line = progress.format_line(400, 95, 3600, "fuzz", 3, 10, 1234567, 812, 2)
    assert line == ("progress: 6m40s elapsed, budget 1m35s/1h00m | fuzz | campaigns 3/10 done | "
                    "execs 1,234,567 | cov 812 | failures 2")
    # during the builds the budget has not started and no campaign is planned yet
    assert progress.format_line(5, None, 60, "build", 0, 0, 0, 0, 0).startswith(
        "progress: 0m05s elapsed, budget not started | build | campaigns - |")


def test_duration():
    assert [progress.duration(s) for s in (0, 59, 61, 3599, 3600, 7265)] == \
        ["0m00s", "0m59s", "1m01s", "59m59s", "1h00m", "2h01m"]


def test_scan_reads_run_logs_and_counts_failure_artifacts(tmp_path):
    logs = tmp_path / "logs" / "fuzz" / "full-fuzz" / "keyset_fuzzer"
    logs.mkdir(parents=True)
    (logs / "w1-r1.log").write_text(LOG)
    (logs / "w1-r1.timeline.tsv").write_text("ignored")
    arts = tmp_path / "artifacts" / "full-fuzz" / "keyset_fuzzer"
    arts.mkdir(parents=True)
    for name in ("crash-1", "timeout-2", "slow-unit-3", "minimized-from-4"):
        (arts / name).write_text("x")
    runs, failures = progress.scan(tmp_path)
    assert runs == {("full-fuzz", "keyset_fuzzer"): [(8192, 170)]}
    assert failures == 2


def test_ticker_prints_a_line_each_interval_until_stopped(tmp_path):
    lines, ticked = [], threading.Event()

    def say(message):
        lines.append(message)
        if len(lines) >= 2:
            ticked.set()

    clock = iter(range(0, 10_000, 30)).__next__
    ticker = progress.Ticker(say, tmp_path, 600, interval=0.01, clock=clock,
                             scanner=lambda d: ({("p", "t"): [(5, 7)]}, 1))
    ticker.step, ticker.campaigns_total, ticker.campaigns_done = "fuzz", 4, 1
    ticker.start_budget()
    ticker.start()
    assert ticked.wait(5)
    ticker.stop()
    n = len(lines)
    assert lines[0].startswith("progress: ") and "| fuzz | campaigns 1/4 done | execs 5 | cov 7 | failures 1" in lines[0]
    assert "elapsed, budget " in lines[0] and "/10m00s |" in lines[0]
    assert len(lines) == n   # stopped: no more lines


def test_ticker_survives_an_unreadable_run_folder(tmp_path):
    lines = []
    done = threading.Event()

    def scanner(_):
        raise OSError("gone")

    def say(message):
        lines.append(message)
        done.set()

    ticker = progress.Ticker(say, tmp_path, 60, interval=0.01, scanner=scanner).start()
    assert done.wait(5)
    ticker.stop()
    assert "could not read the run folder" in lines[0]
