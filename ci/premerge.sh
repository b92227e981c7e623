#!/usr/bin/env bash
# ci/premerge.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/premerge.py (`ci/premerge.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" premerge "$@"
