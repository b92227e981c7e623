#!/usr/bin/env bash
# ci/lib/replay_corpus_cache.sh -- carries the merged fuzz corpus from one CI night to the next
# (.github/workflows/nightly.yml; the cache itself is actions/cache on CACHE_DIR).
#
#   ci/lib/replay_corpus_cache.sh restore CACHE_DIR
#       adds CACHE_DIR/<target>/* to fuzz/corpus/<target>/ (files not there yet), so that
#       ci/nightly.sh starts from the committed corpus plus last night's merged one.
#       Only for a throw-away CI checkout: it writes into fuzz/corpus/.
#   ci/lib/replay_corpus_cache.sh save CACHE_DIR
#       replaces CACHE_DIR with the merged corpus of the last run (build/nightly/latest/corpus/),
#       unless that run was a canary run or has no corpus.
#
# A missing or empty CACHE_DIR is fine (first night, or an expired cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; }
if (($# != 2)) || [[ "$1" != restore && "$1" != save ]]; then
  usage >&2
  exit 2
fi
verb="$1"
cache="$2"
say() { printf '==> [replay_corpus_cache %s] %s\n' "$verb" "$*"; }

if [[ "$verb" == restore ]]; then
  if [[ ! -d "$cache" ]]; then
    say "no cache at $cache (first run or expired): starting from fuzz/corpus/ only"
    exit 0
  fi
  added=0
  for d in "$cache"/*/; do
    [[ -d "$d" ]] || continue
    t="$(basename "$d")"
    mkdir -p "fuzz/corpus/$t"
    n=0
    for f in "$d"*; do
      [[ -f "$f" ]] || continue
      if [[ ! -e "fuzz/corpus/$t/$(basename "$f")" ]]; then
        cp "$f" "fuzz/corpus/$t/"
        n=$((n + 1))
      fi
    done
    say "$t: +$n inputs from the cache"
    added=$((added + n))
  done
  say "added $added cached inputs to fuzz/corpus/"
  exit 0
fi

latest="build/nightly/latest"
if [[ ! -d "$latest/corpus" ]]; then
  say "no $latest/corpus: cache left as it is"
  exit 0
fi
canary="$(awk -F'\t' '$1 == "canary" { print $2 }' "$latest/state/meta.tsv" 2>/dev/null || true)"
if [[ -n "$canary" && "$canary" != none ]]; then
  say "the last run was a canary run: its corpus is not cached"
  exit 0
fi
if [[ -z "$(find "$latest/corpus" -type f -print -quit)" ]]; then
  say "$latest/corpus is empty: cache left as it is"
  exit 0
fi
rm -rf "$cache"
mkdir -p "$(dirname "$cache")"
cp -rL "$latest/corpus" "$cache"
say "cached $(find "$cache" -type f | wc -l) inputs of $(find "$cache" -mindepth 1 -maxdepth 1 -type d | wc -l) targets in $cache"
