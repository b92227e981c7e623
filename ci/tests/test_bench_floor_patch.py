"""bench/floors/library_only.patch, which bench/fuzz_floor.sh applies to a scratch copy: it must
still apply to this tree (a rotten patch only shows as an error row of a bench run nobody runs
pre-merge), and its switches must never be in the tree itself (no verdict run can turn its
checks off)."""
from dispatch_ci import paths, scratch

PATCH = "bench/floors/library_only.patch"
SWITCHES = (b"DISPATCH_FLOOR_ORACLE", b"DISPATCH_FLOOR_FLAVOUR")


def test_the_floor_patch_applies_and_changes_only_the_runner_of_our_dispatcher():
    tree = scratch.read_tree()
    patched = scratch.apply_patch(tree, (paths.ROOT / PATCH).read_text(), PATCH)
    changed = {name for name in patched if patched[name] != tree.get(name)}
    assert changed == {"oracle/ours/our_dispatcher_runner.cpp"}
    assert all(s in patched["oracle/ours/our_dispatcher_runner.cpp"] for s in SWITCHES)


def test_no_source_of_the_tree_reads_the_floor_switches():
    tree = scratch.read_tree()
    sources = [name for name in tree if name.endswith((".cpp", ".h", ".cmake", "CMakeLists.txt"))]
    assert sources
    assert [name for name in sources if any(s in tree[name] for s in SWITCHES)] == []
