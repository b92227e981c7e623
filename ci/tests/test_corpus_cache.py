"""The nightly corpus cache: restore adds only new files; save never caches a canary run."""
from dispatch_ci.jobs import corpus_cache


def _say(lines):
    return lines.append


def test_restore_adds_only_missing_files(tmp_path):
    cache, corpus = tmp_path / "cache", tmp_path / "corpus"
    (cache / "t").mkdir(parents=True)
    (cache / "t" / "a").write_text("cached a")
    (cache / "t" / "b").write_text("b")
    (corpus / "t").mkdir(parents=True)
    (corpus / "t" / "a").write_text("committed a")
    lines = []
    assert corpus_cache.restore(cache, corpus, _say(lines)) == 0
    assert (corpus / "t" / "a").read_text() == "committed a" and (corpus / "t" / "b").read_text() == "b"
    assert lines[-1] == "added 1 cached inputs to fuzz/corpus/"
    assert corpus_cache.restore(tmp_path / "missing", corpus, _say(lines)) == 0


def _latest(tmp_path, canary):
    latest = tmp_path / "latest"
    (latest / "corpus" / "t").mkdir(parents=True)
    (latest / "corpus" / "t" / "x").write_text("x")
    (latest / "state").mkdir()
    (latest / "state" / "meta.tsv").write_text(f"budget\t60\ncanary\t{canary}\n")
    return latest


def test_save_replaces_the_cache(tmp_path):
    cache = tmp_path / "cache"
    (cache / "old").mkdir(parents=True)
    corpus_cache.save(cache, _latest(tmp_path, "none"), _say([]))
    assert (cache / "t" / "x").is_file() and not (cache / "old").exists()


def test_a_canary_run_is_never_cached(tmp_path):
    cache = tmp_path / "cache"
    (cache / "old").mkdir(parents=True)
    lines = []
    corpus_cache.save(cache, _latest(tmp_path, "mobile_fallback_overflow"), _say(lines))
    assert (cache / "old").is_dir() and not (cache / "t").exists()
    assert "canary run" in lines[-1]
