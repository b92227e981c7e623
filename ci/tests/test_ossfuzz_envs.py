"""The OSS-Fuzz-like environments of ci/ossfuzz_check.sh."""
import pytest

from dispatch_ci.jobs import ossfuzz_check
from dispatch_ci.log import UsageError


def test_address_environment():
    env = ossfuzz_check.environment("libfuzzer-address")
    assert env["SANITIZER"] == "address" and env["FUZZING_ENGINE"] == "libfuzzer"
    assert "-fsanitize=address" in env["CXXFLAGS"] and env["CXXFLAGS"].endswith("-fsanitize=fuzzer-no-link")


def test_undefined_never_recovers_except_unsigned_overflow():
    flags = ossfuzz_check.environment("libfuzzer-undefined")["CXXFLAGS"]
    no_recover = flags.split("-fno-sanitize-recover=")[1].split()[0].split(",")
    assert "signed-integer-overflow" in no_recover and "unsigned-integer-overflow" not in no_recover
    assert "unsigned-integer-overflow" in flags.split("-fsanitize=")[1]


def test_aflpp_uses_the_afl_driver():
    env = ossfuzz_check.environment("aflpp-address")
    assert env["CXX"] == "afl-clang-fast++" and env["LIB_FUZZING_ENGINE"].endswith("libAFLDriver.a")


def test_unknown_environment_is_a_usage_error():
    with pytest.raises(UsageError):
        ossfuzz_check.environment("honggfuzz-address")
