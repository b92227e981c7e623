"""fuzz/c10/known_upstream.md's per-release table says what fuzz/c10/known_upstream.status (the
data c10_release_status_test checks against each release) says, bug by bug and release by
release; a bug or a release missing on either side fails."""
import re

from dispatch_ci import paths

STATUS = paths.FUZZ / "c10" / "known_upstream.status"
DOC = paths.FUZZ / "c10" / "known_upstream.md"


def status_file(text):
    table = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        bug, *columns = [part.strip() for part in line.split(" | ")]
        table[bug] = dict(column.split("=", 1) for column in columns)
    return table


def doc_table(text):
    block = re.search(r"<!-- status table: known_upstream.status -->\n(.*?)<!-- end status table -->", text, re.S)
    assert block, f"{DOC}: no status table between its markers"
    rows = [row.strip().strip("|").split("|") for row in block.group(1).strip().splitlines()]
    releases = [cell.strip() for cell in rows[0][1:]]
    return {cells[0].strip(): dict(zip(releases, (c.strip() for c in cells[1:]))) for cells in rows[2:]}


def test_the_doc_table_says_what_the_status_file_says():
    data = status_file(STATUS.read_text())
    assert data, f"{STATUS}: no bug"
    assert doc_table(DOC.read_text()) == data


def test_a_disagreement_fails():
    data = status_file("stale-autogradother | 1.13=shows | 2.14=shows\n")
    doc = doc_table("<!-- status table: known_upstream.status -->\n| bug | 1.13 | 2.14 |\n|---|---|---|\n"
                    "| stale-autogradother | shows | fixed |\n<!-- end status table -->")
    assert doc != data


def test_the_nightly_knows_the_releases_the_setup_script_knows():
    import subprocess
    from dispatch_ci.jobs import nightly
    shell = subprocess.run(["bash", "-c", f"source {paths.ROOT / 'ci/lib/libtorch_releases.sh'}; libtorch_known_releases"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert tuple(shell) == nightly.LIBTORCH_RELEASES
