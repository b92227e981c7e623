"""The 2.14.1 campaign's finding (seeded from the committed corpora): QuantizedCPU, a catch-all
kernel (stored as CompositeImplicitAutograd) and a fallthrough CompositeExplicitAutograd kernel,
then the QuantizedCPU kernel dropped. c10's checkInvariants fails: AutogradOther keeps the
ambiguous kernel. It is stale-autogradother (fuzz/c10/known_upstream.md; the stale-autogradother
fix alone makes the input pass), but in 2.14.1 the computed AutogradOther entry is the release's
start-up autograd fallback, a slot the harness never probes, so the report lists no stale slot
and only the line keyed on that shape names the bug."""
from dispatch_ci import c10_known

# The campaign's report (minimised input): its first lines whole, and the table lines the
# signature keys on.
REPORT = ("==== DISPATCH FUZZ BUG in c10_registration_fuzzer: c10 breaks an oracle\n"
          "c10: step 30 (drop handle #30 (modulo the handles made so far)): drop: invariant check fails: "
          "dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED "
          "at \"./aten/src/ATen/core/dispatch/OperatorEntry.cpp\":565, please report a bug to PyTorch. "
          "Canonical state\n"
          "  stale slots (0)\n"
          "CompositeImplicitAutograd[alias]: k21 :: (Tensor _0, Tensor? _1, int _2) -> str _0 [ boxed unboxed ]\n"
          "CompositeExplicitAutograd[alias]: k13 :: (none) [ fallthrough boxed ]\n"
          "AutogradOther: registered at ./aten/src/ATen/core/VariableFallbackKernel.cpp:62 [backend fallback]\n"
          "==== END DISPATCH FUZZ BUG\n")


def test_the_2_14_drop_beside_cea_is_stale_autogradother():
    assert c10_known.known_bug(REPORT) == "stale-autogradother"


def test_a_drop_that_breaks_the_invariants_without_cea_is_not_known():
    # The line keys on every term: without a CompositeExplicitAutograd kernel the same report is new.
    without_cea = "\n".join(line for line in REPORT.splitlines() if "CompositeExplicitAutograd" not in line)
    assert c10_known.known_bug(without_cea) is None
