"""The one-hour -seed=13 c10 campaign's six untriaged crash inputs (docs/c10-harness.md), as the
fuzz target reported them (the step line and the stale slots, whole). Three shapes:
(a) dropping CompositeExplicitAutograd while NestedTensorCPU has a kernel of its own, (b) the same
drop while a CompositeImplicitAutogradNestedTensor kernel serves the nested slots: both are
stale-after-dropping-compositeexplicitautograd, which the lines keyed on AutogradNestedTensor and
NestedTensorCPU miss; (c) stale-autogradother with a second, hidden stale slot
(AutogradNestedTensor) left by stale-autogradnestedtensor. See fuzz/c10/known_upstream.md."""
import pytest

from dispatch_ci import c10_known
from dispatch_ci.nightly import triage

HEAD = "==== DISPATCH FUZZ BUG in c10_registration_fuzzer: c10 and model disagree\n"
TAIL = "==== END DISPATCH FUZZ BUG\n"
DROP_BUG = "stale-after-dropping-compositeexplicitautograd"
BUG_OF_SHAPE = {"a": DROP_BUG, "b": DROP_BUG, "c": "stale-autogradother"}

# (crash input, shape, step line, stale slots)
CAMPAIGN = [
    ('crash-7388d08f', 'a',
     'c10: step 37 (drop handle #189 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'NestedTensorCUDA (live: missing; computed: kernel k21)',
         'NestedTensorHIP (live: missing; computed: kernel k21)',
         'NestedTensorXLA (live: missing; computed: kernel k21)',
         'NestedTensorMPS (live: missing; computed: kernel k21)',
         'NestedTensorIPU (live: missing; computed: kernel k21)',
         'NestedTensorXPU (live: missing; computed: kernel k21)',
         'NestedTensorHPU (live: missing; computed: kernel k21)',
         'NestedTensorVE (live: missing; computed: kernel k21)',
         'NestedTensorLazy (live: missing; computed: kernel k21)',
         'NestedTensorMeta (live: missing; computed: kernel k21)',
         'NestedTensorPrivateUse1 (live: kernel fb22; computed: kernel k21)',
         'NestedTensorPrivateUse2 (live: missing; computed: kernel k21)',
         'NestedTensorPrivateUse3 (live: missing; computed: kernel k21)',
         'AutogradCUDA (live: fallthrough; computed: kernel k21)',
         'AutogradHIP (live: missing; computed: kernel k21)',
         'AutogradXLA (live: fallthrough; computed: kernel k21)',
         'AutogradMPS (live: fallthrough; computed: kernel k21)',
         'AutogradIPU (live: missing; computed: kernel k21)',
         'AutogradXPU (live: fallthrough; computed: kernel k21)',
         'AutogradHPU (live: fallthrough; computed: kernel k21)',
         'AutogradVE (live: missing; computed: kernel k21)',
         'AutogradLazy (live: fallthrough; computed: kernel k21)',
         'AutogradPrivateUse1 (live: missing; computed: kernel k21)',
         'AutogradPrivateUse2 (live: missing; computed: kernel k21)',
         'AutogradPrivateUse3 (live: missing; computed: kernel k21)',
     ]),
    ('crash-ec1604dd', 'a',
     'c10: step 47 (drop handle #4 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'NestedTensorCUDA (live: missing; computed: kernel k26)',
         'NestedTensorHIP (live: missing; computed: kernel k26)',
         'NestedTensorXLA (live: missing; computed: kernel k26)',
         'NestedTensorMPS (live: missing; computed: kernel k26)',
         'NestedTensorIPU (live: missing; computed: kernel k26)',
         'NestedTensorXPU (live: missing; computed: kernel k26)',
         'NestedTensorHPU (live: missing; computed: kernel k26)',
         'NestedTensorVE (live: missing; computed: kernel k26)',
         'NestedTensorLazy (live: missing; computed: kernel k26)',
         'NestedTensorMeta (live: missing; computed: kernel k26)',
         'NestedTensorPrivateUse1 (live: missing; computed: kernel k26)',
         'NestedTensorPrivateUse2 (live: missing; computed: kernel k26)',
         'NestedTensorPrivateUse3 (live: missing; computed: kernel k26)',
         'AutogradOther (live: fallthrough; computed: kernel k26)',
         'AutogradHIP (live: missing; computed: kernel k26)',
         'AutogradXLA (live: fallthrough; computed: kernel k26)',
         'AutogradMPS (live: fallthrough; computed: kernel k26)',
         'AutogradIPU (live: missing; computed: kernel k26)',
         'AutogradXPU (live: fallthrough; computed: kernel k26)',
         'AutogradHPU (live: fallthrough; computed: kernel k26)',
         'AutogradVE (live: missing; computed: kernel k26)',
         'AutogradLazy (live: fallthrough; computed: kernel k26)',
         'AutogradMeta (live: missing; computed: kernel k26)',
         'AutogradPrivateUse1 (live: missing; computed: kernel k26)',
         'AutogradPrivateUse2 (live: missing; computed: kernel k26)',
         'AutogradPrivateUse3 (live: missing; computed: kernel k26)',
     ]),
    ('crash-ff87f2c8', 'a',
     'c10: step 42 (drop handle #1 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'NestedTensorCUDA (live: missing; computed: kernel k38)',
         'NestedTensorHIP (live: missing; computed: kernel k38)',
         'NestedTensorXLA (live: missing; computed: kernel k38)',
         'NestedTensorMPS (live: missing; computed: kernel k38)',
         'NestedTensorIPU (live: missing; computed: kernel k38)',
         'NestedTensorXPU (live: missing; computed: kernel k38)',
         'NestedTensorHPU (live: missing; computed: kernel k38)',
         'NestedTensorVE (live: missing; computed: kernel k38)',
         'NestedTensorLazy (live: missing; computed: kernel k38)',
         'NestedTensorMeta (live: missing; computed: kernel k38)',
         'NestedTensorPrivateUse1 (live: missing; computed: kernel k38)',
         'NestedTensorPrivateUse2 (live: missing; computed: kernel k38)',
         'NestedTensorPrivateUse3 (live: missing; computed: kernel k38)',
         'AutogradOther (live: fallthrough; computed: kernel k38)',
         'AutogradCPU (live: fallthrough; computed: kernel k38)',
         'AutogradCUDA (live: fallthrough; computed: kernel k38)',
         'AutogradHIP (live: missing; computed: kernel k38)',
         'AutogradXLA (live: fallthrough; computed: kernel k38)',
         'AutogradMPS (live: fallthrough; computed: kernel k38)',
         'AutogradIPU (live: missing; computed: kernel k38)',
         'AutogradXPU (live: fallthrough; computed: kernel k38)',
         'AutogradHPU (live: fallthrough; computed: kernel k38)',
         'AutogradVE (live: missing; computed: kernel k38)',
         'AutogradLazy (live: fallthrough; computed: kernel k38)',
         'AutogradMeta (live: missing; computed: kernel k38)',
         'AutogradPrivateUse1 (live: missing; computed: kernel k38)',
         'AutogradPrivateUse2 (live: missing; computed: kernel k38)',
         'AutogradPrivateUse3 (live: missing; computed: kernel k38)',
     ]),
    ('crash-b12d3b3f', 'b',
     'c10: step 44 (drop handle #3 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'AutogradCPU (live: fallthrough; computed: kernel k29)',
         'AutogradMPS (live: fallthrough; computed: kernel k29)',
         'AutogradIPU (live: missing; computed: kernel k29)',
         'AutogradXPU (live: fallthrough; computed: kernel k29)',
         'AutogradHPU (live: fallthrough; computed: kernel k29)',
         'AutogradVE (live: missing; computed: kernel k29)',
         'AutogradLazy (live: fallthrough; computed: kernel k29)',
         'AutogradMeta (live: missing; computed: kernel k29)',
         'AutogradPrivateUse1 (live: missing; computed: kernel k29)',
         'AutogradPrivateUse2 (live: missing; computed: kernel k29)',
         'AutogradPrivateUse3 (live: missing; computed: kernel k29)',
     ]),
    ('crash-edb4690d', 'b',
     'c10: step 47 (drop handle #126 (modulo the handles made so far)): drop: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'AutogradOther (live: fallthrough; computed: kernel k24)',
         'AutogradCPU (live: fallthrough; computed: kernel k24)',
         'AutogradHIP (live: missing; computed: kernel k24)',
         'AutogradXLA (live: fallthrough; computed: kernel k24)',
         'AutogradMPS (live: fallthrough; computed: kernel k24)',
         'AutogradIPU (live: missing; computed: kernel k24)',
         'AutogradXPU (live: fallthrough; computed: kernel k24)',
         'AutogradHPU (live: fallthrough; computed: kernel k24)',
         'AutogradVE (live: missing; computed: kernel k24)',
         'AutogradLazy (live: fallthrough; computed: kernel k24)',
         'AutogradMeta (live: missing; computed: kernel k24)',
         'AutogradPrivateUse1 (live: missing; computed: kernel k24)',
         'AutogradPrivateUse2 (live: missing; computed: kernel k24)',
         'AutogradPrivateUse3 (live: missing; computed: kernel k24)',
     ]),
    ('crash-12d3e90d', 'c',
     'c10: step 39 (impl boxed fz::op0 @ SparseCPU): impl boxed: invariant check fails: dispatch_seam::op0: expected_k._equalsBoxedAndUnboxed(dispatchTable_[idx]) INTERNAL ASSERT FAILED at "./aten/src/ATen/core/dispatch/OperatorEntry.cpp":459, please report a bug to PyTorch. Canonical state',
     [
         'AutogradOther (live: kernel k18; computed: ambiguous)',
         'AutogradNestedTensor (live: kernel k18; computed: kernel k11)',
     ]),
]


