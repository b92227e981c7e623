"""Failure classification and bucketing: the rules that decide which bug a failing input is."""
from dispatch_ci.nightly import triage

STEPS = ("DISPATCH-STEP flavour=full step=1 action=register kernel key=CPU | ok\n"
         "DISPATCH-STEP flavour=full step=2 action=library fallthrough key=AutogradCPU | ok\n")

ASAN = STEPS + """\
=================================================================
==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55 bp 0x7ff sp 0x7ff
READ of size 8 at 0x602000000040 thread T0
    #0 0x55d in dispatch::OperatorEntry::lookup(dispatch::DispatchKey) const /src/dispatch/src/operator_entry.cpp:120:5
    #1 0x55e in dispatch::Dispatcher::call(int) /src/dispatch/src/dispatcher.cpp:33:9
    #2 0x55f in LLVMFuzzerTestOneInput /src/fuzz/keyset_fuzzer.cpp:40:3
SUMMARY: AddressSanitizer: heap-buffer-overflow /src/dispatch/src/operator_entry.cpp:120:5 in lookup
"""

UBSAN = STEPS + """\
/src/dispatch/src/keyset.cpp:88:21: runtime error: shift exponent 64 is too large for 64-bit type 'uint64_t'
    #0 0x1 in dispatch::KeySet::add(dispatch::DispatchKey) /src/dispatch/src/keyset.cpp:88:21
SUMMARY: UndefinedBehaviorSanitizer: invalid-shift-exponent /src/dispatch/src/keyset.cpp:88:21
"""

ASSERTION = STEPS + """\
/usr/include/c++/12/bits/stl_vector.h:1123: reference std::vector<int>::operator[](size_type): Assertion '__n < this->size()' failed.
==7==ERROR: AddressSanitizer: ABRT on unknown address 0x1 (pc 0x2 bp 0x3 sp 0x4 T0)
    #0 0x1 in abort /build/glibc/abort.c:79:7
    #1 0x2 in std::vector<int>::operator[](unsigned long) /usr/include/c++/12/bits/stl_vector.h:1123:2
    #2 0x3 in dispatch::Table::slot(int) /src/dispatch/src/table.cpp:12:3
"""

ORACLE = STEPS + """\
==== DISPATCH FUZZ BUG in fallback_fuzzer: dispatcher and model disagree
expected kernel CPU, got fallthrough
"""

TIMEOUT = STEPS + "ALARM: working on the last Unit for 26 seconds\n==1== ERROR: libFuzzer: timeout after 26 seconds\n"


def test_kinds_of_headlines():
    assert triage.find_headline(ASAN)[1] == "asan: heap-buffer-overflow"
    assert triage.find_headline(UBSAN)[1] == "ubsan: invalid-shift-exponent"
    assert triage.find_headline(ASSERTION)[1] == "assertion '__n < this->size()'"
    assert triage.find_headline(ORACLE)[1] == "dispatcher-model disagreement"
    assert triage.find_headline(TIMEOUT)[1] == "timeout"
    assert triage.find_headline("==1==ERROR: LeakSanitizer: detected memory leaks\n")[1] == "leak"
    assert triage.find_headline(STEPS + "all good\n") is None


def test_the_earliest_headline_wins():
    # A hardened assertion aborts, and ASan then reports the ABRT: the assertion is the bug.
    assert triage.classify(ASSERTION, "crash", "full")["key"]["kind"].startswith("assertion ")


def test_crash_bucket_is_keyed_by_the_first_frame_of_our_code():
    c = triage.classify(ASAN, "crash", "mobile")
    assert c["key"] == {"kind": "asan: heap-buffer-overflow", "action": "crash in OperatorEntry::lookup",
                        "dispatch_key": "any", "flavour": "full"}
    assert c["reproduced"] and c["detail"] == "READ of size 8"
    assert c["bucket_id"].startswith("asan-heap-buffer-overflow-crash-in-operatorentry-lookup-any-full-")


def test_a_crash_reached_through_other_actions_shares_the_bucket():
    other_path = ASAN.replace("action=library fallthrough key=AutogradCPU", "action=register kernel key=CUDA")
    assert triage.classify(other_path, "crash", "full")["bucket_id"] == \
        triage.classify(ASAN, "crash", "full")["bucket_id"]


def test_the_crash_site_skips_the_standard_library():
    c = triage.classify(ASSERTION, "crash", "full")
    assert c["key"]["action"] == "crash in Table::slot"


