#!/usr/bin/env bash
# bench/bug_benchmark.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/bug_benchmark.py (`bench/bug_benchmark.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../ci/tool.py" bug-benchmark "$@"
