"""ci/coverage.sh: what llvm-cov is told to look at."""
import re
from pathlib import Path

from dispatch_ci.jobs import coverage


def test_object_args():
    assert coverage.object_args(["a", "b", "c"]) == ["a", "-object", "b", "-object", "c"]
    assert coverage.object_args([]) == []


def test_only_the_library_sources_are_measured():
    regex = re.compile(coverage.ignore_regex(Path("/r/repo+1")))
    for ignored in ("/usr/include/c++/12/vector", "/r/repo+1/fuzz/harness/x.cpp", "/r/repo+1/properties/p.cpp",
                    "/r/repo+1/dispatch/tests/t.cpp", "/r/repo+1/build/full-coverage/gen.cpp"):
        assert regex.search(ignored), ignored
    for measured in ("/r/repo+1/dispatch/src/table.cpp", "/r/repo+1/dispatch/include/dispatch/x.h"):
        assert not regex.search(measured), measured
