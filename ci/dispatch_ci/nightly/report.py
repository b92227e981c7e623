"""Writes the report of one nightly run: report.md, report.html, report.sarif (SARIF 2.1.0, for
code scanning), report.junit.xml (for CI dashboards), failures/<bucket>/README.md and
state/campaigns.tsv (the job's summary table), all from one report model."""
import json
import os

from .. import junit
from . import coverage_section, junit_cases, report_html, report_md, sarif
from .report_model import campaigns_tsv, load


def write(run: str, coverage_dir: str) -> str:
    """Returns the overall verdict line."""
    report = load(run)
    for b in report.buckets:
        with open(os.path.join(run, b["_dir"], "README.md"), "w") as f:
            f.write(report_md.bucket_readme(run, b))
    coverage = coverage_section.load(run, coverage_dir)   # None until ci/coverage.sh ran
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write(report_md.render(report, coverage))
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write(report_html.render_report(report, coverage) + "\n")
    repro = {b["bucket_id"]: b.get("repro", "") for b in report.buckets}
    with open(os.path.join(run, "report.sarif"), "w") as f:
        json.dump(sarif.build(report.history, repro, report.name, known_upstream=report.known_upstream,
                              release=report.libtorch), f, indent=1)
        f.write("\n")
    junit.write_suite(os.path.join(run, "report.junit.xml"), f"nightly {report.name}", junit_cases.cases(report))
    with open(os.path.join(run, "state", "campaigns.tsv"), "w") as f:
        f.write(campaigns_tsv(report))
    return report.overall
