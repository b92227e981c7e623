"""ci/test.sh and ci/nightly.sh on a machine without python3: they say so and stop under
--no-setup (without it they run ci/setup.sh first, which is not run here: it installs)."""
import os
import shutil
import subprocess

import pytest

from dispatch_ci import paths


@pytest.mark.parametrize("wrapper", ["test.sh", "nightly.sh"])
def test_no_python3_and_no_setup_stops_with_a_message(tmp_path, wrapper):
    for tool in ("dirname", "basename"):   # what the wrapper needs, and no python3
        os.symlink(shutil.which(tool), tmp_path / tool)
    r = subprocess.run([shutil.which("bash"), str(paths.CI / wrapper), "--no-setup"], capture_output=True,
                       text=True, env={"PATH": str(tmp_path)}, timeout=60)
    assert r.returncode == 1
    assert "python3 is not installed and --no-setup was given" in r.stderr
