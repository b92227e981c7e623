"""Re-checking an open bucket's stored input (history_step.recheck) with stand-in fuzz binaries:
passes -> fixed, a report -> fails; a missing input, a missing binary or an exit without a
report is an error, never "fixed"."""
import io

import pytest

from dispatch_ci.log import Say
from dispatch_ci.nightly import history, history_step
from dispatch_ci.nightly.context import Night, Options
from dispatch_ci.nightly.engines import LibFuzzer
from dispatch_ci.nightly.run_folder import RunFolder

BUG = "==== DISPATCH FUZZ BUG in keyset_fuzzer: pushed set: iteration (runtimeKeys order) differs"


@pytest.fixture
def night(tmp_path):
    n = Night(Options(presets=["full-fuzz"]), RunFolder(tmp_path / "nightly"), {}, LibFuzzer({}, 1),
              say=Say("test", io.StringIO()))
    n.preset_targets = {"full-fuzz": ["keyset_fuzzer"]}
    n.all_targets = ["keyset_fuzzer"]
    return n


def fake_binary(night, tmp_path, script):
    binary = tmp_path / "keyset_fuzzer"
    binary.write_text("#!/bin/sh\n" + script + "\n")
    binary.chmod(0o755)
    night.binary = lambda preset, target: binary
    return binary


def entry(data=b"\x07\x00"):
    e = dict(bucket_id="pushed-set-b", status="known", preset="full-fuzz", target="keyset_fuzzer",
             artifact_kind="crash", first_seen="n0", last_seen="n0", count=1)
    e.update(history.encode_input(data))
    return e


def test_an_input_that_no_longer_fails_passes(night, tmp_path):
    fake_binary(night, tmp_path, "exit 0")
    check = history_step.recheck(night, entry())
    assert check.outcome == history.PASSES


def test_an_input_that_still_fails_fails_and_gets_a_repro_path(night, tmp_path):
    fake_binary(night, tmp_path, f"echo '{BUG}'; exit 1")
    check = history_step.recheck(night, entry())
    assert check.outcome == history.FAILS
    assert "recheck/full-fuzz/keyset_fuzzer/pushed-set-b/input" in check.repro
    assert check.repro.startswith("ci/repro.sh ")


def test_the_stored_input_is_what_runs(night, tmp_path):
    # The last argument is the input file; the stand-in fails only on the stored bytes.
    fake_binary(night, tmp_path, 'for f; do :; done; [ "$(od -An -tx1 "$f" | tr -d " ")" = "0700" ] && exit 0; '
                                 f"echo '{BUG}'; exit 1")
    assert history_step.recheck(night, entry(b"\x07\x00")).outcome == history.PASSES
    assert history_step.recheck(night, entry(b"\x08")).outcome == history.FAILS


def test_missing_stored_input_is_an_error(night, tmp_path):
    fake_binary(night, tmp_path, "exit 0")
    e = entry()
    e["input_b64"] = ""
    check = history_step.recheck(night, e)
    assert check.outcome == history.ERROR and "no stored input" in check.detail


def test_an_exit_without_a_report_is_an_error_not_fixed(night, tmp_path):
    fake_binary(night, tmp_path, "echo 'cannot parse input'; exit 3")
    check = history_step.recheck(night, entry())
    assert check.outcome == history.ERROR and "exit 3" in check.detail


def test_a_missing_binary_is_an_error(night, tmp_path):
    night.binary = lambda preset, target: tmp_path / "gone"
    assert history_step.recheck(night, entry()).outcome == history.ERROR


def test_a_target_no_longer_built_is_an_error(night, tmp_path):
    e = entry()
    e["target"] = "renamed_fuzzer"
    assert history_step.recheck(night, e).outcome == history.ERROR


def test_a_target_left_out_by_the_options_is_not_checked(night, tmp_path):
    night.options.targets = ["keyset_fuzzer"]
    e = entry()
    e["target"] = "registration_fuzzer"
    assert history_step.recheck(night, e).outcome == history.NOT_CHECKED
    e = entry()
    e["preset"] = "mobile-fuzz"
    assert history_step.recheck(night, e).outcome == history.NOT_CHECKED
