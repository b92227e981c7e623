#!/usr/bin/env bash
# ci/lib/replay_corpus_cache.sh -- wrapper: the job lives in ci/dispatch_ci/jobs/corpus_cache.py
# (`ci/lib/replay_corpus_cache.sh --help`; .github/workflows/nightly.yml calls it).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../tool.py" corpus-cache "$@"
