"""Fixed-width text tables for the summaries (the printf layouts the jobs have always used)."""
from typing import Iterable, Sequence


def row(widths: Sequence[int], values: Iterable[object], sep: str = " ") -> str:
    """A positive width left-aligns (printf %-Ns), a negative one right-aligns (%Ns)."""
    cells = []
    for width, value in zip(widths, values):
        text = str(value)
        cells.append(text.ljust(width) if width >= 0 else text.rjust(-width))
    return sep.join(cells)
