"""Writes the report of one nightly run: report.md, report.html, failures/<bucket>/README.md and
state/campaigns.tsv (the job's summary table), all from one report model."""
import os

from . import coverage_section, report_html, report_md
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
    with open(os.path.join(run, "state", "campaigns.tsv"), "w") as f:
        f.write(campaigns_tsv(report))
    return report.overall
