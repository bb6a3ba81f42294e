"""``EvalResult``: what a tournament run returns and what reports and plots read.

Below ``tournament``, ``report`` and ``plots``, so that none of them imports another
only for the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eval.config import EvalConfig
from eval.harness import MatchResult
from eval.summary import Pair, Summary


@dataclass
class EvalResult:
    """What ``tournament.run`` returns: the config, the matches, the summary and where it
    wrote."""

    config: EvalConfig
    names: tuple[str, ...]
    matches: dict[Pair, MatchResult]
    summary: Summary
    stopped: set[Pair] = field(default_factory=set)
    out_dir: Path | None = None
