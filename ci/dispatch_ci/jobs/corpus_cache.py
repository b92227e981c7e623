"""ci/lib/replay_corpus_cache.sh -- carries the merged fuzz corpus from one CI night to the next
(.github/workflows/nightly.yml; the cache itself is actions/cache on CACHE_DIR).

  ci/lib/replay_corpus_cache.sh restore CACHE_DIR
      adds CACHE_DIR/<target>/* to fuzz/corpus/<target>/ (files not there yet), so that
      ci/nightly.sh starts from the committed corpus plus last night's merged one.
      Only for a throw-away CI checkout: it writes into fuzz/corpus/.
  ci/lib/replay_corpus_cache.sh save CACHE_DIR
      replaces CACHE_DIR with the merged corpus of the last run (build/nightly/latest/corpus/),
      unless that run was a canary run or has no corpus.

A missing or empty CACHE_DIR is fine (first night, or an expired cache).
"""
import shutil
from pathlib import Path

from .. import paths
from ..nightly.run_folder import read_kv

SCRIPT = "ci/lib/replay_corpus_cache.sh"


def add_arguments(p):
    p.add_argument("verb", choices=("restore", "save"))
    p.add_argument("cache_dir")


def restore(cache: Path, corpus: Path, say) -> int:
    if not cache.is_dir():
        say(f"no cache at {cache} (first run or expired): starting from fuzz/corpus/ only")
        return 0
    added = 0
    for folder in sorted(d for d in cache.iterdir() if d.is_dir()):
        (corpus / folder.name).mkdir(parents=True, exist_ok=True)
        n = 0
        for f in sorted(p for p in folder.iterdir() if p.is_file()):
            if not (corpus / folder.name / f.name).exists():
                shutil.copyfile(f, corpus / folder.name / f.name)
                n += 1
        say(f"{folder.name}: +{n} inputs from the cache")
        added += n
    say(f"added {added} cached inputs to fuzz/corpus/")
    return 0


def save(cache: Path, latest: Path, say) -> int:
    merged = latest / "corpus"
    if not merged.is_dir():
        say(f"no {paths.rel(latest)}/corpus: cache left as it is")
        return 0
    canary = read_kv(latest / "state" / "meta.tsv").get("canary", "")
    if canary not in ("", "none"):
        say("the last run was a canary run: its corpus is not cached")
        return 0
    if not any(f.is_file() for f in merged.rglob("*")):
        say(f"{paths.rel(latest)}/corpus is empty: cache left as it is")
        return 0
    shutil.rmtree(cache, ignore_errors=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(merged.resolve(), cache)
    files = sum(1 for f in cache.rglob("*") if f.is_file())
    targets = sum(1 for d in cache.iterdir() if d.is_dir())
    say(f"cached {files} inputs of {targets} targets in {cache}")
    return 0


def run(args) -> int:
    def say(message):
        print(f"==> [replay_corpus_cache {args.verb}] {message}", flush=True)
    cache = paths.START_DIR / args.cache_dir
    if args.verb == "restore":
        return restore(cache, paths.FUZZ_CORPUS, say)
    return save(cache, paths.BUILD / "nightly" / "latest", say)
