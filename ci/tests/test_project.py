from dispatch_ci import paths, project


def test_known_canaries_from_the_cmake_list(tmp_path):
    f = tmp_path / "canaries.cmake"
    f.write_text("# x\nset(DISPATCH_CANARY_NAMES\n  one_bug   # pytorch#1\n  two\n)\nset(OTHER three)\n")
    assert project.known_canaries(f) == ["one_bug", "two"]
    assert "mobile_fallback_overflow" in project.known_canaries(paths.CANARIES_CMAKE)


def test_targets_from_print_fuzz_targets_output():
    out = "[0/1] cd /x && /usr/bin/cmake -E echo a b\nregistration_fuzzer keyset_fuzzer\n"
    assert project.targets_from_output(out) == ["registration_fuzzer", "keyset_fuzzer"]
    assert project.targets_from_output("ninja: no work to do.\n") == []


def test_the_repository_declares_its_fuzz_targets():
    assert set(project.targets_from_cmakelists()) == set(project.fuzz_target_sources())
