#!/usr/bin/env bash
# ci/replay.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/replay.py (`ci/replay.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" replay "$@"
