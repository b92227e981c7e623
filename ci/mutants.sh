#!/usr/bin/env bash
# ci/mutants.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/mutants.py (`ci/mutants.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" mutants "$@"
