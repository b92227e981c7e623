"""The shell lines of the documentation's fenced blocks, checked against the tools they call.

A renamed flag, preset or script must not leave a stale instruction behind, so every command
in a ```sh (or bash, shell, console) block of README.md, docs/*.md and bench/README.md is
checked without running it for real:

- the program exists: a file of the repository, a shell's `source FILE`, or a program on PATH;
  a program under build/ cannot be checked without a build and is refused (show such a line in
  prose instead);
- every flag it passes is defined by the program's own help (`--help`, which must exit 0 for a
  repository script; for `cmake --build` and `cmake --workflow` the usage those modes print):
  an option line or a usage line names it, not only a sentence of prose;
  `ci/tool.py JOB` is asked `ci/tool.py JOB --help`;
- a `--preset NAME` names a preset of CMakePresets.json of the kind the command takes, and
  `cmake -DNAME=...` a DISPATCH_* option some CMake file declares;
- an argument naming a file of the repository (ci/..., fuzz/..., ...) exists;
- a wrapper (ci/c10.sh --libtorch R COMMAND ...) is checked with its own flags, and the command
  it runs as a line of its own.

Every fence needs a language tag, so a command cannot slip past the check in an untagged block.

    python3 -m dispatch_ci.doc_commands        (PYTHONPATH=ci; exit 1 on any stale line)
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from . import paths

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
PLACEHOLDER = re.compile(r"<[^<>]*>")    # <crash file>, <target>: a value the reader fills in
SUBSTITUTION = re.compile(r"\$\([^()]*\)")  # $(mktemp -d): a value the shell fills in
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
REPO_FOLDERS = ("ci/", "fuzz/", "bench/", "docs/", "cmake/", "sanitizer_builds/", "dispatch/",
                "oracle/", "properties/", "c10_sut/", ".ci/", ".clusterfuzzlite/")
HELP_TIMEOUT = 60
PRESET_KINDS = {"configure": "configurePresets", "build": "buildPresets", "test": "testPresets",
                "workflow": "workflowPresets"}


def documentation_files(root: Path = paths.ROOT) -> List[Path]:
    """What the check reads: the top README, bench/README.md and every page under docs/."""
    files = [root / "README.md", root / "bench" / "README.md"] + sorted((root / "docs").glob("*.md"))
    return [f for f in files if f.is_file()]


@dataclass
class DocLine:
    where: str      # file:line
    text: str       # the command, continuation lines joined


@dataclass
class Problem:
    where: str
    text: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.text}\n    {self.reason}"


def fenced_lines(path: Path, root: Path = paths.ROOT) -> Iterator[object]:
    """Yields a DocLine per shell command, or a Problem for an untagged fence."""
    name = os.path.relpath(path, root)
    language: Optional[str] = None
    pending: List[str] = []
    start = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if language is None:
                language = stripped[3:].strip().lower()
                if not language:
                    yield Problem(f"{name}:{number}", stripped,
                                  "a fence without a language tag (use sh for commands, text otherwise)")
            else:
                language = None
            continue
        if language not in SHELL_LANGUAGES:
            continue
        if not pending:
            start = number
            if stripped.startswith("$ "):
                stripped = stripped[2:]
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        text = " ".join(pending + [stripped]).strip()
        pending = []
        text = _without_comment(text)
        if text:
            yield DocLine(f"{name}:{start}", text)


def _without_comment(text: str) -> str:
    """`cmd --x   # why` -> `cmd --x`; a whole-line comment -> ''."""
    if text.startswith("#"):
        return ""
    return re.split(r"\s+#", text, maxsplit=1)[0].strip()


def commands(text: str) -> List[List[str]]:
    """The simple commands of a line (split at && || ; |), each as words, placeholders kept as one."""
    words = shlex.split(SUBSTITUTION.sub("SUBSTITUTION", PLACEHOLDER.sub("PLACEHOLDER", text)))
    out: List[List[str]] = [[]]
    for word in words:
        if word in ("&&", "||", ";", "|"):
            out.append([])
        else:
            out[-1].append(word)
    return [c for c in out if c]


# Wrappers that run the rest of their line as a command of its own: the wrapper's flags (each
# with one value) are checked against the wrapper, the command after them as any other.
WRAPPERS = {"ci/c10.sh": {"--libtorch"}}


def _split_wrapper(words: List[str]) -> Optional[tuple]:
    """(wrapper words, wrapped command) for a wrapper line with a command; None otherwise."""
    if not words or words[0] not in WRAPPERS:
        return None
    i = 1
    while i < len(words) and words[i] in WRAPPERS[words[0]]:
        i += 2
    if i < len(words) and words[i] == "--":
        return words[:i], words[i + 1:]
    return (words[:i], words[i:]) if i < len(words) and not words[i].startswith("-") else None


def _strip_prefixes(words: List[str]) -> List[str]:
    """Drops VAR=value assignments and `nice -n N` in front of the program."""
    while words and ENV_ASSIGNMENT.match(words[0]):
        words = words[1:]
    if words[:2] == ["nice", "-n"]:
        words = words[3:]
    return words


class Checker:
    """Checks commands; help texts and preset lists are read once per run."""

    def __init__(self, root: Path = paths.ROOT, run: Callable[..., subprocess.CompletedProcess] = subprocess.run):
        self.root = root
        self.run = run
        self._help: Dict[tuple, Optional[str]] = {}
        presets = json.loads((root / "CMakePresets.json").read_text(encoding="utf-8"))
        self.presets = {kind: {p["name"] for p in presets.get(key, []) if not p.get("hidden")}
                        for kind, key in PRESET_KINDS.items()}
        self._options: Optional[set] = None

    def check(self, line: DocLine) -> List[Problem]:
        problems = []
        for words in commands(line.text):
            reason = self.check_command(_strip_prefixes(words))
            if reason:
                problems.append(Problem(line.where, line.text, reason))
        return problems

    def check_command(self, words: List[str]) -> Optional[str]:
        if not words:
            return "no command"
        wrapped = _split_wrapper(words)
        if wrapped:
            return self.check_command(wrapped[0]) or self.check_command(_strip_prefixes(wrapped[1]))
        program, args = words[0], words[1:]
        if program in ("source", "."):
            return None if args and (self.root / args[0]).is_file() else f"no file to source: {args}"
        if program.startswith("build/"):
            return f"{program} exists only after a build: show it in prose, not in a checked block"
        missing = self._missing_repo_files(args)
        if missing:
            return f"no such file in the repository: {', '.join(missing)}"
        if "/" in program:
            if not (self.root / program).is_file():
                return f"no such script: {program}"
        elif shutil.which(program) is None:
            return f"program not installed: {program}"
        flags = [a for a in args if a.startswith("-") and a != "-"]
        reason = self._check_presets(program, args) or self._check_cmake_options(program, args)
        if reason or not flags:
            return reason
        help_text = self.help_text(program, args)
        if help_text is None:
            return f"{self._help_command(program, args)} failed: cannot check the flags"
        unknown = [f for f in flags if not _defines(help_text, program, _flag_name(program, f))]
        if unknown:
            return (f"{', '.join(unknown)} not in the help of "
                    f"{' '.join(self._help_command(program, args))}")
        return None

    def _missing_repo_files(self, args: Sequence[str]) -> List[str]:
        return [a for a in args if a.startswith(REPO_FOLDERS) and "PLACEHOLDER" not in a
                and not any(c in a for c in "*?[") and not (self.root / a).exists()]

    def _check_presets(self, program: str, args: List[str]) -> Optional[str]:
        if program not in ("cmake", "ctest"):
            return None
        kind = "test" if program == "ctest" else (
            "workflow" if "--workflow" in args else "build" if "--build" in args else "configure")
        for i, arg in enumerate(args):
            name = arg.split("=", 1)[1] if arg.startswith("--preset=") else (
                args[i + 1] if arg == "--preset" and i + 1 < len(args) else None)
            if name is not None and name not in self.presets[kind]:
                return f"no {kind} preset '{name}' in CMakePresets.json"
        return None

    def _check_cmake_options(self, program: str, args: List[str]) -> Optional[str]:
        if program != "cmake":
            return None
        for arg in args:
            m = re.match(r"-D(DISPATCH_[A-Z0-9_]+)", arg)
            if m and m.group(1) not in self.cmake_options():
                return f"no CMake option {m.group(1)} is declared"
        return None

    def cmake_options(self) -> set:
        """Every DISPATCH_* name declared by option() or set(... CACHE ...) in the CMake files."""
        if self._options is None:
            names = set()
            files = []
            for folder, subfolders, filenames in os.walk(self.root):
                subfolders[:] = [d for d in subfolders if d not in ("build", ".git")]
                files += [Path(folder) / n for n in filenames
                          if n == "CMakeLists.txt" or n.endswith(".cmake")]
            for f in files:
                text = f.read_text(encoding="utf-8", errors="replace")
                names.update(re.findall(r"option\(\s*(DISPATCH_[A-Z0-9_]+)", text))
                names.update(re.findall(r"set\(\s*(DISPATCH_[A-Z0-9_]+)[^)]*\bCACHE\b", text))
            self._options = names
        return self._options

    def _help_command(self, program: str, args: List[str]) -> List[str]:
        if program == "cmake" and "--build" in args:
            return ["cmake", "--build"]          # prints its usage, which lists the build flags
        if program == "cmake" and "--workflow" in args:
            return ["cmake", "--workflow", "--help"]
        if program.endswith("tool.py") and args and not args[0].startswith("-"):
            return [program, args[0], "--help"]
        return [program, "--help"]

    def help_text(self, program: str, args: List[str]) -> Optional[str]:
        command = self._help_command(program, args)
        key = tuple(command)
        if key not in self._help:
            runnable = [str(self.root / command[0]) if "/" in command[0] else command[0]] + command[1:]
            try:
                done = self.run(runnable, cwd=self.root, capture_output=True, text=True,
                                timeout=HELP_TIMEOUT, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired):
                self._help[key] = None
                return None
            text = done.stdout + done.stderr
            # cmake's mode usages exit non-zero; everything else must answer --help with 0.
            ok = bool(text.strip()) and (done.returncode == 0 or command[0] == "cmake")
            self._help[key] = text if ok else None
        return self._help[key]


def _flag_name(program: str, flag: str) -> str:
    """--x=value -> --x; -j2 -> -j; cmake's -DNAME=V -> -D."""
    name = flag.split("=", 1)[0]
    if not name.startswith("--") and len(name) > 2:
        name = name[:2]
    return name


