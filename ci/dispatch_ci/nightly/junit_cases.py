"""report.junit.xml of a nightly: one case per step (a FAILED step is an error: something could
not run) and one per bucket the crash history dealt with tonight (new / known: failure; fixed:
passed; known upstream: skipped; a stored input that could not be re-run: error)."""
from typing import List

from ..junit import Case
from .report_model import Report
from .run_folder import step_breaks_night

BUCKET_OUTCOME = {"new": "failure", "reopened": "failure", "known": "failure", "known upstream": "skipped",
                  "fixed": "passed", "error": "error", "not checked": "skipped"}


def step_case(step, result, seconds, detail) -> Case:
    outcome = "error" if step_breaks_night(result) else "passed"
    return Case("nightly.steps", step, outcome, f"{result}: {detail}" if outcome != "passed" else "",
                detail if outcome != "passed" else "", float(seconds or 0), output=f"{result}: {detail}")


def bucket_case(bucket_id: str, event: str, entry: dict) -> Case:
    check = entry.get("last_check", {})
    summary = (f"{event}: {entry.get('key_string', '')} (seen on {entry.get('count')} night(s), "
               f"first {entry.get('first_seen')}, last {entry.get('last_seen')})")
    if event == "fixed":
        summary += f"; fixed in {entry.get('fixed_in', '?')}"
    details = "\n".join([summary, f"re-check: {check.get('outcome', '-')}: {check.get('detail', '')}",
                         f"repro: {entry.get('repro', '')}", "", entry.get("trace", "")])
    return Case("nightly.failures", bucket_id, BUCKET_OUTCOME[event], summary, details, output=summary)


def cases(report: Report) -> List[Case]:
    out = [step_case(*step) for step in report.steps]
    tonight = report.history.get("tonight", {})
    if tonight:
        out += [bucket_case(bid, event, report.history["buckets"][bid]) for bid, event in sorted(tonight.items())]
    else:
        # No crash history (its step broke): tonight's buckets are failures all the same.
        out += [Case("nightly.failures", b["bucket_id"], "failure", b.get("key_string", ""), b.get("repro", ""))
                for b in report.buckets]
    return out
