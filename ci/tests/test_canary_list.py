"""The committed canaries: each patch parses and still applies to this tree, the selftest
patches say what they expect, and no canary code is left in the library."""
from dispatch_ci import scratch
from dispatch_ci.canaries import patches


def test_every_committed_canary_parses_and_applies_to_this_tree():
    tree = scratch.read_tree()
    canaries = patches.load_all()
    assert canaries, "the canary list (ci/canaries/*.patch) is empty"
    for canary in canaries:
        assert canary.expect is None, f"{canary.name}: only selftest patches say 'expect'"
        assert canary.unit or canary.property or canary.fuzz, canary.name
        patched = scratch.apply_patch(tree, canary.diff, canary.name)
        assert all(f.startswith("dispatch/") for f in patches.touched(canary.diff).files)
        assert patched != tree


def test_selftest_patches_apply_and_say_what_they_expect():
    tree = scratch.read_tree()
    selftests = patches.load_all(patches.SELFTEST_PATCHES)
    assert sorted(c.expect for c in selftests) == ["ERROR", "ERROR", "ESCAPED"]
    for canary in selftests:
        scratch.apply_patch(tree, canary.diff, canary.name)


def test_no_canary_code_is_left_in_the_library():
    tree = scratch.read_tree()
    offenders = [name for name, data in tree.items()
                 if name.startswith(("dispatch/", "CMakeLists.txt", "sanitizer_builds/"))
                 and b"DISPATCH_CANARY" in data]
    assert offenders == []
