"""A fuzz target's options file read as OSS-Fuzz reads it (fuzz_options): [libfuzzer] gives flags,
[asan] and [ubsan] add to the sanitizers' options while fuzzing, anything else is refused."""
from pathlib import Path

import pytest

from dispatch_ci import fuzz_options, paths
from dispatch_ci.canaries import layers
from dispatch_ci.nightly import engines

OPTIONS = """# why, in comments
[libfuzzer]
max_len = 512   # trailing comment
dict = t.dict
[asan]
detect_stack_use_after_return = 0
[ubsan]
print_stacktrace = 1
[afl]
max_len = 9
"""


def write(tmp_path, text=OPTIONS):
    path = tmp_path / "t.options"
    path.write_text(text)
    return path


def test_sections_and_libfuzzer_flags(tmp_path):
    path = write(tmp_path)
    assert fuzz_options.read(path)["asan"] == {"detect_stack_use_after_return": "0"}
    assert fuzz_options.libfuzzer_flags(path, tmp_path / "dicts") == [
        "-max_len=512", f"-dict={tmp_path / 'dicts' / 't.dict'}"]


def test_the_sanitizer_sections_set_their_options_and_leave_the_given_environment_alone(tmp_path):
    env = {"ASAN_OPTIONS": "halt_on_error=1:detect_stack_use_after_return=1", "UBSAN_OPTIONS": "halt_on_error=1",
           "OTHER": "x"}
    fuzzing = fuzz_options.fuzzing_env(env, write(tmp_path))
    assert fuzzing["ASAN_OPTIONS"] == "halt_on_error=1:detect_stack_use_after_return=0"
    assert fuzzing["UBSAN_OPTIONS"] == "halt_on_error=1:print_stacktrace=1"
    assert fuzzing["OTHER"] == "x" and env["ASAN_OPTIONS"].endswith("return=1")
    assert "max_len" not in fuzzing["ASAN_OPTIONS"]   # [afl] is not a sanitizer's


def test_a_line_outside_a_section_or_not_an_entry_is_an_error_naming_the_line(tmp_path):
    for text, line in (("max_len = 5\n", 1), ("[libfuzzer]\nmax_len 5\n", 2), ("[libfuzzer]\nmax_len = 5 6\n", 2)):
        with pytest.raises(fuzz_options.OptionsError, match=f"t.options:{line}:"):
            fuzz_options.read(write(tmp_path, text))


def test_every_committed_options_file_reads_and_names_a_dictionary_that_exists():
    files = sorted(paths.FUZZ.rglob("*.options"))
    assert len(files) >= 8
    for path in files:
        flags = fuzz_options.libfuzzer_flags(path, paths.FUZZ_DICTIONARIES)
        dicts = [f.split("=", 1)[1] for f in flags if f.startswith("-dict=")]
        assert dicts and all(Path(d).is_file() for d in dicts), path


def test_the_canary_seeds_and_the_nightly_fuzz_in_the_targets_environment(tmp_path):
    (tmp_path / "fuzz" / "options").mkdir(parents=True)
    write(tmp_path / "fuzz" / "options").rename(tmp_path / "fuzz" / "options" / "x_fuzzer.options")
    env = {"ASAN_OPTIONS": "detect_stack_use_after_return=1"}
    options = tmp_path / "fuzz" / "options" / "x_fuzzer.options"
    assert layers.fuzzing_env(env, "x_fuzzer", tmp_path)["ASAN_OPTIONS"] == "detect_stack_use_after_return=0"
    assert engines.fuzzing_env(env, options)["ASAN_OPTIONS"] == "detect_stack_use_after_return=0"
    assert engines.fuzzing_env(env, tmp_path / "missing.options") == env
    with pytest.raises(FileNotFoundError):
        layers.fuzzing_env(env, "missing_fuzzer", tmp_path)


def test_the_bench_scripts_read_only_the_libfuzzer_section(tmp_path):
    """bench/fuzz_options.sh (fuzz_throughput.sh, fuzz_floor.sh) turns [libfuzzer] lines into
    flags; an [asan] line is never passed to libFuzzer."""
    import subprocess
    (tmp_path / "options").mkdir()
    (tmp_path / "options" / "t.options").write_text(OPTIONS)
    out = subprocess.run(["bash", "-c", f'source "{paths.ROOT}/bench/fuzz_options.sh"; option_flags t "$1"', "_",
                          str(tmp_path / "options")], capture_output=True, text=True, env={"ROOT": str(paths.ROOT)})
    assert out.stdout.split() == ["-max_len=512", f"-dict={tmp_path / 'dictionaries' / 't.dict'}"]
