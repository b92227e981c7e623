"""ci/replay.sh's rules: which input failed, what the failure was, what is left to replay."""
import hashlib
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HEADLINE = re.compile(r"^(==[0-9]+==ERROR: |==== DISPATCH FUZZ BUG|.*runtime error: |.*Assertion .* failed|"
                      r"ThreadSanitizer: |WARNING: ThreadSanitizer|==[0-9]+== ERROR: libFuzzer|"
                      r"terminate called|.*LeakSanitizer)")
ARTIFACT_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")
MAX_FAILURES = 10   # per preset x target; more than that is one bug, not ten
NO_INPUTS = "FAILED (no inputs)"


def headline(text: str) -> str:
    """The first line that says what went wrong (160 characters at most)."""
    for line in text.splitlines():
        if HEADLINE.match(line):
            return line[:160]
    return ""


def list_inputs(roots: Sequence[Path], target: str) -> List[Path]:
    """The input files of one target, in the order the replay main runs them (per folder, sorted)."""
    inputs = []
    for root in roots:
        folder = Path(root) / target
        if folder.is_dir():
            inputs += sorted((f for f in folder.iterdir() if f.is_file() and not f.name.startswith(".")),
                             key=lambda p: str(p).encode())
    return inputs


def sha1(path: Path) -> str:
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def culprit_from_artifact(artifact: Optional[Path], remaining: Sequence[Path]) -> Optional[Path]:
    """libFuzzer: the input whose content is the crash-/leak-/timeout- artifact's."""
    if artifact is None:
        return None
    digest = sha1(artifact)
    return next((f for f in remaining if sha1(f) == digest), None)


def ran_inputs(output: str) -> List[str]:
    return [line[len("Running: "):] for line in output.splitlines() if line.startswith("Running: ")]


def culprit_from_output(output: str, resume_map: Dict[str, Path]) -> Optional[Path]:
    """The replay main: the last "Running:" input, unless it finished all of them ("Executed N
    inputs": the failure came after, e.g. a leak reported at exit)."""
    ran = ran_inputs(output)
    if not ran or re.search(r"^Executed [0-9]* inputs", output, re.M):
        return None
    return resume_map.get(ran[-1], Path(ran[-1]))


def failure_text(returncode: int, timed_out: bool, artifact: Optional[Path], output: str,
                 input_timeout: int, run_timeout: int, libfuzzer: bool) -> str:
    if timed_out:
        return f"hangs (killed: more than {input_timeout}s on one input, or {run_timeout}s in all)"
    if libfuzzer and artifact is not None and artifact.name.startswith("timeout-"):
        return f"timeout (libFuzzer -timeout={input_timeout})"
    return headline(output) or f"exit code {returncode}"


def still_to_replay(remaining: Sequence[Path], failed: Sequence[Path], ran: Sequence[Path]) -> List[Path]:
    """What has not run yet: the replay main ran the inputs in order up to the culprit; libFuzzer
    (ran empty) is restarted on all inputs but the failing ones."""
    done = set(map(str, failed)) | set(map(str, ran))
    return [f for f in remaining if str(f) not in done]


def inputs_per_second(count: int, seconds: float) -> str:
    return f"{count / seconds:.0f}" if seconds > 0 else "0"


def replay_failed(results: Sequence[str]) -> bool:
    """The run passes only if something was replayed and every preset x target passed (a
    configure or build failure, a failing input or a target without inputs fails it)."""
    return not results or any(r != "passed" for r in results)


def junit_outcome(result: str) -> str:
    """A summary row's JUnit outcome: passed; failure (an input failed); error (nothing could be
    replayed: no inputs, the build or configure broke)."""
    if result == "passed":
        return "passed"
    if result == NO_INPUTS or result in ("BUILD-FAIL", "CONFIG-FAIL"):
        return "error"
    return "failure"
