"""The sanitizer run-time environment every fuzzer, replay and re-run gets: what
sanitizer_builds/env.sh exports (its *.options files are the one source of truth)."""
import os
import subprocess
from typing import Dict, Optional

from . import paths


class EnvError(RuntimeError):
    pass


def sanitizer_env(base: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """`base` (default: this process's environment) plus the variables env.sh exports."""
    out = subprocess.run(["bash", "-c", 'source "$1" && env -0', "_", str(paths.SANITIZER_ENV)],
                         capture_output=True, env=dict(base if base is not None else os.environ),
                         stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise EnvError(f"{paths.rel(paths.SANITIZER_ENV)} failed: "
                       f"{out.stderr.decode(errors='replace').strip()}")
    env = {}
    for entry in out.stdout.decode(errors="replace").split("\0"):
        if "=" in entry:
            k, v = entry.split("=", 1)
            env[k] = v
    for noise in ("_", "SHLVL", "OLDPWD"):
        env.pop(noise, None)
    return env


def with_option(options: str, name: str, value: str) -> str:
    """A sanitizer's `name=value:...` options string with `name` set to `value`: the entry
    replaced where it stands, or appended when the string has none."""
    entries = [e for e in options.split(":") if e]
    if not any(e.partition("=")[0] == name for e in entries):
        return ":".join(entries + [f"{name}={value}"])
    return ":".join(f"{name}={value}" if e.partition("=")[0] == name else e for e in entries)
