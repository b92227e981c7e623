#!/usr/bin/env bash
# ci/nightly.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/nightly.py (`ci/nightly.sh --help`).
source "$(dirname "${BASH_SOURCE[0]}")/lib/python_first.sh"   # a fresh machine has no python3 yet
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tool.py" nightly "$@"
