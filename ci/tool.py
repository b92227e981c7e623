#!/usr/bin/env python3
"""ci/tool.py -- the CI tool: one entry point, one subcommand per job (`ci/tool.py --help`).

The ci/*.sh scripts are one-line wrappers around it so workflows and users keep their commands.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dispatch_ci.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
