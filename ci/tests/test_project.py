from dispatch_ci import paths, project


def test_known_canaries_are_the_patch_files(tmp_path):
    for name in ("two.patch", "one_bug.patch", "notes.txt"):
        (tmp_path / name).write_text("x")
    assert project.known_canaries(tmp_path) == ["one_bug", "two"]
    assert "mobile_fallback_overflow" in project.known_canaries()


def test_targets_from_print_fuzz_targets_output():
    out = "[0/1] cd /x && /usr/bin/cmake -E echo a b\nregistration_fuzzer keyset_fuzzer\n"
    assert project.targets_from_output(out) == ["registration_fuzzer", "keyset_fuzzer"]
    assert project.targets_from_output("ninja: no work to do.\n") == []


def test_the_repository_declares_its_fuzz_targets():
    assert set(project.targets_from_cmakelists()) == set(project.fuzz_target_sources())
