#!/usr/bin/env bash
# ci/ossfuzz_check.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/ossfuzz_check.py (`ci/ossfuzz_check.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" ossfuzz_check "$@"
