"""ci/repro.sh on an input of a c10 target (c10_registration_fuzzer): besides the run and the
decoded actions, the standalone C++ program against libtorch's public API that reproduces it
(`<target> --print-cpp`, fuzz/c10/libtorch_program.h), built with g++ against libtorch-dev and
run. No regression test is written: the program is the thing to attach to an upstream report,
and fuzz/c10/known_upstream.md is where a confirmed bug goes."""
import subprocess
from pathlib import Path
from typing import Callable

# Debian 12's libtorch-dev: headers under /usr/include (torch/library.h needs the csrc/api dir).
LIBTORCH_FLAGS = ["-std=c++20",   # 2.x headers need C++20 (1.13 builds with it too)
                  "-I/usr/include/torch/csrc/api/include", "-ltorch_cpu", "-lc10"]
MARKER = "// dispatch-fuzz-cpp: libtorch"
REPRODUCED = 1   # the program's exit status when checkInvariants fails or a guard leaks keys


def write_program(binary: Path, input_file: Path, out: Path, env: dict) -> str:
    """Writes the program to `out`; returns "" or what went wrong."""
    r = subprocess.run([str(binary), "--print-cpp", str(input_file)], capture_output=True, text=True, env=env)
    if r.returncode != 0 or not r.stdout.startswith(MARKER):
        return f"{binary.name} --print-cpp failed (exit {r.returncode}): {r.stderr[-400:]}"
    out.write_text(r.stdout[len(MARKER) + 1:])
    return ""


def show(binary: Path, input_file: Path, logdir: Path, env: dict, section: Callable[[str], None],
         say: Callable[[str], None]) -> int:
    """Writes, builds and runs the program; returns its exit status (REPRODUCED when it shows the
    bug), or -1 when it could not be written or built."""
    cpp, exe = logdir / "repro.cpp", logdir / "repro"
    problem = write_program(binary, input_file, cpp, env)
    if problem:
        say(problem)
        return -1
    section(f"standalone program against libtorch: {cpp}")
    print(cpp.read_text(), end="", flush=True)
    build = subprocess.run(["g++", str(cpp), "-o", str(exe), *LIBTORCH_FLAGS], capture_output=True, text=True)
    if build.returncode != 0:
        say(f"the program does not build against libtorch-dev (ci/setup.sh --with-libtorch):\n{build.stderr[-2000:]}")
        return -1
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    section(f"its run ({exe}, exit status {run.returncode})")
    lines = (run.stdout + run.stderr).splitlines()
    print("\n".join(lines[:40] + ([f"... ({len(lines) - 40} more lines)"] if len(lines) > 40 else [])), flush=True)
    say("the program reproduces the bug against libtorch (exit 1)" if run.returncode == REPRODUCED
        else f"the program does NOT reproduce the bug against libtorch (exit {run.returncode})")
    return run.returncode
