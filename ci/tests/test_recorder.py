"""Cutting the flight recorder's block out of a crash's output."""
from dispatch_ci.recorder import flight_recorder_block

BLOCK = [
    "==== dispatch flight recorder: begin (SIGABRT) ====",
    "this thread: last 2 of 2 events, oldest first",
    '  #2 register fallback key=AutogradCPU slot=-1 debug="startup fallthrough" flavour=mobile [in progress]',
    "==== dispatch flight recorder: end ====",
]


def test_no_block_gives_nothing():
    assert flight_recorder_block("==1==ERROR: AddressSanitizer: SEGV\n    #0 0x1 in f\n") == []


def test_block_is_cut_out_with_its_markers():
    text = "noise\n" + "\n".join(BLOCK) + "\n    #0 0x1 in abort\n"
    assert flight_recorder_block(text) == BLOCK


def test_last_block_wins():
    first = [BLOCK[0], "this thread: last 1 of 1 events, oldest first", "  #1 call op=[a]", BLOCK[-1]]
    assert flight_recorder_block("\n".join(first + BLOCK)) == BLOCK


def test_unterminated_block_is_kept_as_far_as_it_got():
    assert flight_recorder_block("\n".join(BLOCK[:3])) == BLOCK[:3]


def test_bucket_classification_keeps_the_recorder_block():
    from dispatch_ci.nightly import triage
    text = ("/usr/include/c++/12/array:208: reference std::array::operator[]: "
            "Assertion '__n < this->size()' failed.\n" + "\n".join(BLOCK) + "\n"
            "==7==ERROR: AddressSanitizer: ABRT on unknown address 0x1\n"
            "    #0 0x1 in abort /build/glibc/abort.c:79:7\n"
            "    #1 0x3 in dispatch::Table::slot(int) /src/dispatch/src/table.cpp:12:3\n")
    assert triage.classify(text, "crash", "mobile")["flight_recorder"] == BLOCK
    assert triage.classify("no report here\n", "crash", "mobile")["flight_recorder"] == []
