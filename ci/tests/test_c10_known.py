"""The c10 harness in ci/: known upstream signatures, their triage bucket and history status,
and the --system c10 nightly's paths."""
from pathlib import Path

from dispatch_ci import c10_known, paths
from dispatch_ci.nightly import history, systems, triage

STALE = """==== DISPATCH FUZZ BUG in c10_registration_fuzzer: c10 and model disagree
c10: step 1 (impl typed fz::op1 @ QuantizedXPU): impl typed: invariant check fails: dispatch_seam::op1: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED
  stale slots (1): AutogradOther (live: kernel k0; computed: ambiguous)
==== END DISPATCH FUZZ BUG
"""


def report(body: str, step_action: str = "impl typed", key: str = "QuantizedXPU") -> str:
    return f"DISPATCH-STEP flavour=c10 step=1 action={step_action} key={key} | x\n" + body


def test_signatures_file_parses_and_every_bug_is_documented():
    bugs = c10_known.read()
    assert {b for b, _ in bugs} >= {"stale-autogradother", "stale-autogradnestedtensor", "guard-backend-bits",
                                     "alias-fallback-moved-kernel", "stale-after-compositeexplicitautograd"}
    doc = (paths.FUZZ / "c10" / "known_upstream.md").read_text()
    for bug_id, terms in bugs:
        assert f"`{bug_id}`" in doc, f"{bug_id} is not in known_upstream.md"
        assert all(t == t.rstrip() for t in terms), f"{bug_id}: a term ends in blanks"


def test_known_bug_needs_every_term():
    bugs = [("b", ["alpha", "beta gamma"])]
    assert c10_known.known_bug("x alpha y beta gamma", bugs) == "b"
    assert c10_known.known_bug("x alpha y beta", bugs) is None


def test_stale_autogradother_but_not_a_second_stale_slot():
    assert c10_known.known_bug(STALE) == "stale-autogradother"
    two = STALE.replace("stale slots (1): AutogradOther (live: kernel k0; computed: ambiguous)",
                        "stale slots (2): AutogradOther (live: kernel k0; computed: ambiguous), CPU (live: missing; computed: kernel k1)")
    assert c10_known.known_bug(two) is None


def test_triage_buckets_a_known_bug_once_whatever_the_key():
    a = triage.classify(report(STALE, key="QuantizedXPU"), "crash", "c10")
    b = triage.classify(report(STALE.replace("QuantizedXPU", "SparseCPU"), key="SparseCPU"), "crash", "c10")
    assert a["known_upstream"] == b["known_upstream"] == "stale-autogradother"
    assert a["bucket_id"] == b["bucket_id"]
    assert a["key"]["action"] == "known upstream stale-autogradother"


def test_new_c10_disagreement_is_not_known():
    text = report(STALE.replace("stale slots (1): AutogradOther", "stale slots (1): AutogradCPU"))
    c = triage.classify(text, "crash", "c10")
    assert c["known_upstream"] == ""
    assert not c["key"]["action"].startswith("known upstream")


def test_history_marks_a_new_known_upstream_bucket_and_it_never_fails_the_night():
    store = history.empty()
    rec = {"bucket_id": "b1", "known_upstream": "stale-autogradother", "key_string": "k"}
    new = {"bucket_id": "b2", "known_upstream": "", "key_string": "k2"}
    tonight = history.update(store, {"b1": rec, "b2": new}, {}, "night1", "abc")
    assert tonight == {"b1": history.UPSTREAM, "b2": history.NEW}
    assert history.exit_status({"b1": history.UPSTREAM}, "any", False) == 0
    assert history.exit_status(tonight, "any", False) == 1


def test_c10_system_paths():
    c10 = systems.SYSTEMS["c10"]
    assert c10.presets == ["full-c10"] and c10.property_label == "c10"
    assert c10.env["DISPATCH_C10_KNOWN_UPSTREAM"] == str(c10_known.SIGNATURES)
    assert systems.options_file("c10_registration_fuzzer") == paths.FUZZ / "c10" / "c10_registration_fuzzer.options"
    assert systems.options_file("registration_fuzzer") == paths.FUZZ_OPTIONS / "registration_fuzzer.options"
    seeds = systems.seed_corpora("c10_registration_fuzzer")
    # Its own distilled corpus (committed, so the seed replay fits a night) and the regressions
    # of the fuzzer whose bytes it reads; not registration_fuzzer's whole corpus.
    assert seeds == [paths.FUZZ_CORPUS / "c10_registration_fuzzer", paths.FUZZ_REGRESSIONS / "registration_fuzzer"]
    for target in ("c10_registration_fuzzer", "c10_release_keys_fuzzer"):
        assert len(list((paths.FUZZ_CORPUS / target).iterdir())) > 100
    assert Path(systems.options_file("c10_registration_fuzzer")).read_bytes().isascii()


def test_dropping_cea_with_a_fallthrough_catch_all_is_the_known_bug():
    # The one-hour campaign's report (trimmed): the catch-all was a fallthrough, so the stale
    # slots read "computed: fallthrough", not "computed: kernel".
    body = """==== DISPATCH FUZZ BUG in c10_registration_fuzzer: c10 and model disagree
c10: step 46 (drop handle #7 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED
  stale slots (2): AutogradPrivateUse3 (live: missing; computed: fallthrough), AutogradNestedTensor (live: missing; computed: fallthrough)
==== END DISPATCH FUZZ BUG
"""
    assert c10_known.known_bug(body) == "stale-after-dropping-compositeexplicitautograd"
    assert c10_known.known_bug(body.replace("drop: invariant", "impl typed: invariant")) is None
