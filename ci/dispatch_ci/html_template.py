"""A very small HTML template engine on string.Template: every value is HTML-escaped unless it
is Raw (markup made by another template), so escaping is decided in one place."""
import html
import string
from typing import Iterable


class Raw(str):
    """Markup that goes into a template as it is."""


def render(template: str, **values) -> Raw:
    escaped = {k: v if isinstance(v, Raw) else html.escape(str(v)) for k, v in values.items()}
    return Raw(string.Template(template).substitute(escaped))


def join(parts: Iterable[str], sep: str = "") -> Raw:
    """Joins rendered parts; plain strings among them are escaped."""
    return Raw(sep.join(p if isinstance(p, Raw) else html.escape(str(p)) for p in parts))
