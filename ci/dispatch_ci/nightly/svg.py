"""Inline SVG step plots (coverage and corpus size over time) for the HTML report."""
from typing import List, Tuple

from ..html_template import Raw, join, render

EMPTY = ('<svg class="plot" width="$width" height="$height" role="img"><text x="10" y="20">$title: no '
         'status lines</text><text x="10" y="34">(the run stopped while loading the corpus)</text></svg>')
FRAME = ('<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="$width" height="$height" '
         'viewBox="0 0 $width $height" role="img" aria-label="$title"><title>$title</title>'
         '<text x="$left" y="13" class="pt">$title</text>'
         '<rect x="$left" y="$top" width="$pw" height="$ph" class="frame"/>$labels$lines</svg>')
YLABEL = '<text x="$x" y="$y" class="yl">$text</text>'
XLABEL = '<text x="$x" y="$y" class="xl">$text</text>'
LINE = ('<polyline fill="none" stroke="$colour" stroke-width="1.5" points="$points">'
        '<title>$label</title></polyline>')
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]

Series = Tuple[str, str, List[Tuple[float, float]]]   # label, colour, (t, y) points


def plot(series: List[Series], title: str, width: int = 340, height: int = 130) -> Raw:
    pts = [p for _, _, s in series for p in s]
    if not pts:
        return render(EMPTY, width=width, height=height, title=title)
    left, right, top, bottom = 48, 10, 20, 24
    tmax = max(max(t for t, _ in pts), 1.0)
    ymin, ymax = min(y for _, y in pts), max(y for _, y in pts)
    if ymax == ymin:
        ymax += 1
        ymin = max(0, ymin - 1)
    pw, ph = width - left - right, height - top - bottom

    def x(t):
        return left + pw * t / tmax

    def y(v):
        return top + ph * (1 - (v - ymin) / (ymax - ymin))

    labels = [render(YLABEL, x=left - 4, y=f"{y(ymin + (ymax - ymin) * f) + 4:.1f}",
                     text=f"{ymin + (ymax - ymin) * f:.0f}") for f in (0.0, 0.5, 1.0)]
    labels += [render(XLABEL, x=f"{x(tmax * f):.1f}", y=height - 8, text=f"{tmax * f:.0f}s")
               for f in (0.0, 0.5, 1.0)]
    lines = []
    for label, colour, s in series:
        if not s:
            continue
        points, prev = [], None
        for t, v in sorted(s):   # a step plot: the value holds until the next status line
            if prev is not None:
                points.append(f"{x(t):.1f},{y(prev):.1f}")
            points.append(f"{x(t):.1f},{y(v):.1f}")
            prev = v
        lines.append(render(LINE, colour=colour, points=" ".join(points), label=label))
    return render(FRAME, width=width, height=height, title=title, left=left, top=top, pw=pw, ph=ph,
                  labels=join(labels), lines=join(lines))
