"""The -seed=12 c10 campaign's finding: dropping a CompositeExplicitAutograd kernel while the
operator has a CompositeImplicitAutograd kernel and a kernel of its own at AutogradNestedTensor.
It is stale-after-dropping-compositeexplicitautograd (fuzz/c10/known_upstream.md), but the stale
slots lack AutogradNestedTensor (its own kernel is right), which the first signature lines key on."""
from dispatch_ci import c10_known
from dispatch_ci.nightly import triage

BUG = "stale-after-dropping-compositeexplicitautograd"

NESTED = ["CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "Meta",
          "PrivateUse1", "PrivateUse2", "PrivateUse3"]
AUTOGRAD = [("CPU", "fallthrough"), ("HIP", "missing"), ("MPS", "fallthrough"), ("IPU", "missing"),
            ("XPU", "fallthrough"), ("HPU", "fallthrough"), ("VE", "missing"), ("Lazy", "fallthrough"),
            ("Meta", "missing"), ("PrivateUse1", "missing"), ("PrivateUse2", "missing"),
            ("PrivateUse3", "missing")]
SLOTS = ([f"NestedTensor{b} (live: missing; computed: kernel k15)" for b in NESTED] +
         [f"Autograd{b} (live: {live}; computed: kernel k15)" for b, live in AUTOGRAD])

# The campaign's report: its first two lines whole, two of its table lines.
REPORT = ("==== DISPATCH FUZZ BUG in c10_registration_fuzzer: c10 and model disagree\n"
          "c10: step 26 (drop handle #5 (modulo the handles made so far)): drop: invariant check fails: "
          "dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED "
          "at \"./aten/src/ATen/core/dispatch/OperatorEntry.cpp\":459, please report a bug to PyTorch. "
          "Canonical state\n"
          f"  stale slots ({len(SLOTS)}): " + ", ".join(SLOTS) + "\n"
          "AutogradNestedTensor: k7 :: (none) [ fallthrough boxed ]\n"
          "CompositeImplicitAutograd[alias]: k15 :: (none) [ boxed ]\n"
          "==== END DISPATCH FUZZ BUG\n")


def test_the_report_has_the_campaigns_26_stale_slots_and_not_autograd_nested_tensor():
    assert len(SLOTS) == 26
    assert "AutogradNestedTensor (live:" not in REPORT


def test_dropping_cea_with_autograd_nested_tensor_kernel_is_the_known_bug():
    assert c10_known.known_bug(REPORT) == BUG
    # The fuzzer-minimised form: a fallthrough math kernel, so the slots read "computed: fallthrough".
    assert c10_known.known_bug(REPORT.replace("computed: kernel k15", "computed: fallthrough")) == BUG


def test_the_same_stale_slots_after_a_registration_are_not_this_bug():
    assert c10_known.known_bug(REPORT.replace("drop: invariant", "impl typed: invariant")) is None


def test_triage_buckets_it_as_known_upstream():
    text = "DISPATCH-STEP flavour=c10 step=26 action=drop key=none | x\n" + REPORT
    c = triage.classify(text, "crash", "c10")
    assert c["known_upstream"] == BUG
    assert c["key"]["action"] == f"known upstream {BUG}"
