#!/usr/bin/env bash
# ci/lib/nightly_history.sh import|export -- carries the nightly's crash history through a
# workflow cache: build/nightly-state/history.json <-> the store ci/nightly.sh uses
# (build/nightly/history.json). import with no cached file is the first night: it says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cached=build/nightly-state/history.json
case "${1:-}" in
  import)
    if [[ -f "$cached" ]]; then
      exec python3 ci/tool.py nightly-history import "$cached"
    fi
    echo "nightly_history.sh: no $cached in the cache: the first night starts an empty crash history"
    ;;
  export)
    exec python3 ci/tool.py nightly-history export "$cached"
    ;;
  *)
    echo "usage: ci/lib/nightly_history.sh import|export" >&2
    exit 2
    ;;
esac
