#!/usr/bin/env bash
# bench/bug_benchmark.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/bug_benchmark.py (`bench/bug_benchmark.sh --help`).
source "$(dirname "${BASH_SOURCE[0]}")/../ci/lib/python_first.sh"   # a fresh machine has no python3 yet
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../ci/tool.py" bug-benchmark "$@"