def report(step: str, slots: list) -> str:
    return HEAD + step + "\n" + f"  stale slots ({len(slots)}): " + ", ".join(slots) + "\n" + TAIL


@pytest.mark.parametrize("crash,shape,step,slots", CAMPAIGN, ids=[c[0] for c in CAMPAIGN])
def test_each_campaign_report_is_the_bug_of_its_shape(crash, shape, step, slots):
    assert c10_known.known_bug(report(step, slots)) == BUG_OF_SHAPE[shape]


def test_the_earlier_signature_lines_missed_them():
    for crash, shape, step, slots in CAMPAIGN:
        text = report(step, slots)
        if shape in "ab":
            assert not any(s.startswith(("NestedTensorCPU (", "AutogradNestedTensor (")) for s in slots), crash
        else:
            assert len(slots) == 2 and "stale slots (1)" not in text, crash


DROPS = [c for c in CAMPAIGN if c[1] in "ab"]


@pytest.mark.parametrize("crash,shape,step,slots", DROPS, ids=[c[0] for c in DROPS])
def test_the_same_stale_slots_after_a_registration_are_not_the_drop_bug(crash, shape, step, slots):
    impl_step = step.replace("): drop: invariant", "): impl typed: invariant")
    assert c10_known.known_bug(report(impl_step, slots)) is None


