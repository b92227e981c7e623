"""Which C++ function a line of source lies in, from the text alone (brace counting).

Two users: patches.touched() names the function a hunk changes when git's hunk header names
only the enclosing struct (member functions are indented, git's C++ heuristic skips them);
and the verdict, whose report at a faulty access may sit in a caller of the changed function:
the patch changes a function that computes an index, the index function has returned, and the
caller's subscript overflows. The verdict then reads the caller's body (function_body) and
accepts the report only when it calls a function the patch changed.
"""
import re
from pathlib import Path
from typing import List, Tuple

_NAME_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "static_assert",
                  "constexpr", "catch", "alignof", "noexcept", "requires"}
_MAX_SIGNATURE_LINES = 4


def _code(line: str) -> str:
    return line.split("//", 1)[0]


def _signature(lines: List[str], index: int) -> str:
    """The text that opens the block at lines[index]: that line and the lines before it back
    to the end of the previous statement or block."""
    start = index
    while start > 0 and index - start < _MAX_SIGNATURE_LINES:
        previous = _code(lines[start - 1]).rstrip()
        if not previous or previous.endswith((";", "{", "}")):
            break
        start -= 1
    return " ".join(_code(l).strip() for l in lines[start:index + 1])


def function_name(signature: str) -> str:
    """The function a block-opening text defines, or '' for control flow, lambdas, classes."""
    text = signature.split("{", 1)[0]
    if "](" in text.replace(" ", "") or re.match(r"\s*(else|do|try)\b", text):
        return ""
    names = [n for n in _NAME_CALL.findall(text) if n not in _NOT_FUNCTIONS]
    first = re.match(r"\s*([A-Za-z_]+)", text)
    if not names or (first and first.group(1) in _NOT_FUNCTIONS):
        return ""
    return names[0]


def enclosing(lines: List[str], index: int) -> Tuple[str, int]:
    """(name, index of its opening line) of the function lines[index] lies in, walking out of
    the blocks that enclose it; ('', -1) when none is found in `lines`."""
    depth = 0
    for i in range(index - 1, -1, -1):
        code = _code(lines[i])
        depth += code.count("}") - code.count("{")
        if depth < 0:
            name = function_name(_signature(lines, i))
            if name:
                return name, i
            depth = 0  # a control-flow block or lambda: keep walking out
    return "", -1


def function_body(path: str, line: int) -> Tuple[str, str]:
    """(name, text from signature to closing brace) of the function enclosing 1-based `line` of
    `path`; ('', '') when the file cannot be read or no function encloses the line (the verdict
    then refuses the report)."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "", ""
    if line < 1 or line > len(lines):
        return "", ""
    name, start = enclosing(lines, line - 1)
    if not name:
        return "", ""
    depth = 0
    for end in range(start, len(lines)):
        code = _code(lines[end])
        depth += code.count("{") - code.count("}")
        if depth <= 0 and "{" in "".join(_code(l) for l in lines[start:end + 1]):
            return name, "\n".join(lines[start:end + 1])
    return "", ""
