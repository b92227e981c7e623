"""ci/repro.sh: from a failing fuzz input to a regression test."""
