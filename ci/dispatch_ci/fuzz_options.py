"""A fuzz target's options file (fuzz/options/<target>.options; c10's beside its targets), read as
OSS-Fuzz reads it: an INI file whose [libfuzzer] section gives libFuzzer flags and whose [asan]
and [ubsan] sections add to the sanitizer's options while the target fuzzes (OSS-Fuzz's
run_fuzzer appends them to ASAN_OPTIONS and UBSAN_OPTIONS). Replays of the committed inputs
(ctest, the replay job, re-runs of a crash) keep sanitizer_builds/*.options as they are: a
section says what fuzzing may trade for speed, never what a found input is checked with."""
import re
from pathlib import Path
from typing import Dict, List, Optional

from .sanitizer_env import with_option

SANITIZER_SECTIONS = {"asan": "ASAN_OPTIONS", "ubsan": "UBSAN_OPTIONS"}
_SECTION = re.compile(r"\[([A-Za-z_]+)\]")
_ENTRY = re.compile(r"([A-Za-z_]+)\s*=\s*(\S+)")


class OptionsError(ValueError):
    """An options file that cannot be read as OSS-Fuzz would read it."""


def read(options_file: Path) -> Dict[str, Dict[str, str]]:
    """{section: {name: value}}; '#' and ';' start comments. A line outside any section, or one
    that is neither a section nor `name = value`, is an error naming the file and line."""
    sections: Dict[str, Dict[str, str]] = {}
    current: Optional[str] = None
    for number, raw in enumerate(Path(options_file).read_text(encoding="utf-8").splitlines(), 1):
        line = re.split(r"[#;]", raw, 1)[0].strip()
        if not line:
            continue
        section, entry = _SECTION.fullmatch(line), _ENTRY.fullmatch(line)
        if section:
            current = section.group(1)
            sections.setdefault(current, {})
        elif entry and current is not None:
            sections[current][entry.group(1)] = entry.group(2)
        else:
            raise OptionsError(f"{options_file}:{number}: '{raw.strip()}' is not a [section] or a "
                               "name = value line inside one")
    return sections


def libfuzzer_flags(options_file: Path, dictionaries: Path) -> List[str]:
    """The [libfuzzer] section as flags; a relative `dict` names a file in `dictionaries`."""
    flags = []
    for name, value in read(options_file).get("libfuzzer", {}).items():
        if name == "dict" and not value.startswith("/"):
            value = str(Path(dictionaries) / value)
        flags.append(f"-{name}={value}")
    return flags


def fuzzing_env(env: Dict[str, str], options_file: Path) -> Dict[str, str]:
    """`env` with the file's sanitizer sections set in ASAN_OPTIONS / UBSAN_OPTIONS (each entry
    replaced where it stands, or added); `env` itself is left as it was."""
    out = dict(env)
    for section, entries in read(options_file).items():
        variable = SANITIZER_SECTIONS.get(section)
        for name, value in entries.items() if variable else ():
            out[variable] = with_option(out.get(variable, ""), name, value)
    return out
