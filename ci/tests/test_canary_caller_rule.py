"""The verdict's caller rule: a report at the faulty access that lies in code the patch did not
change counts only when the function it lies in calls a function the patch changed (the index
came from patched code that had already returned). A crash in code that neither is nor calls
patched code stays ERROR, however the rest of the stack looks."""
from pathlib import Path

from dispatch_ci.canaries import enclosing
from dispatch_ci.canaries.classify import classify
from dispatch_ci.canaries.patches import Touched, touched
from dispatch_ci.canaries.verdict import CAUGHT, ERROR, Run, Seed, ctest_outcome, seed_outcome

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "dispatch" / "src" / "operator_entry.cpp"
PATCH = ROOT / "ci" / "canaries" / "trimmed_mask_off_by_one.patch"
PASS = Run(0, seconds=1.0, log="100% tests passed, 0 tests failed out of 1")
TRIM = Touched(files={"dispatch/include/dispatch/table_layout.h"},
               functions={"fallthroughMaskOfBackend"})


def line_of(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


def hardened_report(path: Path, line: int, function: str) -> str:
    """A libstdc++ assertion as the fuzz preset prints it under libFuzzer: our flight
    recorder's signal handler (dispatch/src/...) sits above the abort on the stack."""
    return (f"/usr/include/c++/12/array:217: std::array<std::atomic<unsigned long>, 14>::"
            f"operator[](std::array::size_type) const: Assertion '__n < this->size()' failed.\n"
            f"==17809== ERROR: libFuzzer: deadly signal\n"
            f"    #3 0x55 in dispatch::flight_recorder::onCrashSignal(int, siginfo_t*, void*) "
            f"/elsewhere/src/dispatch/src/flight_recorder.cpp:226:7\n"
            f"    #7 0x7f in abort stdlib/./stdlib/abort.c:79:7\n"
            f"    #8 0x7f in std::__glibcxx_assert_fail(char const*, int, char const*, char const*) "
            f"(/lib/x86_64-linux-gnu/libstdc++.so.6+0xd09ed)\n"
            f"    #9 0x55 in std::array<std::atomic<unsigned long>, 14ul>::operator[](unsigned long) "
            f"const /usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/array:217:2\n"
            f"    #10 0x55 in dispatch::BasicOperatorEntry<dispatch::Rand1Layout>::{function} "
            f"{path}:{line}:31\n"
            f"    #18 0x55 in LLVMFuzzerTestOneInput /w/src/fuzz/registration_fuzzer.cpp:10:10\n")


def failing(log: str) -> Run:
    return Run(1, seconds=2.0, log=log)


def test_the_access_frame_is_below_the_assertion_not_the_signal_handler():
    found = classify(hardened_report(ENTRY, 503, "checkInvariants() const"))
    assert found.frame_file == str(ENTRY) and found.frame_line == 503
    assert "checkInvariants" in found.frame_function


def test_a_report_in_a_caller_of_the_changed_function_is_caught():
    # setFallthroughForKey subscripts the masks with fallthroughMaskOfBackend's result.
    line = line_of(ENTRY, "L::fallthroughMaskOfBackend(toBackendComponent(k))")
    outcome = ctest_outcome(failing(hardened_report(ENTRY, line, "setFallthroughForKey(DispatchKey, bool)")),
                            PASS, TRIM)
    assert outcome.result == CAUGHT
    assert "caller of the patched fallthroughMaskOfBackend()" in outcome.how


def test_a_report_in_a_function_that_calls_nothing_changed_stays_error():
    # compute() lies in the same file, but calls nothing the patch changed.
    line = line_of(ENTRY, "return {nullptr, EntryTag::MissingInFlavour}")
    outcome = ctest_outcome(failing(hardened_report(ENTRY, line, "compute(...)")), PASS, TRIM)
    assert outcome.result == ERROR and "calls nothing it changes" in outcome.how
    # A fuzz seed is judged by the same rule.
    seed = Seed(run=failing(hardened_report(ENTRY, line, "compute(...)")), baseline=PASS,
                artifact="crash-1", rerun_patched=failing("x"), rerun_baseline=PASS)
    assert seed_outcome(seed, TRIM)[0] == ERROR


def test_a_report_whose_source_cannot_be_read_stays_error(tmp_path):
    missing = tmp_path / "src" / "dispatch" / "src" / "operator_entry.cpp"
    outcome = ctest_outcome(failing(hardened_report(missing, 300, "f()")), PASS, TRIM)
    assert outcome.result == ERROR


def test_the_rule_reads_the_function_body_not_the_file():
    calls = lambda path, line: ("checkInvariants", "void f() {\n  x = L::fallthroughMaskOfBackend(b);\n}")
    mentions = lambda path, line: ("checkInvariants", "void f() {\n  // fallthroughMaskOfBackend\n}")
    log = hardened_report(ENTRY, 1, "checkInvariants() const")
    assert ctest_outcome(failing(log), PASS, TRIM, source=calls).result == CAUGHT
    assert ctest_outcome(failing(log), PASS, TRIM, source=mentions).result == ERROR
    nothing = lambda path, line: ("", "")
    assert ctest_outcome(failing(log), PASS, TRIM, source=nothing).result == ERROR


def test_enclosing_walks_out_of_control_flow_and_lambdas():
    lines = ["template <class L>",
             "void Entry<L>::update(DispatchKey k) {",
             "  auto apply = [&](Mask& mask) {",
             "    if (k == DK::CPU) {",
             "      mask.store(1);",
             "    }",
             "  };",
             "}"]
    assert enclosing.enclosing(lines, 4) == ("update", 1)
    assert enclosing.enclosing(lines, 6) == ("update", 1)
    assert enclosing.function_name("if constexpr (kOnlyCpuPerBackend) {") == ""
    assert enclosing.function_name("} else {") == ""
    assert enclosing.function_name("static constexpr int maskOf(Backend b) noexcept {") == "maskOf"


def test_the_flavour_canary_names_the_function_it_changes():
    text = PATCH.read_text(encoding="utf-8")
    changed = touched(text[text.index("diff --git"):])
    assert changed.functions == {"fallthroughMaskOfBackend"}
    # Every caller in operator_entry.cpp, where the overflow is reported, is found as such.
    lines = ENTRY.read_text(encoding="utf-8").splitlines()
    calls = [n for n, line in enumerate(lines, 1) if "L::fallthroughMaskOfBackend(" in line]
    callers = set()
    for line in calls:
        name, body = enclosing.function_body(str(ENTRY), line)
        assert changed.called_in(body) == "fallthroughMaskOfBackend", (line, name)
        callers.add(name)
    assert "setFallthroughForKey" in callers


def test_the_source_is_read_from_the_patched_copy_whatever_path_the_report_names(tmp_path):
    from dispatch_ci.canaries.run import patched_source
    copy = tmp_path / "src" / "dispatch" / "src"
    copy.mkdir(parents=True)
    (copy / "operator_entry.cpp").write_text(
        "void Entry::check() const {\n  const auto slot = L::fallthroughMaskOfBackend(b);\n"
        "  use(masks_[slot]);\n}\n", encoding="utf-8")
    log = hardened_report(Path("/other/copy/src/dispatch/src/operator_entry.cpp"), 3, "check() const")
    outcome = ctest_outcome(failing(log), PASS, TRIM, patched_source(tmp_path / "src"))
    assert outcome.result == CAUGHT
    (copy / "operator_entry.cpp").write_text("void Entry::check() const {\n\n  use(masks_[99]);\n}\n")
    assert ctest_outcome(failing(log), PASS, TRIM, patched_source(tmp_path / "src")).result == ERROR


CONDENSED = ("[ property ] the library crashed (exit code 1) in one of the cases:\n"
             "/usr/include/c++/12/array:217: std::array::const_reference ... Assertion "
             "'__n < this->size()' failed.\n"
             "==1==ERROR: AddressSanitizer: ABRT on unknown address 0x0000000047ad\n"
             "    #5 dispatch::BasicOperatorEntry<dispatch::Rand1Layout>::check() const  "
             "operator_entry.cpp:3:31\n"
             "    #6 dispatch::BasicDispatcher<dispatch::Rand1Layout>::checkInvariants() const  "
             "dispatcher.cpp:282:45\n")


def test_a_condensed_property_report_is_resolved_in_the_patched_copy(tmp_path):
    from dispatch_ci.canaries.run import patched_source
    found = classify(CONDENSED)
    assert (found.kind, found.frame_file, found.frame_line) == ("hardened assertion", "operator_entry.cpp", 3)
    copy = tmp_path / "src" / "dispatch" / "src"
    copy.mkdir(parents=True)
    (copy / "operator_entry.cpp").write_text(
        "void Entry::check() const {\n  const auto slot = L::fallthroughMaskOfBackend(b);\n"
        "  use(masks_[slot]);\n}\n", encoding="utf-8")
    assert ctest_outcome(failing(CONDENSED), PASS, TRIM, patched_source(tmp_path / "src")).result == CAUGHT
    # Two own files of that name: which one is meant is unknown, so the report is refused.
    other = tmp_path / "src" / "fuzz" / "x"
    other.mkdir(parents=True)
    (other / "operator_entry.cpp").write_text((copy / "operator_entry.cpp").read_text())
    assert ctest_outcome(failing(CONDENSED), PASS, TRIM, patched_source(tmp_path / "src")).result == ERROR
