"""A small source mutator for C++: finds mutation sites line by line and applies one.

Operators (each site changes one line and keeps the line count, so line numbers in the rest
of the file, and hence in debug info, stay put):
  cmp        a < b <-> a <= b, a > b <-> a >= b, == <-> !=      (spaced binary operators only:
  arith      + <-> -, * <-> /, += <-> -=                          `<` in templates is unspaced)
  off-by-one an integer literal n -> n + 1, and n -> n - 1 when n > 0
  bool       true <-> false, && <-> ||, if (c) -> if (!(c))
  delete     a one-line statement (a call or an assignment) becomes an empty line
  swap-args  f(a, b) -> f(b, a) for two plain arguments
Comments, string and character literals, preprocessor lines and static_asserts are never
mutated.
"""
import difflib
import random
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List

OPERATORS = ("cmp", "arith", "off-by-one", "bool", "delete", "swap-args")
_CMP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+="}
_LOGIC = {"&&": "||", "||": "&&"}
_SPACED_OP = re.compile(r"(?<= )(<=|>=|==|!=|\+=|-=|&&|\|\||<|>|\+|-|\*|/)(?= )")
_INT = re.compile(r"(?<![\w.])(\d+)(?![\w.'])")
_BOOL = re.compile(r"\b(true|false)\b")
_IF = re.compile(r"\bif \(")
_ASSIGNS = re.compile(r"(?<![=!<>+\-*/&|^%])=(?!=)")
_SWAP = re.compile(r"\b(\w+)\(([\w.:>-]+|\*\w+), ([\w.:>-]+|\*\w+)\)")
_STATEMENT_STARTS_BADLY = re.compile(
    r"^(return|break|continue|case|default|using|typedef|template|class|struct|namespace|"
    r"static_assert|public|private|protected|const|constexpr|static|auto|bool|int|unsigned|"
    r"size_t|uint\d+_t|int\d+_t|std::|friend|enum|explicit|virtual|inline|\}|#)\b")


@dataclass(frozen=True)
class Site:
    file: str
    line: int      # 1-based
    operator: str
    before: str    # the whole original line
    after: str     # the whole mutated line

    def describe(self) -> str:
        return f"{self.file}:{self.line} {self.operator}"


def mask(lines: List[str]) -> List[str]:
    """The lines with comments, string and char literals replaced by spaces (same columns) and
    preprocessor lines blanked, so that patterns only see code."""
    out, in_block = [], False
    for line in lines:
        if not in_block and line.lstrip().startswith("#"):
            out.append(" " * len(line))
            continue
        chars, i, quote = list(line), 0, ""
        while i < len(line):
            two = line[i:i + 2]
            if in_block:
                if two == "*/":
                    chars[i] = chars[i + 1] = " "
                    in_block, i = False, i + 2
                    continue
                chars[i] = " "
            elif quote:
                if line[i] == "\\":
                    chars[i:i + 2] = "  "[:len(line[i:i + 2])]
                    i += 2
                    continue
                if line[i] == quote:
                    quote = ""
                chars[i] = " "
            elif two == "//":
                chars[i:] = " " * (len(line) - i)
                break
            elif two == "/*":
                chars[i] = chars[i + 1] = " "
                in_block, i = True, i + 2
                continue
            elif line[i] in "\"'" and not (line[i] == "'" and i > 0 and line[i - 1].isalnum()):
                quote = line[i]
                chars[i] = " "
            i += 1
        out.append("".join(chars))
    return out


def _replace(line: str, start: int, end: int, new: str) -> str:
    return line[:start] + new + line[end:]


def _matching_paren(code: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            return i
    return -1


def _line_sites(code: str, line: str, prev_code: str) -> Iterable[tuple]:
    """(operator, mutated line) pairs for one line; `code` is its masked form."""
    if "static_assert" in code or not code.strip():
        return
    for m in _SPACED_OP.finditer(code):
        op = m.group(1)
        table = _CMP if op in _CMP else _LOGIC if op in _LOGIC else _ARITH
        kind = "cmp" if op in _CMP else "bool" if op in _LOGIC else "arith"
        yield kind, _replace(line, m.start(), m.end(), table[op])
    for m in _INT.finditer(code):
        n = int(m.group(1))
        yield "off-by-one", _replace(line, m.start(), m.end(), str(n + 1))
        if n > 0:
            yield "off-by-one", _replace(line, m.start(), m.end(), str(n - 1))
    for m in _BOOL.finditer(code):
        flipped = "false" if m.group(1) == "true" else "true"
        yield "bool", _replace(line, m.start(), m.end(), flipped)
    for m in _IF.finditer(code):
        close = _matching_paren(code, m.end() - 1)
        if close > 0:
            cond = line[m.end():close]
            if _ASSIGNS.search(code[m.end():close]):
                continue  # `if (T* p = ...)` declares: negating it does not compile
            yield "bool", line[:m.end()] + "!(" + cond + ")" + line[close:]
    for m in _SWAP.finditer(code):
        a, b = m.group(2), m.group(3)
        if a != b:
            yield "swap-args", _replace(line, m.start(2), m.end(3), f"{b}, {a}")
    stripped = code.strip()
    if (stripped.endswith(";") and code.startswith("  ")
            and not _STATEMENT_STARTS_BADLY.match(stripped)
            and ("(" in stripped or " = " in stripped or "++" in stripped or "--" in stripped)
            and stripped.count("(") == stripped.count(")")
            and (not prev_code.strip() or prev_code.rstrip().endswith((";", "{", "}", ":")))):
        yield "delete", ""


def sites(file: str, text: str) -> List[Site]:
    lines = text.split("\n")
    masked = mask(lines)
    found = []
    prev = ""
    for number, (line, code) in enumerate(zip(lines, masked), 1):
        for operator, after in _line_sites(code, line, prev):
            if after != line:
                found.append(Site(file, number, operator, line, after))
        if code.strip():
            prev = code
    return found


def all_sites(files: Dict[str, str]) -> List[Site]:
    """Every site in `files` ({path: text}), in a fixed order (path, line, operator)."""
    return [s for name in sorted(files) for s in sites(name, files[name])]


def sample(candidates: List[Site], n: int, seed: int) -> List[Site]:
    """n sites drawn without replacement by a seeded generator: the same seed and tree give
    the same mutants."""
    return random.Random(seed).sample(candidates, min(n, len(candidates)))


def apply(text: str, site: Site) -> str:
    lines = text.split("\n")
    if lines[site.line - 1] != site.before:
        raise ValueError(f"{site.describe()}: the line changed since the site was found")
    lines[site.line - 1] = site.after
    return "\n".join(lines)


def diff(text: str, site: Site) -> str:
    return "".join(difflib.unified_diff(text.splitlines(True), apply(text, site).splitlines(True),
                                        f"a/{site.file}", f"b/{site.file}", n=2))