def _defines(help_text: str, program: str, flag: str) -> bool:
    """The help defines the flag, not just mentions it in prose: an option line starts with it
    (`  --budget BUDGET  ...`, `  -h, --help`), a usage line brackets it (`[--fresh]`,
    `[--canaries | --no-canaries]`), or a usage or example line passes it (`Usage: cmake --workflow`, `  bench/run.sh --build`)."""
    f = re.escape(flag)
    end = r"(?![\w-])"
    patterns = (rf"^\s*(?:-\w(?: \S+)?,\s*)?{f}{end}",
                rf"\[{f}{end}", rf"\|\s*{f}{end}",
                rf"^\s*(?:[Uu]sage:\s*)?{re.escape(program)}(?:\s+\S+)*?\s+{f}{end}")
    return any(re.search(p, help_text, re.M) for p in patterns)


def check_files(files: Sequence[Path], checker: Optional[Checker] = None,
                root: Path = paths.ROOT) -> List[Problem]:
    """Every problem of every file; no file or no command at all is itself a problem."""
    if not files:
        return [Problem("(documentation)", "", "no documentation files to check")]
    checker = checker or Checker(root)
    problems: List[Problem] = []
    seen = 0
    for path in files:
        for item in fenced_lines(path, root):
            if isinstance(item, Problem):
                problems.append(item)
                continue
            seen += 1
            problems += checker.check(item)
    if seen == 0:
        problems.append(Problem("(documentation)", "", "no shell command found in any fenced block"))
    return problems


def main(argv: Sequence[str]) -> int:
    files = [Path(a).resolve() for a in argv] or documentation_files()
    problems = check_files(files)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"doc_commands: {len(problems)} stale or uncheckable documented command(s)", file=sys.stderr)
        return 1
    print(f"doc_commands: every command in {len(files)} file(s) checks out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