def test_a_drop_that_leaves_autograd_privateuse3_holding_a_kernel_is_not_the_drop_bug():
    # The drop bug leaves the slot empty (or the start-up fallthrough) where the math kernel is due;
    # a live kernel where none is due after a drop is something else.
    crash, shape, step, slots = CAMPAIGN[3]
    near = [s for s in slots if not s.startswith("AutogradPrivateUse3 (")]
    near.append("AutogradPrivateUse3 (live: kernel k29; computed: missing)")
    assert c10_known.known_bug(report(step, near)) is None


def test_stale_autogradother_with_a_third_stale_slot_is_not_known():
    crash, shape, step, slots = CAMPAIGN[5]
    three = slots + ["AutogradCPU (live: kernel k18; computed: missing)"]
    assert c10_known.known_bug(report(step, three)) is None


def test_stale_autogradother_with_an_empty_autograd_nested_tensor_is_not_this_form():
    # stale-autogradnestedtensor leaves the math kernel live; a live slot that is empty is not it.
    crash, shape, step, slots = CAMPAIGN[5]
    other = [slots[0], "AutogradNestedTensor (live: missing; computed: kernel k11)"]
    assert c10_known.known_bug(report(step, other)) is None


def test_triage_buckets_the_three_shapes_as_known_upstream():
    for crash, shape, step, slots in CAMPAIGN:
        action = "impl" if shape == "c" else "drop"
        text = f"DISPATCH-STEP flavour=c10 step=1 action={action} key=none | x\n" + report(step, slots)
        c = triage.classify(text, "crash", "c10")
        assert c["known_upstream"] == BUG_OF_SHAPE[shape], crash
        assert c["key"]["action"] == f"known upstream {BUG_OF_SHAPE[shape]}"
