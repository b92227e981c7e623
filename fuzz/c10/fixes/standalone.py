"""The stale-table repros as their upstream reports carry them: one file each, probe.h inlined.

    python3 fuzz/c10/fixes/standalone.py BUG       prints the program of repros/BUG.cpp
    python3 fuzz/c10/fixes/standalone.py --update  writes into each docs/upstream/BUG.md its
        program, the patch (docs/upstream/stale-table.diff), its regression test (the shared part
        of regression_test.cpp and the tests whose "// test: BUG..." line names BUG) and, where replay.sh has run,
        the program's output without a fix and with the family fix (and into README.md the
        verdicts of the whole replay)

The blocks sit between <!-- NAME:begin --> and <!-- NAME:end --> lines (NAME: program, patch,
test, output, replay).
"""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXES = REPO / "fuzz/c10/fixes"
REPORTS = REPO / "docs/upstream"
RELEASE = "2.14"
INCLUDE = '#include "probe.h"\n'


def bugs():
    return sorted(p.stem for p in (FIXES / "repros").glob("stale-*.cpp"))


def program(bug):
    source = (FIXES / "repros" / f"{bug}.cpp").read_text()
    assert source.startswith(INCLUDE), f"repros/{bug}.cpp must start with {INCLUDE!r}"
    return (FIXES / "repros/probe.h").read_text() + source[len(INCLUDE):]


def block(text, name):
    """The text between the NAME markers, or None."""
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    if begin not in text:
        return None
    return text.split(begin, 1)[1].split(end, 1)[0]


def replace_block(text, name, content):
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    head, rest = text.split(begin, 1)
    return head + begin + content + end + rest.split(end, 1)[1]


def program_block(bug):
    return f"```cpp\n// {bug}.cpp\n{program(bug)}```\n"


def test_block(bug):
    """regression_test.cpp's shared part and the tests marked for `bug`, as one file."""
    source = (FIXES / "regression_test.cpp").read_text()
    shared, *tests = source.split("\n// test: ")
    mine = [t.split("\n", 1)[1] for t in tests if bug in t.split("\n", 1)[0].split()]
    assert mine, f"regression_test.cpp has no test marked // test: {bug}"
    return f"```cpp\n{shared}\n{''.join(mine).rstrip()}\n\n}}  // namespace\n```\n"


def output_block(bug):
    """What replay.sh recorded for the program: without a fix, and with the family fix."""
    directory = REPO / "build/c10-fixes" / RELEASE
    if not (directory / "replay.tsv").exists():
        return None
    exits = {}
    for line in (directory / "replay.tsv").read_text().splitlines()[1:]:
        program_, fix, status, _, _ = line.split("\t")
        exits[program_, fix] = status
    parts = []
    for fix, title in (("plain", f"libtorch {RELEASE} as Debian ships it"), ("stale-table", "with the fix preloaded")):
        parts.append(f"{title} (exit status {exits[bug, fix]}):\n\n"
                     f"```\n{(directory / 'replay' / f'{bug}.{fix}.txt').read_text()}```\n")
    return "\n".join(parts)


def replay_block():
    """replay.sh's last verdicts as a table: a row per program, a column per fix."""
    tsv = REPO / "build/c10-fixes" / RELEASE / "replay.tsv"
    if not tsv.exists():
        return None
    rows = [line.split("\t") for line in tsv.read_text().splitlines()[1:]]
    fixes = list(dict.fromkeys(r[1] for r in rows))
    cells = {(r[0], r[1]): f"{r[3]} ({r[2]})" if r[4] == "ok" else f"**{r[4]}**: exit {r[2]}, expected {r[3]}"
             for r in rows}
    lines = ["| program | " + " | ".join(f"`{f}`" for f in fixes) + " |", "|---" * (len(fixes) + 1) + "|"]
    for program_ in dict.fromkeys(r[0] for r in rows):
        lines.append(f"| `{program_}` | " + " | ".join(cells[program_, f] for f in fixes) + " |")
    return "Cells: the verdict (exit status); every one is as expected unless marked.\n\n" + "\n".join(lines) + "\n"


def update():
    replay = replay_block()
    if replay is not None:
        readme = REPORTS / "README.md"
        readme.write_text(replace_block(readme.read_text(), "replay", replay))
    for bug in bugs():
        report = REPORTS / f"{bug}.md"
        text = replace_block(report.read_text(), "program", program_block(bug))
        text = replace_block(text, "patch", f"```diff\n{(REPORTS / 'stale-table.diff').read_text()}```\n")
        text = replace_block(text, "test", test_block(bug))
        output = output_block(bug)
        if output is not None:
            text = replace_block(text, "output", output)
        report.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    elif len(sys.argv) == 2 and sys.argv[1] in bugs():
        sys.stdout.write(program(sys.argv[1]))
    else:
        sys.exit(__doc__)
