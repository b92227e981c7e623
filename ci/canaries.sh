#!/usr/bin/env bash
# ci/canaries.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/canaries.py (`ci/canaries.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" canaries "$@"
