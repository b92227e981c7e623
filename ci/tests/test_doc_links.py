"""Every relative link of the README and docs points at a file that exists (pages moved, not lost)."""
import re

from dispatch_ci import doc_commands, paths

LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken_links(files):
    broken = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                if not (path.parent / target.split("#", 1)[0]).exists():
                    broken.append(f"{paths.rel(path)}:{number}: {target}")
    return broken


def test_every_relative_link_resolves():
    files = doc_commands.documentation_files()
    assert files
    assert broken_links(files) == []


def test_a_link_to_a_moved_page_is_found(tmp_path):
    page = tmp_path / "a.md"
    page.write_text("[ok](a.md) [web](https://example.org) [gone](old/coverage.md#x)\n")
    assert broken_links([page]) == [f"{page}:1: old/coverage.md#x"]
