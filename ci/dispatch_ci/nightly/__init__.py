"""The nightly fuzz campaign (ci/nightly.sh): engines, triage, property suite, report."""
