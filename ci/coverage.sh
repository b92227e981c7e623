#!/usr/bin/env bash
# ci/coverage.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/coverage.py (`ci/coverage.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" coverage "$@"
