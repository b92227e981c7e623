"""What every step of a nightly run shares: the options, the run folder, the sanitizer
environment, the engine, and what the builds produced."""
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from .. import paths
from ..log import Say
from .run_folder import RunFolder

SCRIPT = "ci/nightly.sh"
DEFAULT_PRESETS = "full-fuzz,mobile-fuzz"


@dataclass
class Options:
    budget: int = 300
    jobs: int = 2
    targets: List[str] = field(default_factory=list)
    engine: str = "libfuzzer"
    canary: Optional[str] = None
    presets: List[str] = field(default_factory=lambda: DEFAULT_PRESETS.split(","))
    property_preset: str = "full-asan-ubsan"
    run_property: bool = True
    system: str = "ours"      # --system: ours or c10 (nightly/systems.py)
    random_flavours: int = 0            # trimmed flavours drawn at configure time (cmake/flavours.cmake)
    flavour_seed: Optional[int] = None  # their seed (set whenever random_flavours > 0)
    stop_on_first_failure: bool = False  # for measuring time to detection (docs/harness.md section 3)

    def command(self) -> str:
        """The command line of this run, as meta.tsv records it."""
        parts = [f"ci/nightly.sh --budget {self.budget} --jobs {self.jobs}"]
        if self.targets:
            parts.append(f"--targets {','.join(self.targets)}")
        parts.append(f"--engine {self.engine}")
        if not self.run_property:
            parts.append("--no-property")
        if self.canary:
            parts.append(f"--canary {self.canary}")
        if self.system != "ours":
            parts.append(f"--system {self.system}")
        if ",".join(self.presets) != DEFAULT_PRESETS:
            parts.append(f"--presets {','.join(self.presets)}")
        if self.random_flavours:
            parts.append(f"--random-flavours {self.random_flavours} --flavour-seed {self.flavour_seed}")
        if self.stop_on_first_failure:
            parts.append("--stop-on-first-failure")
        return " ".join(parts)

    def tree_suffix(self) -> str:
        """Build trees with drawn flavours are separate: -rand<N>-seed<S>."""
        return f"-rand{self.random_flavours}-seed{self.flavour_seed}" if self.random_flavours else ""


@dataclass
class Night:
    options: Options
    folder: RunFolder
    env: Dict[str, str]
    engine: object
    say: Say = field(default_factory=lambda: Say(SCRIPT))
    started: float = field(default_factory=time.time)
    preset_targets: Dict[str, List[str]] = field(default_factory=dict)   # what built, per preset
    all_targets: List[str] = field(default_factory=list)
    fuzz_seconds: int = 0
    ticker: Optional[object] = None   # progress.Ticker while the job runs (the fuzz step counts campaigns)
    first_failure: threading.Event = field(default_factory=threading.Event)  # a run left an artifact

    def build_dir(self, preset: str) -> Path:
        """Relative to the repository root, like every path the nightly prints or records."""
        suffix = self.options.tree_suffix()
        if self.options.canary:
            return Path(paths.rel(paths.BUILD / f"{preset}-canary-{self.options.canary}{suffix}"))
        if suffix:
            return Path(paths.rel(paths.BUILD / f"{preset}{suffix}"))
        return Path(paths.rel(paths.build_dir(preset)))

    def rel_build_dir(self, preset: str) -> str:
        return paths.rel(self.build_dir(preset))

    def binary(self, preset: str, target: str) -> Path:
        return self.build_dir(preset) / "fuzz" / target

    def log(self, name: str) -> Path:
        return self.folder.path / "logs" / name
