#!/usr/bin/env bash
# bench/premerge_depth.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/premerge_depth.py (`bench/premerge_depth.sh --help`).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../ci/tool.py" premerge-depth "$@"
