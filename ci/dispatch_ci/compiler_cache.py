"""ccache for the builds of near-identical scratch copies of the tree (the canary copies and
their baselines): with it, a copy compiles only the files its patch changed and takes every
other object from the copies built before it. Off when ccache is not installed; a launcher the
caller already chose (CMAKE_CXX_COMPILER_LAUNCHER) is left alone."""
import os
import shutil
from typing import Dict, List

from . import paths


def configure_args() -> List[str]:
    """The cmake arguments that put ccache in front of the compiler, or none."""
    if os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER") or not shutil.which("ccache"):
        return []
    return ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]


def build_env() -> Dict[str, str]:
    """The environment of a build: every copy lives in its own folder under the checkout, so
    ccache must hash paths relative to it (BASEDIR) and ignore the build folder (NOHASHDIR),
    or no copy would ever hit another's objects. The caller's own settings win."""
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", str(paths.ROOT))
    env.setdefault("CCACHE_NOHASHDIR", "true")
    return env
