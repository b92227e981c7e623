#!/usr/bin/env bash
# ci/repro.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/repro.py (`ci/repro.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" repro "$@"
