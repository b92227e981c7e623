"""The dispatcher's flight recorder block in a crash's output (dispatch/diagnostics.h): the last
dispatcher events of each thread, printed between a begin and an end marker before the process
dies. Repro output and the nightly's bucket pages show it next to the stack."""
from typing import List

BEGIN = "==== dispatch flight recorder: begin"
END = "==== dispatch flight recorder: end ===="


def flight_recorder_block(text: str) -> List[str]:
    """The lines of the last complete recorder block in `text`, markers included; [] if none.
    An unterminated block (the process died while printing it) is returned as far as it got."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(BEGIN)]
    if not starts:
        return []
    start = starts[-1]
    for end in range(start + 1, len(lines)):
        if lines[end].startswith(END):
            return lines[start:end + 1]
    return lines[start:]
