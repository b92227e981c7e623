"""Running commands: in their own process group (so a timeout kills the whole tree), with
output to a log, optionally streamed line by line, with a wall-clock and an idle limit."""
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

TIMED_OUT = 124  # the exit code `timeout` uses; jobs report it as "killed"

# Every child runs in its own process group (a timeout must kill its whole tree), so a signal
# to this tool does not reach them: the groups still running are kept here, and
# kill_all_groups() ends them when the tool itself is stopped.
_live = set()
_live_lock = threading.Lock()


def kill_all_groups() -> None:
    with _live_lock:
        groups = list(_live)
    for pid in groups:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass
class Result:
    returncode: int
    timed_out: bool
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def kill_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """TERM the process group, then KILL it if it has not gone after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run(cmd: Sequence[str], *, log: Optional[Path] = None, append: bool = False,
        on_line: Optional[Callable[[str], None]] = None, timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None, progress: Optional[Callable[[str], bool]] = None,
        env: Optional[dict] = None, cwd: Optional[Path] = None, nice: int = 0,
        stdin=subprocess.DEVNULL) -> Result:
    """Runs `cmd` in a new process group, stdout+stderr merged.

    Every output line goes to `log` (if given) and to `on_line` (if given). The group is killed
    after `timeout` seconds in all, or after `idle_timeout` seconds without a line for which
    `progress(line)` is true (every line counts when `progress` is None). A killed run returns
    returncode TIMED_OUT and timed_out=True; one that died of signal N returns 128+N. A command
    that cannot be started returns 127 (the message goes to the log).
    """
    if nice:
        cmd = ["nice", "-n", str(nice), *cmd]
    start = time.monotonic()
    last_progress = [start]
    log_file = open(log, "a" if append else "w", encoding="utf-8", errors="replace") if log else None
    try:
        proc = subprocess.Popen(list(map(str, cmd)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=stdin, env=env, cwd=cwd, start_new_session=True)
    except OSError as e:
        if log_file:
            log_file.write(f"cannot run {cmd[0]}: {e}\n")
            log_file.close()
        return Result(127, False, 0.0)

    def pump():
        for raw in proc.stdout:
            line = raw.decode("utf-8", errors="replace")
            if log_file:
                log_file.write(line)
                log_file.flush()
            if progress is None or progress(line.rstrip("\n")):
                last_progress[0] = time.monotonic()
            if on_line:
                on_line(line.rstrip("\n"))

    with _live_lock:
        _live.add(proc.pid)
    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if (timeout is not None and now - start > timeout) or \
               (idle_timeout is not None and now - last_progress[0] > idle_timeout):
                timed_out = True
                kill_group(proc)
                break
            time.sleep(0.2)
    except BaseException:
        kill_group(proc)
        raise
    finally:
        reader.join(timeout=10)
        if log_file:
            log_file.close()
    rc = TIMED_OUT if timed_out else proc.wait()
    with _live_lock:
        _live.discard(proc.pid)
    if rc < 0:
        rc = 128 - rc   # died of signal N: the shell's 128+N
    return Result(rc, timed_out, time.monotonic() - start)


def capture(cmd: Sequence[str], *, env: Optional[dict] = None, cwd: Optional[Path] = None,
            timeout: Optional[float] = 600) -> subprocess.CompletedProcess:
    """Runs a short command and returns its text output (stdout; stderr kept apart)."""
    return subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True)
