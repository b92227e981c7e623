"""Minimisation bookkeeping: ddmin keeps the bucket, stops at its deadline, and reports when the
input does not reproduce the bucket at all."""
import sys

from dispatch_ci.nightly import minimize


def test_ddmin_shrinks_to_what_keeps_the_bucket():
    # The "bug": the input holds the bytes b"K" and b"Q" in this order.
    def same(data):
        return b"K" in data and b"Q" in data[data.index(b"K"):]
    data = b"abcdefK0123456789Qxyz"
    r = minimize.ddmin(data, same, seconds=30)
    assert r.reproduced and r.data == b"KQ" and r.tests > 1


def test_ddmin_zeroes_bytes_that_do_not_matter():
    r = minimize.ddmin(b"\x05\x07", lambda d: len(d) == 2 and d[1] == 7, seconds=30)
    assert r.data == b"\x00\x07"


def test_an_input_outside_the_bucket_is_not_reproduced_and_unchanged():
    r = minimize.ddmin(b"abc", lambda d: False, seconds=30)
    assert not r.reproduced and r.data == b"abc" and r.tests == 1


def test_ddmin_stops_at_the_deadline_with_a_valid_input():
    now = [0.0]

    def clock():
        now[0] += 1.0
        return now[0]
    calls = []

    def same(d):
        calls.append(d)
        return b"X" in d
    r = minimize.ddmin(b"a" * 50 + b"X" + b"b" * 50, same, seconds=5, clock=clock)
    assert r.reproduced and b"X" in r.data and len(calls) < 10


def test_rerun_bucket_classifies_the_candidate_run(tmp_path):
    script = tmp_path / "fake_target.py"
    script.write_text("import sys\ndata = open(sys.argv[1], 'rb').read()\n"
                      "if b'K' in data:\n"
                      "    print('DISPATCH-STEP flavour=full step=1 action=call key=CPU | x')\n"
                      "    print('==== DISPATCH FUZZ BUG in t: library error')\n"
                      "    sys.exit(1)\n")
    cmd = [sys.executable, str(script), "@@"]
    bucket = minimize.rerun_bucket(cmd, b"aKb", str(tmp_path / "c"), "crash", "full", 30, {})
    assert bucket and bucket.startswith("library-error-call-cpu-full-")
    assert minimize.rerun_bucket(cmd, b"ab", str(tmp_path / "c"), "crash", "full", 30, {}) is None

    src, out = tmp_path / "in", tmp_path / "out"
    src.write_bytes(b"xxxxKxxxx")
    assert minimize.minimize_keeping_bucket(str(src), str(out), bucket, cmd, "crash", "full", 60, {})
    assert out.read_bytes() == b"K"
    assert not minimize.minimize_keeping_bucket(str(src), str(tmp_path / "o2"), "other-bucket", cmd,
                                                "crash", "full", 60, {})
    assert not (tmp_path / "o2").exists()