def test_non_crash_buckets_use_the_last_step_before_the_headline():
    c = triage.classify(ORACLE, "crash", "mobile")
    assert c["key"] == {"kind": "dispatcher-model disagreement", "action": "library fallthrough",
                        "dispatch_key": "AutogradCPU", "flavour": "full"}
    assert c["detail"] == "expected kernel CPU, got fallthrough"
    later = ORACLE + "DISPATCH-STEP flavour=full step=3 action=call key=CPU | after the report\n"
    assert triage.classify(later, "crash", "full")["bucket_id"] == c["bucket_id"]


def test_different_keys_or_flavours_are_different_buckets():
    base = triage.classify(ORACLE, "crash", "full")["bucket_id"]
    assert triage.classify(ORACLE.replace("key=AutogradCPU", "key=CPU"), "crash", "full")["bucket_id"] != base
    assert triage.classify(ORACLE.replace("flavour=full", "flavour=mobile"), "crash", "full")["bucket_id"] != base


def test_targets_without_steps_take_the_preset_flavour():
    c = triage.classify("==== DISPATCH FUZZ BUG in x: library error\nbad\n", "crash", "mobile")
    assert c["key"] == {"kind": "library error", "action": "-", "dispatch_key": "-", "flavour": "mobile"}


def test_a_timeout_is_its_own_kind_never_a_pass():
    c = triage.classify(TIMEOUT, "timeout", "full")
    assert c["key"]["kind"] == "timeout" and c["reproduced"]
    # libFuzzer's generic deadly-signal line under a timeout-/leak-/oom- artifact takes its name
    deadly = STEPS + "==1== ERROR: libFuzzer: deadly signal\n"
    assert triage.classify(deadly, "oom", "full")["key"]["kind"] == "oom"
    assert triage.classify(deadly, "crash", "full")["key"]["kind"] == "deadly signal"


def test_an_input_that_does_not_fail_again_is_unreproducible_not_passed():
    c = triage.classify(STEPS + "clean exit\n", "crash", "full")
    assert not c["reproduced"] and c["key"]["kind"] == "crash (unreproducible)"
    # with the report printed while fuzzing, the bucket comes from that report
    c = triage.classify(STEPS + "clean exit\n", "crash", "full", fallback_text=ORACLE)
    assert not c["reproduced"]
    assert c["key"]["kind"] == "dispatcher-model disagreement (unreproducible)"


def test_report_from_log_takes_the_report_before_the_artifact_line():
    log = ("#1 INITED cov: 3\n#200 NEW cov: 9\n" + ORACLE +
           "artifact_prefix='a/'; Test unit written to a/crash-abc\n#300 other\n")
    text = triage.report_from_log(log, "build/x/crash-abc")
    assert "DISPATCH FUZZ BUG" in text and "INITED" not in text and "#300" not in text
    assert triage.report_from_log(log, "crash-other") == ""


def test_artifact_kind_from_the_file_name():
    assert [triage.artifact_kind(n) for n in ("crash-1", "leak-2", "timeout-3", "oom-4", "x")] == \
        ["crash", "leak", "timeout", "oom", "crash"]


def test_short_function_drops_parameters_but_keeps_templates_and_call_operators():
    assert triage.short_function("ns::f<std::pair<int, int>>(int) const") == "ns::f<std::pair<int, int>>"
    assert triage.short_function("ns::Lambda::operator()(int)") == "ns::Lambda::operator()"


def test_top_frames_skip_the_runtime():
    frames = triage.top_frames(ASSERTION, 0)
    assert [f["function"] for f in frames] == ["std::vector<int>::operator[]", "dispatch::Table::slot"]


def test_buckets_keep_first_seen_order_and_the_smallest_representative():
    b = triage.Buckets()
    b.add("x", "a1", 50, "a1.json")
    b.add("y", "b1", 10, "b1.json")
    b.add("x", "a2", 20, "a2.json")
    b.add("x", "a3", 20, "a3.json")
    assert b.order == ["x", "y"] and len(b) == 2
    assert b.representative["x"] == ("a2", 20, "a2.json")
    assert b.members["x"] == ["a1.json", "a2.json", "a3.json"]


def test_bucket_record_lists_every_artifact_representative_first():
    first = {"bucket_id": "x", "artifact": "a2", "preset": "full-fuzz", "target": "t", "reproduced": True,
             "key_string": "k"}
    other = dict(first, artifact="a1")
    rec = triage.bucket_record(first, [other], ["n"], {"minimized_by": "ddmin"})
    assert [a["artifact"] for a in rec["artifacts"]] == ["a2", "a1"]
    assert rec["notes"] == ["n"] and rec["minimized_by"] == "ddmin" and rec["key_string"] == "k"
